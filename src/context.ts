// What every route and service needs, built once by createContext
// (src/create-context.ts) and decorated on the Fastify instance as `app.ctx`.
import type { ProviderStatus } from './services/provider-status.js';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db, DatabaseHandle } from './db/database.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Outbox } from './jobs/outbox.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './metrics.js';
import type { ChatTransport } from './providers/chat/types.js';
import type { PaymentProvider } from './providers/payments/types.js';
import type { PriceProvider, PriceService } from './providers/prices/types.js';
import type { Events } from './services/events.js';
import type { IdempotencyPruning } from './services/idempotency-pruning.js';
import type { LoginThrottle } from './services/login-throttle.js';
import type { PasswordBudget } from './services/password-budget.js';
import type { PasswordHasher, PasswordHashing } from './services/passwords.js';
import type { SharedAnswers } from './services/shared-answers.js';
import type { SessionCache } from './services/sessions.js';
import type { SessionTokens } from './services/tokens.js';

export interface AppContext {
  config: Config;
  /** The service's logger (the HTTP server's when there is one). */
  log: FastifyBaseLogger;
  /** The database: transactions, row locks, onCommit (src/db/database.ts). */
  database: DatabaseHandle;
  /** database.db, for reads outside a transaction. */
  db: Db;
  clock: Clock;
  passwords: PasswordHasher;
  tokens: SessionTokens;
  /** Live sessions seen lately, dropped on every instance when one ends. */
  sessions: SessionCache;
  loginThrottle: LoginThrottle;
  /** Password confirmations each account may make per hour (with rate limits on). */
  passwordBudget: PasswordBudget;
  redis: Redis | null;
  /** What follows a change (a bet's, an account's deletion, a league's): typed events, their handlers registered in src/services/wiring.ts. */
  events: Events;
  /** Prometheus instruments every part feeds (served on METRICS_PORT when set). */
  metrics: Metrics;
  /** When this instance last pruned expired idempotency keys. */
  idempotencyPruning: IdempotencyPruning;
  /** Answers everyone reads alike (leaderboards, public profiles), shared for at most a second. */
  sharedAnswers: SharedAnswers;
  /** Whether the outside services are failing now (GET / reports it). */
  providerStatus: { prices: ProviderStatus; chat: ProviderStatus };
  /** Where notices go: Telegram, or the embedded log transport. */
  chatTransport: ChatTransport;
  /** The outbox and its channels, chat, email and push (tests deliver with runOnce()). */
  outbox: Outbox;
  /** Email (docs/email.md): the key of its unsubscribe links. */
  mail: { key: Buffer };
  /** Web Push: the deployment's VAPID public key (configured, or generated once and stored like the signing key). */
  push: { publicKey: string };
  /** Stripe when STRIPE_SECRET_KEY is set, else the embedded local provider. */
  payments: PaymentProvider;
  /** Current prices: cached, single-flight, last known price for marks. */
  prices: PriceService;
  /** Releases what createContext opened: the metrics server, the session subscription, the mail connection, Redis and the database it opened. */
  close(): Promise<void>;
}

/** What tests (and main.ts) may inject instead of the defaults. */
export interface AppDeps {
  clock?: Clock;
  /** A database the caller owns (and closes); by default createContext opens config.database (and ctx.close() closes it). */
  database?: DatabaseHandle;
  redis?: Redis | null;
  /** The price provider instead of the configured one (tests inject a fake). */
  prices?: PriceProvider;
  /** Pino options or a logger; false silences it (tests). */
  logger?: boolean | Record<string, unknown>;
  /** Where the built web app lives; web/dist by default. */
  webDistDir?: string;
  /** Replaces the transport chosen from config.telegram. */
  chatTransport?: ChatTransport;
  /** The hashing behind the password queue instead of argon2id (tests inject a fake with controlled latency). */
  passwordHashing?: PasswordHashing;
}
