// The baselines: a bare Fastify "hello world" on the same Node, so every
// result can be quoted as a ratio that carries across machines.
//   HELLO_LOGGING=service (default): the service's own logging, from the same
//     functions (src/http/logging.ts): its level (LOG_LEVEL, info unless set,
//     as the service reads it), its serializers, its one line a request and
//     its destination (buffered, asynchronous standard output), so the ratio
//     shows what the service adds beyond a request logged the same way;
//   HELLO_LOGGING=off: no logger at all.
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { installRequestLog, logDestination, loggingOptions } from '../src/http/logging.js';

const mode = process.env.HELLO_LOGGING ?? 'service';
if (mode !== 'service' && mode !== 'off') throw new Error(`HELLO_LOGGING must be service or off, got "${mode}"`);
// The level the service would log at in this environment (config.ts reads LOG_LEVEL, default info).
const level = loadConfig({ LOG_LEVEL: process.env.LOG_LEVEL }).logLevel;
const app = Fastify(mode === 'off' ? { logger: false } : loggingOptions(level, logDestination()));
if (mode === 'service') installRequestLog(app);
app.get('/', async () => ({ hello: 'world' }));
// The same server sending a JSON body of exactly n bytes: how fast any
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
// The same server replaying an endpoint's exact answer, body and headers
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
