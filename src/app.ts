// buildApp(config, deps) makes the whole service; main.ts alone listens and
// handles signals. Tests build it with fakes and close it after.
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { AppContext, AppDeps } from './context.js';
import { openDatabase } from './db/database.js';
import { installAuth } from './http/auth.js';
import { BROTLI_OPTIONS, COMPRESS_THRESHOLD, ENCODINGS } from './http/compression.js';
import { installCrossSiteProtection } from './http/cross-site.js';
import { frameworkErrors, installErrorHandling } from './http/errors.js';
import { installGracefulClose } from './http/graceful-close.js';
import { installIdempotency } from './http/idempotency.js';
import { installLoopbackRedirect } from './http/loopback.js';
import { clientErrorHandler, httpServerFactory } from './http/server.js';
import { logDestination, logSerializers } from './http/logging.js';
import { installObservability, requestIdOf } from './http/observability.js';
import { installResponseHeaders } from './http/response-headers.js';
import { installSecurityHeaders } from './http/security-headers.js';
import { serializerFactory } from './http/serialization.js';
import { installOpenApi } from './http/openapi.js';
import './http/types.js';
import { installValidators } from './http/validation.js';
import { installWebApp, webMountPath } from './http/web-app.js';
import { OutboxWorker } from './jobs/outbox.js';
import { systemClock } from './lib/clock.js';
import { Metrics } from './metrics.js';
import { observeQueues } from './services/queue-metrics.js';
import { createChatTransport } from './providers/chat/index.js';
import { createMailSender } from './providers/mail/index.js';
import { queueDueDigests } from './services/email.js';
import { MailTransport } from './services/mail-delivery.js';
import { mailKeyFrom } from './services/mail-tokens.js';
import { TelegramTransport } from './providers/chat/telegram.js';
import { createPaymentProvider } from './providers/payments/index.js';
import { createPriceProvider, newMarketSeed } from './providers/prices/index.js';
import { getOrInitSetting } from './repositories/settings.js';
import { accountRoutes } from './routes/accounts.js';
import { chatRoutes } from './routes/chat.js';
import { notificationRoutes } from './routes/notifications.js';
import { emailRoutes } from './routes/email.js';
import { discoveryRoutes } from './routes/discovery.js';
import { meRoutes } from './routes/me.js';
import { rankingsRoutes } from './routes/rankings.js';
import { instrumentRoutes } from './routes/instruments.js';
import { recordRoutes } from './routes/record.js';
import { statsRoutes } from './routes/stats.js';
import { paymentRoutes } from './routes/payments.js';
import { socialRoutes } from './routes/social.js';
import { tailFadeRoutes } from './routes/tail-fade.js';
import { tradingRoutes } from './routes/trading.js';
import { sharedSchemas } from './schemas/index.js';
import { BetEvents } from './services/bet-events.js';
import { handleTelegramUpdateAndAnswer } from './services/chat.js';
import { endDueLocalSubscriptions, localCheckoutStore } from './services/local-payments.js';
import { MemoryLoginThrottle, RedisLoginThrottle } from './services/login-throttle.js';
import { PasswordHasher } from './services/passwords.js';
import { ProviderStatus } from './services/provider-status.js';
import { publishYesterday } from './services/record.js';
import { CachedPriceService, MemoryPriceStore, RedisPriceStore } from './services/prices.js';
import { SharedAnswers } from './services/shared-answers.js';
import { SessionCache } from './services/sessions.js';
import { SessionTokens } from './services/tokens.js';
import { SettlementWorker } from './jobs/settlement.js';
import { LeagueWorker } from './jobs/league-worker.js';
import { leagueRoutes } from './routes/leagues.js';
import { wireServices } from './services/wiring.js';

/** Secrets never reach the logs. */
export const REDACT = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["stripe-signature"]',
  'req.headers["x-telegram-bot-api-secret-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.current_password',
  '*.new_password',
  '*.password_hash',
  '*.code',
  '*.link_code',
  '*.token',
];

const throttleLimits = (config: Config) => ({
  freeFailures: config.rateLimits.loginFailuresBeforeDelay,
  accountFreeFailures: config.accountThrottle.failuresBeforeDelay,
  accountMaxDelayMs: config.accountThrottle.maxDelayMs,
});

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const ownsDatabase = deps.database === undefined;
  const database = deps.database ?? openDatabase(config.database);
  const ownsRedis = deps.redis === undefined && config.redisUrl !== null;
  const redis =
    deps.redis !== undefined ? deps.redis : config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : null;

  const logStream = deps.logger === false ? null : logDestination();
  const options: FastifyServerOptions = {
    logger:
      logStream === null
        ? false
        : {
            level: config.logLevel,
            redact: { paths: REDACT, censor: '[redacted]' },
            serializers: logSerializers,
            stream: logStream,
            ...(typeof deps.logger === 'object' ? deps.logger : {}),
          },
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

  try {
    await database.migrate();
    const jwtSecret = config.jwtSecret ?? (await getOrInitSetting(database.db, 'jwt_secret', SessionTokens.newSecret()));
    // Stored like the signing key, so every instance on one database quotes the same simulated market.
    const marketSeed = config.marketSeed ?? (await getOrInitSetting(database.db, 'market_seed', newMarketSeed()));
    const clock = deps.clock ?? systemClock;
    const chatTransport = deps.chatTransport ?? createChatTransport(config, app.log);
    const metrics = new Metrics({ processMetrics: config.metricsPort !== null });
    const providerStatus = { prices: new ProviderStatus('price'), chat: new ProviderStatus('chat') };
    const outbox = new OutboxWorker({
      database,
      clock,
      transport: chatTransport,
      log: app.log,
      webUrl: config.webUrl,
      onDeliveryFailure: (transport) => metrics.outboxDeliveryFailures.inc({ channel: transport }),
      transportStatus: providerStatus.chat,
    });
    const mailKey = mailKeyFrom(jwtSecret);
    const mailSender = createMailSender(config, app.log);
    const mailTransport = new MailTransport({
      db: database.db,
      clock,
      sender: mailSender,
      key: mailKey,
      publicUrl: config.publicUrl,
      webUrl: config.webUrl,
    });
    const mailOutbox = new OutboxWorker({
      database,
      clock,
      transport: mailTransport,
      log: app.log,
      webUrl: config.webUrl,
      onDeliveryFailure: (transport) => metrics.outboxDeliveryFailures.inc({ channel: transport }),
      stillWanted: (row) => mailTransport.stillWanted(row),
      // Digests now due are queued at the start of each run, which sends them.
      beforeRun: async () => void (await queueDueDigests(ctx)),
    });
    const priceProvider = deps.prices ?? createPriceProvider(config, clock, marketSeed);
    const ctx: AppContext = {
      config,
      database,
      db: database.db,
      dialect: database.dialect,
      clock,
      passwords: new PasswordHasher(
        {
          concurrency: config.hashConcurrency,
          maxWaiting: config.hashQueue.maxWaiting,
          maxWaitMs: config.hashQueue.maxWaitMs,
          // A fair share is a rate limit: off with them (local automation logs in from one address).
          perClient: config.rateLimits.enabled ? config.hashQueue.perClient : Number.POSITIVE_INFINITY,
        },
        deps.passwordHashing,
      ),
      tokens: new SessionTokens(jwtSecret),
      sessions: new SessionCache(clock, redis),
      loginThrottle: redis ? new RedisLoginThrottle(redis, throttleLimits(config)) : new MemoryLoginThrottle(throttleLimits(config)),
      redis,
      betEvents: new BetEvents(database),
      metrics,
      sharedAnswers: new SharedAnswers(clock),
      providerStatus,
      accountDeletionListeners: [],
      chatTransport,
      outbox,
      mail: { outbox: mailOutbox, transport: mailTransport, key: mailKey },
      payments: createPaymentProvider(config, clock, localCheckoutStore(database.db)),
      prices: new CachedPriceService({
        provider: priceProvider,
        clock,
        ttlMs: config.prices.cacheTtlMs,
        store: redis ? new RedisPriceStore(redis, `price:${priceProvider.name}:`) : new MemoryPriceStore(),
        onStoreError: (err) => app.log.warn({ err }, 'price cache unavailable'),
        observer: {
          hit: () => metrics.priceCacheHits.inc(),
          miss: () => metrics.priceCacheMisses.inc(),
          providerError: () => {
            metrics.providerErrors.inc({ provider: priceProvider.name });
            providerStatus.prices.failed(clock.now());
          },
          providerAnswered: () => providerStatus.prices.succeeded(),
        },
      }),
    };
    wireServices(ctx);
    app.decorate('ctx', ctx);
    metrics.onScrape(() => observeQueues(ctx));
    if (config.workers.enabled) {
      const publish = () => publishYesterday(ctx).catch((err) => app.log.error({ err }, 'record publication failed'));
      const timer = setInterval(publish, 3_600_000);
      timer.unref();
      app.addHook('onReady', async () => void publish());
      app.addHook('onClose', async () => clearInterval(timer));
    }
    if (config.workers.enabled && ctx.payments.kind === 'local') {
      // The local provider's cancellations at period end take effect within a minute of the date.
      const endDue = () => endDueLocalSubscriptions(ctx).catch((err) => app.log.error({ err }, 'ending local subscriptions failed'));
      const timer = setInterval(endDue, 60_000);
      timer.unref();
      app.addHook('onReady', async () => void endDue());
      app.addHook('onClose', async () => clearInterval(timer));
    }
    const settlement = config.workers.enabled ? new SettlementWorker(ctx, app.log) : null;
    const leagueWorker = config.workers.enabled ? new LeagueWorker(ctx, app.log) : null;
    app.addHook('onClose', async () => {
      await ctx.metrics.stop();
      await ctx.sessions.stop();
      await settlement?.stop();
      await leagueWorker?.stop();
      if (ownsRedis && redis) redis.disconnect();
      if (ownsDatabase) await database.close();
      // What the log buffer holds is written before close resolves (main.ts exits right after).
      if (logStream) await new Promise<void>((resolve) => logStream.flush(() => resolve()));
    });

    for (const schema of sharedSchemas) app.addSchema(schema);
    installValidators(app, sharedSchemas);
    installErrorHandling(app);
    // HTML forms cannot send application/json: JSON routes accept nothing else.
    app.removeContentTypeParser(['text/plain']);

    // No parsing hook: the routes that need the session cookie read it (src/http/cookies.ts).
    await app.register(cookie, { hook: false });
    const closing = installGracefulClose(app);
    installResponseHeaders(app, closing);
    await installSecurityHeaders(app, config.publicUrl);
    installObservability(app, ctx.metrics);
    installLoopbackRedirect(app, webMountPath(config.webUrl, config.publicUrl));
    await app.register(rateLimit, {
      global: false,
      ...(redis ? { redis, nameSpace: 'rate-limit:' } : {}),
    });
    installAuth(app);
    installIdempotency(app);
    installCrossSiteProtection(app);
    // Answers above 1 KB leave compressed (brotli or gzip, as the client accepts).
    // Registered after the idempotency hooks: a route's onSend hooks run in the
    // order of the onRoute hooks that added them, so the stored answer is the
    // plain one and a replay is compressed afresh. The web app's files come
    // precompressed from the build (src/http/web-app.ts) and are left as they are.
    await app.register(compress, {
      threshold: COMPRESS_THRESHOLD,
      encodings: [...ENCODINGS],
      brotliOptions: BROTLI_OPTIONS,
      globalDecompression: false,
    });
    await installOpenApi(app);

    await app.register(discoveryRoutes);
    await app.register(accountRoutes);
    await app.register(meRoutes);
    await app.register(tradingRoutes);
    await app.register(socialRoutes);
    await app.register(paymentRoutes);
    await app.register(chatRoutes);
    await app.register(notificationRoutes);
    await app.register(emailRoutes);
    await app.register(tailFadeRoutes);

    // Drained before the database closes: a run in progress records what it sent.
    app.addHook('preClose', async () => {
      if (chatTransport instanceof TelegramTransport) await chatTransport.stopReceiving();
      await outbox.stop();
      await mailOutbox.stop();
      mailSender.close();
    });
    await app.register(recordRoutes);
    await app.register(statsRoutes);
    await app.register(rankingsRoutes);
    await app.register(leagueRoutes);
    await app.register(instrumentRoutes);
    await installWebApp(app, deps.webDistDir);

    await app.ready();
    if (config.metricsPort !== null) await ctx.metrics.serve(config.host, config.metricsPort);
    if (config.workers.enabled) {
      outbox.start();
      mailOutbox.start();
      if (chatTransport instanceof TelegramTransport) {
        await chatTransport.startReceiving((update) => handleTelegramUpdateAndAnswer(ctx, update));
      }
    }
    settlement?.start();
    leagueWorker?.start();
    await ctx.sessions.start();
    return app;
  } catch (err) {
    await app.close().catch(() => undefined);
    if (ownsDatabase) await database.close().catch(() => undefined);
    throw err;
  }
}
