// The baseline: a bare Fastify "hello world" on the same Node, so every
// result can be quoted as a ratio that carries across machines.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
// The same bare server sending a JSON body of exactly n bytes: how fast any
// server on this machine can answer with a body of an endpoint's size.
const bodies = new Map<number, Buffer>();
app.get<{ Params: { n: string } }>('/bytes/:n', (request, reply) => {
  const n = Math.min(Math.max(Number.parseInt(request.params.n, 10) || 2, 2), 10_000_000);
  let body = bodies.get(n);
  if (!body) {
    body = Buffer.from(`"${'x'.repeat(n - 2)}"`);
    bodies.set(n, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
});
// The same bare server replaying an endpoint's exact answer, body and headers
// (registered once by the suite): how fast any server here answers with what
// the endpoint sends, so the client's cost of reading our headers shows too.
const answers = new Map<string, { headers: Record<string, string>; body: Buffer }>();
app.post<{ Body: { headers: Record<string, string>; body: string } }>('/answers', async (request) => {
  const id = String(answers.size + 1);
  answers.set(id, { headers: request.body.headers, body: Buffer.from(request.body.body) });
  return { id };
});
app.get<{ Params: { id: string } }>('/answers/:id', (request, reply) => {
  const answer = answers.get(request.params.id);
  if (!answer) return reply.code(404).send();
  return reply.headers(answer.headers).send(answer.body);
});
await app.listen({ port: Number(process.env.PORT ?? 3001), host: process.env.HOST ?? '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void app.close().then(() => process.exit(0)));
