// What every route and service needs, built once by buildApp and decorated on
// the Fastify instance as `app.ctx`.
import type { ProviderStatus } from './services/provider-status.js';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db, DatabaseHandle } from './db/database.js';
import type { OutboxWorker } from './jobs/outbox.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './metrics.js';
import type { ChatTransport } from './providers/chat/types.js';
import type { LocalPaymentProvider } from './providers/payments/local.js';
import type { StripePaymentProvider } from './providers/payments/stripe.js';
import type { PriceProvider, PriceService } from './providers/prices/types.js';
import type { Events } from './services/events.js';
import type { MailTransport } from './services/mail-delivery.js';
import type { LoginThrottle } from './services/login-throttle.js';
import type { PasswordHasher, PasswordHashing } from './services/passwords.js';
import type { SharedAnswers } from './services/shared-answers.js';
import type { SessionCache } from './services/sessions.js';
import type { SessionTokens } from './services/tokens.js';

export interface AppContext {
  config: Config;
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
  redis: Redis | null;
  /** What follows a change (a bet's, an account's deletion, a league's): typed events, their handlers registered in src/services/wiring.ts. */
  events: Events;
  /** Prometheus instruments every part feeds (served on METRICS_PORT when set). */
  metrics: Metrics;
  /** Answers everyone reads alike (leaderboards, public profiles), shared for at most a second. */
  sharedAnswers: SharedAnswers;
  /** Whether the outside services are failing now (GET / reports it). */
  providerStatus: { prices: ProviderStatus; chat: ProviderStatus };
  /** Where notices go: Telegram, or the embedded log transport. */
  chatTransport: ChatTransport;
  /** Delivers the notification outbox (tests call runOnce()). */
  outbox: OutboxWorker;
  /** Email (docs/email.md): its own outbox worker (tests call runOnce()), the transport, the unsubscribe key. */
  mail: { outbox: OutboxWorker; transport: MailTransport; key: Buffer };
  /** Stripe when STRIPE_SECRET_KEY is set, else the embedded local provider. */
  payments: StripePaymentProvider | LocalPaymentProvider;
  /** Current prices: cached, single-flight, last known price for marks. */
  prices: PriceService;
}

/** What tests (and main.ts) may inject instead of the defaults. */
export interface AppDeps {
  clock?: Clock;
  /** A database the caller owns (and closes); by default buildApp opens config.database. */
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
