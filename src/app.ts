// buildApp(config, deps) makes the whole service in three steps: the context
// (every dependency, no HTTP: src/create-context.ts), the HTTP side on it
// (hooks and routes: src/http/register-http.ts), and the background work
// (src/jobs/workers.ts). main.ts alone listens and handles signals. Tests
// build it with fakes and close it after.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { AppContext, AppDeps } from './context.js';
import { createContext } from './create-context.js';
import { frameworkErrors } from './http/errors.js';
import { installRequestLog, logDestination, loggingOptions } from './http/logging.js';
import { requestIdOf } from './http/observability.js';
import { registerHttp } from './http/register-http.js';
import { serializerFactory } from './http/serialization.js';
import { clientErrorHandler, httpServerFactory } from './http/server.js';
import { startWorkers, type Workers } from './jobs/workers.js';

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const logStream = deps.logger === false ? null : logDestination();
  const options: FastifyServerOptions = {
    ...(logStream === null ? { logger: false } : loggingOptions(config.logLevel, logStream, typeof deps.logger === 'object' ? deps.logger : {})),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    // x-request-id is echoed when it is a sane value, else replaced (see requestIdOf).
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Time-outs and limits live on the server.
    serverFactory: httpServerFactory(config.server),
    routerOptions: { maxParamLength: 200 },
    frameworkErrors: frameworkErrors as FastifyServerOptions['frameworkErrors'],
    // What Node cannot parse into a request is answered in the error shape too.
    clientErrorHandler,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Each response schema's serializer built once, with only the shared schemas it uses.
    schemaController: { compilersFactory: { buildSerializer: serializerFactory() } },
  };
  const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;

  if (logStream !== null) installRequestLog(app);

  const flushLog = () => (logStream ? new Promise<void>((resolve) => logStream.flush(() => resolve())) : Promise.resolve());

  let ctx: AppContext;
  try {
    ctx = await createContext(config, { ...deps, log: app.log });
  } catch (err) {
    await app.close().catch(() => undefined);
    await flushLog();
    throw err;
  }
  app.addHook('onClose', async () => {
    await ctx.close();
    // What the log buffer holds is written before close resolves (main.ts exits right after).
    await flushLog();
  });
  try {
    await registerHttp(app, ctx, { webDistDir: deps.webDistDir });
    // After the HTTP side's own preClose (graceful close), and before the
    // context closes: a run in progress records what it did.
    let workers: Workers | null = null;
    app.addHook('preClose', async () => workers?.stop());
    await app.ready();
    if (config.metricsPort !== null) await ctx.metrics.serve(config.host, config.metricsPort);
    workers = await startWorkers(ctx);
    await ctx.sessions.start();
    return app;
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
}
