// Step one of the assembly (src/app.ts): every dependency of the services,
// nothing of HTTP. A test that exercises services or jobs without requests
// builds a context alone (createTestContext in test/helpers/context.ts) and closes it.
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import webpush from 'web-push';
import type { Config } from './config.js';
import type { AppContext, AppDeps } from './context.js';
import { openDatabase } from './db/database.js';
import { Outbox } from './jobs/outbox.js';
import { systemClock } from './lib/clock.js';
import { connectRedis } from './lib/redis-client.js';
import { Metrics } from './metrics.js';
import { createChatTransport } from './providers/chat/index.js';
import { createMailSender } from './providers/mail/index.js';
import { createPaymentProvider } from './providers/payments/index.js';
import { createPriceProvider, newMarketSeed } from './providers/prices/index.js';
import { getOrInitSetting } from './repositories/settings.js';
import { ChatChannel } from './services/chat-delivery.js';
import { Events } from './services/events.js';
import { IdempotencyPruning } from './services/idempotency-pruning.js';
import { localCheckoutStore } from './services/local-payments.js';
import { MemoryLoginThrottle, RedisLoginThrottle } from './services/login-throttle.js';
import { MemoryPasswordBudget, RedisPasswordBudget } from './services/password-budget.js';
import { MailChannel } from './services/mail-delivery.js';
import { PushChannel } from './services/push-delivery.js';
import { mailKeyFrom } from './services/mail-tokens.js';
import { threadHashing } from './services/hash-threads.js';
import { HASH_OPTIONS, PasswordHasher } from './services/passwords.js';
import { CachedPriceService, MemoryPriceStore, RedisPriceStore } from './services/prices.js';
import { DatabaseQuoteLog } from './services/quote-log.js';
import { ProviderStatus } from './services/provider-status.js';
import { observeQueues } from './services/queue-metrics.js';
import { SessionCache } from './services/sessions.js';
import { SharedAnswers } from './services/shared-answers.js';
import { SessionTokens } from './services/tokens.js';
import { wireServices } from './services/wiring.js';

/** What createContext takes: the app's injectable dependencies, and the logger (the HTTP server's, when there is one). */
export interface ContextDeps extends Omit<AppDeps, 'logger' | 'webDistDir'> {
  /** Silent when absent. */
  log?: FastifyBaseLogger;
}

/**
 * The VAPID key pair, generated once per deployment and stored like the
 * signing key: one setting holding both, so instances starting together all
 * keep the pair that won the insert.
 */
async function storedVapidKeys(db: AppContext['db']): Promise<{ publicKey: string; privateKey: string }> {
  const stored = JSON.parse(await getOrInitSetting(db, 'vapid_keys', JSON.stringify(webpush.generateVAPIDKeys()))) as {
    publicKey: string;
    privateKey: string;
  };
  return { publicKey: stored.publicKey, privateKey: stored.privateKey };
}

const throttleLimits = (config: Config) => ({
  freeFailures: config.rateLimits.loginFailuresBeforeDelay,
  accountFreeFailures: config.accountThrottle.failuresBeforeDelay,
  accountMaxDelayMs: config.accountThrottle.maxDelayMs,
});

/** Opens (or takes) the database and Redis, migrates, and builds every service; close() releases what it opened. */
export async function createContext(config: Config, deps: ContextDeps = {}): Promise<AppContext> {
  const log = deps.log ?? pino({ enabled: false });
  const ownsDatabase = deps.database === undefined;
  const database = deps.database ?? openDatabase(config.database);
  const ownsRedis = deps.redis === undefined && config.redisUrl !== null;
  const redis = deps.redis !== undefined ? deps.redis : config.redisUrl ? connectRedis(config.redisUrl) : null;
  const release = async () => {
    if (ownsRedis && redis) redis.disconnect();
    if (ownsDatabase) await database.close();
  };
  try {
    await database.migrate();
    const jwtSecret = config.jwtSecret ?? (await getOrInitSetting(database.db, 'jwt_secret', SessionTokens.newSecret()));
    // Stored like the signing key, so every instance on one database quotes the same simulated market.
    const marketSeed = config.marketSeed ?? (await getOrInitSetting(database.db, 'market_seed', newMarketSeed()));
    const clock = deps.clock ?? systemClock;
    const chatTransport = deps.chatTransport ?? createChatTransport(config, log);
    const metrics = new Metrics({ processMetrics: config.metricsPort !== null });
    const providerStatus = { prices: new ProviderStatus('price'), chat: new ProviderStatus('chat') };
    const mailKey = mailKeyFrom(jwtSecret);
    const vapid = config.push.vapidKeys ?? (await storedVapidKeys(database.db));
    const mailSender = createMailSender(config, log);
    const outbox = new Outbox({
      database,
      clock,
      log,
      webUrl: config.webUrl,
      onDeliveryFailure: (channel) => metrics.outboxDeliveryFailures.inc({ channel }),
      channels: [
        new ChatChannel({ db: database.db, transport: chatTransport, status: providerStatus.chat }),
        new MailChannel({ db: database.db, clock, sender: mailSender, key: mailKey, publicUrl: config.publicUrl, webUrl: config.webUrl }),
        new PushChannel({
          db: database.db,
          vapid: { ...vapid, subject: config.push.vapidSubject },
          webUrl: config.webUrl,
          extraOrigins: config.push.extraOrigins,
          timeoutMs: config.push.timeoutMs,
        }),
      ],
    });
    // Hashes on threads of their own at the lowest priority, unless a test injects its hashing.
    const ownHashing = deps.passwordHashing ? null : threadHashing(config.hashConcurrency, HASH_OPTIONS);
    const hashThreads = ownHashing?.threads ?? null;
    const passwordHashing = deps.passwordHashing ?? ownHashing!;
    const priceProvider = deps.prices ?? createPriceProvider(config, clock, marketSeed);
    const sessions = new SessionCache(clock, redis);
    const ctx: AppContext = {
      config,
      log,
      database,
      db: database.db,
      clock,
      passwords: new PasswordHasher(
        {
          concurrency: config.hashConcurrency,
          maxWaiting: config.hashQueue.maxWaiting,
          maxWaitMs: config.hashQueue.maxWaitMs,
          // A fair share is a rate limit: off with them (local automation logs in from one address).
          perClient: config.rateLimits.enabled ? config.hashQueue.perClient : Number.POSITIVE_INFINITY,
          loginReserve: config.hashQueue.loginReserve,
        },
        passwordHashing,
      ),
      tokens: new SessionTokens(jwtSecret),
      sessions,
      loginThrottle: redis ? new RedisLoginThrottle(redis, throttleLimits(config)) : new MemoryLoginThrottle(throttleLimits(config)),
      passwordBudget: redis
        ? new RedisPasswordBudget(redis, config.accountThrottle.passwordChecksPerHour)
        : new MemoryPasswordBudget(config.accountThrottle.passwordChecksPerHour),
      redis,
      events: new Events(database),
      metrics,
      sharedAnswers: new SharedAnswers(clock),
      idempotencyPruning: new IdempotencyPruning(),
      providerStatus,
      chatTransport,
      outbox,
      mail: { key: mailKey },
      push: { publicKey: vapid.publicKey },
      payments: createPaymentProvider(config, clock, localCheckoutStore(database.db)),
      prices: new CachedPriceService({
        provider: priceProvider,
        clock,
        ttlMs: config.prices.cacheTtlMs,
        store: redis ? new RedisPriceStore(redis, `price:${priceProvider.name}:`) : new MemoryPriceStore(),
        log: new DatabaseQuoteLog(database),
        onStoreError: (err) => log.warn({ err }, 'price cache unavailable'),
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
      close: async () => {
        mailSender.close();
        await metrics.stop();
        await sessions.stop();
        await hashThreads?.close();
        await release();
      },
    };
    wireServices(ctx);
    metrics.onScrape(() => observeQueues(ctx));
    return ctx;
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}
