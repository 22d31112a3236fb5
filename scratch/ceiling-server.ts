import Fastify from 'fastify';
const big = Buffer.from(JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ user_id: 10000 + i, username: `trader_${10000 + i}`, total_score: 1234.5678 - i, total_trades: 300 - i }))));
const headers = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
  'x-request-id': '2eb5afe0-bca4-42ff-b0b1-9871f939a9fa',
};
const variants: Record<string, (r: any) => unknown> = {
  hello: () => ({ hello: 'world' }),
  'hello+5': (reply) => { reply.headers(headers); return { hello: 'world' }; },
  big: (reply) => reply.type('application/json; charset=utf-8').send(big),
  'big+5': (reply) => { reply.headers(headers); return reply.type('application/json; charset=utf-8').send(big); },
};
const app = Fastify();
const h = variants[process.env.VARIANT!];
app.get('/', (_req, reply) => h(reply));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
