// What every route and service needs, built once by buildApp and decorated on
// the Fastify instance as `app.ctx`.
import type { ProviderStatus } from './services/provider-status.js';
import type { AnswerCache } from './lib/answer-cache.js';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db, DatabaseHandle, Dialect } from './db/database.js';
import type { OutboxWorker } from './jobs/outbox.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './metrics.js';
import type { ChatTransport } from './providers/chat/types.js';
import type { LocalPaymentProvider } from './providers/payments/local.js';
import type { StripePaymentProvider } from './providers/payments/stripe.js';
import type { PriceProvider, PriceService } from './providers/prices/types.js';
import type { BetEvents } from './services/bet-events.js';
import type { LoginThrottle } from './services/login-throttle.js';
import type { RecentOpenBets } from './services/open-bets.js';
import type { RecordHeads } from './services/record-heads.js';
import type { PasswordHasher } from './services/passwords.js';
import type { LiveSessionCache } from './services/session-cache.js';
import type { SessionTokens } from './services/tokens.js';

export interface AppContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  database: DatabaseHandle;
  clock: Clock;
  passwords: PasswordHasher;
  tokens: SessionTokens;
  /** Live sessions in memory: SQLite only, where this process makes every change to them. */
  sessionCache: LiveSessionCache | null;
  loginThrottle: LoginThrottle;
  redis: Redis | null;
  /** Listeners run inside each bet transaction (outbox, record, statistics). */
  betEvents: BetEvents;
  /** Bets opened by this process and not yet ended: their unchanging fields, for closes. */
  openBets: RecentOpenBets;
  /** Record chain heads as the write connection sees them: SQLite only (this process makes every append). */
  recordHeads: RecordHeads | null;
  /** Prometheus instruments every part feeds (served on METRICS_PORT when set). */
  metrics: Metrics;
  /** Hot per-user read answers (history, portfolio, feed, profiles), dropped when their users change. */
  answers: AnswerCache;
  /** Whether the outside services are failing now (GET / reports it). */
  providerStatus: { prices: ProviderStatus; chat: ProviderStatus };
  /** Run inside the account-deletion transaction by parts that keep personal data. */
  accountDeletionListeners: Array<(trx: Db, userId: number) => Promise<void>>;
  /** Where notices go: Telegram, or the embedded log transport. */
  chatTransport: ChatTransport;
  /** Delivers the notification outbox (tests call runOnce()). */
  outbox: OutboxWorker;
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
}
