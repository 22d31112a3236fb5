// Configuration is read from the environment exactly once, here, validated and
// turned into a typed object that is injected everywhere else. The data files
// the service ships with (src/data/) are read here too, once per process, so
// the domain rules that use them stay free of I/O.
import fs from 'node:fs';
import path from 'node:path';
import { commonPasswordSet } from './domain/accounts.js';
import { type HolidayTable, MarketCalendar } from './domain/market-calendar.js';
import { FEED_FANOUT_MAX_FOLLOWERS } from './domain/feed.js';
import { parseLeagueExtras, parsePlanExtras } from './domain/payments.js';
import { defaultVapidSubject, parseExtraOrigins } from './domain/push.js';
import { DEFAULT_IPV6_PREFIX_LENGTH } from './lib/client-address.js';

export type DatabaseConfig =
  | { dialect: 'sqlite'; path: string } // ':memory:' or a file path
  // poolSize: connections each instance keeps (DATABASE_POOL_SIZE); docs/performance.md says how it was chosen.
  | { dialect: 'postgres'; url: string; poolSize?: number };

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: string;
  webUrl: string;
  /** Origins treated as the service's own for the cross-site request rule. */
  trustedOrigins: string[];
  database: DatabaseConfig;
  jwtSecret: string | null;
  /** The simulated market's secret seed (MARKET_SEED); null: generated once and stored in the database. */
  marketSeed: string | null;
  sessionTtlSeconds: number;
  logLevel: string;
  trustProxy: boolean | number | string | string[];
  /** IPV6_PREFIX_LENGTH: an IPv6 client counts against per-address limits as its network of this many bits (src/lib/client-address.ts). */
  ipv6PrefixLength: number;
  redisUrl: string | null;
  capacities: { baseBets: number; baseFollows: number };
  /** Leagues not yet ended a user may be in (LEAGUE_LIMIT); a plan adds its extra_leagues (src/data/plans.json). */
  leagueLimit: number;
  /** CONSENSUS_MIN_HOLDERS: holders with a positive ranked skill an instrument needs before its weighted consensus shows (docs/consensus.md). */
  consensusMinHolders: number;
  /** Counted reports that withhold a thesis from everyone but its owner (THESIS_REPORTS_TO_HIDE, docs/theses.md). */
  thesisReportsToHide: number;
  /** FEED_FANOUT_MAX_FOLLOWERS: followers at which a trader's bets stop being copied into timelines and are read at read time (docs/performance.md). */
  feedFanOutMaxFollowers: number;
  /** Leagues each plan's price id adds (plans.json's extra_leagues; ours, not in SPEC's plan shape). */
  leagueExtras: ReadonlyMap<string, number>;
  /** Live price alerts a user may have (BASE_ALERT_CAPACITY); a plan adds its extra_alerts (src/data/plans.json). */
  alertCapacity: number;
  /** Alerts each plan's price id adds (plans.json's extra_alerts; ours, as extra_leagues). */
  alertExtras: ReadonlyMap<string, number>;
  rateLimits: {
    enabled: boolean;
    /** Requests per IP per minute on /login and /register. */
    authPerMinute: number;
    /** Failed logins per IP+account before delays start growing. */
    loginFailuresBeforeDelay: number;
    /** Requests per IP per minute on public read endpoints. */
    publicPerMinute: number;
    /** Requests per signed-in user per minute on each authenticated write route. */
    writesPerMinute: number;
    /** Requests that send mail (reset, change of address, resend) per client address per hour. */
    mailPerClientPerHour: number;
  };
  bodyLimitBytes: number;
  /** How many argon2 hashes may run at once (each on a thread of its own, src/services/hash-threads.ts). */
  hashConcurrency: number;
  /** Per-account ceilings on password checks (with rate limits on): failures, beside rateLimits' per IP+account one, and confirmations per hour. */
  accountThrottle: {
    /** Failures on one account, from any address within an hour, before every address waits. */
    failuresBeforeDelay: number;
    /** The longest wait it imposes. */
    maxDelayMs: number;
    /** Password confirmations (password change, deletion, change of address) per account per hour, right or wrong. */
    passwordChecksPerHour: number;
  };
  /** The queue in front of the hashes (src/services/passwords.ts). */
  hashQueue: {
    /** Hashes that may wait beyond those running; more get 503 at once. */
    maxWaiting: number;
    /** The longest one waits before it gets 503. */
    maxWaitMs: number;
    /** Places one address, or one account, may hold (with rate limits on); more get 429 at once. */
    perClient: number;
    /** Places (running or waiting) only logins may take. */
    loginReserve: number;
  };
  prices: {
    provider: 'simulated' | 'finnhub';
    finnhubApiKey: string | null;
    finnhubApiUrl: string;
    cacheTtlMs: number;
    /** Finnhub quotes the trigger engine may ask for a minute, for instruments with live exit rules (docs/exits.md); 30 when absent. */
    triggerQuotesPerMinute?: number;
    timeoutMs: number;
  };
  stripe: { secretKey: string | null; webhookSecret: string | null; apiUrl: string | null };
  telegram: {
    botToken: string | null;
    botUsername: string | null;
    webhookSecret: string | null;
    apiUrl: string | null;
  };
  /** Email (SMTP_URL, MAIL_FROM; docs/email.md): null smtpUrl means the log transport. */
  mail: {
    smtpUrl: string | null;
    /** The sender, `Name <address>` or an address. */
    from: string;
    /** Mails per recipient address (or account, or token) per hour on the forgot, reset, resend and change-of-address operations, with rate limits on. */
    perAddressPerHour: number;
  };
  /** Web Push (docs/push.md). */
  push: {
    /** VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (base64url); null: a pair generated once and stored in the database. */
    vapidKeys: { publicKey: string; privateKey: string } | null;
    /** VAPID_SUBJECT: a mailto: or https: URL the push services may contact. */
    vapidSubject: string;
    /** PUSH_EXTRA_ORIGINS: origins accepted as push services beside the browsers' (tests' local push service). */
    extraOrigins: string[];
    /** How long one delivery to a push service may take. */
    timeoutMs: number;
  };
  workers: {
    enabled: boolean;
    /** How often each instance looks for bets whose settlement time has passed. */
    settlementIntervalMs: number;
  };
  metricsPort: number | null;
  /**
   * Where the log mail transport keeps each message in full, links included,
   * so it can be read locally: beside the SQLite database (./data/ without
   * one), outside production and tests only (the log itself says which mail
   * went to whom, never a usable token).
   */
  mailbox: string | null;
  /** How long GET / reuses its database check. */
  healthCacheMs: number;
  /** HTTP server limits against slow and oversized clients (tests shorten them). */
  server: {
    /** Whole request headers must arrive within this time (slow-loris). */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    /** A socket idle this long is closed. */
    connectionTimeoutMs: number;
    keepAliveTimeoutMs: number;
    /** How often Node checks the two timeouts above. */
    timeoutCheckIntervalMs: number;
    /** Larger request headers get 431. */
    maxHeaderBytes: number;
    maxRequestsPerSocket: number;
  };
  /** Passwords refused as too common (src/data/common-passwords.txt). */
  commonPasswords: ReadonlySet<string>;
  /** NYSE days and hours from the holiday table (src/data/nyse-holidays.json). */
  marketCalendar: MarketCalendar;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === null) return def;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function url(name: string, raw: string): URL {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return u;
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
}

export function parseDatabaseUrl(raw: string): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length);
    if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a path, e.g. sqlite:./data/bets.db or sqlite::memory:');
    return { dialect: 'sqlite', path };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) return { dialect: 'postgres', url: raw };
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${raw.replace(/\/\/[^@]*@/, '//***@')}"`);
}

/** PostgreSQL connections per instance unless DATABASE_POOL_SIZE says otherwise (chosen by measurement: docs/performance.md). */
export const DEFAULT_POOL_SIZE = 10;

function withPoolSize(database: DatabaseConfig, poolSize: number): DatabaseConfig {
  return database.dialect === 'postgres' ? { ...database, poolSize } : database;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Loopback origins are one site: localhost, 127.0.0.1 and [::1] on one port all count. */
export function originsOf(urls: URL[]): string[] {
  const out = new Set<string>();
  for (const u of urls) {
    out.add(u.origin);
    if (LOOPBACK.has(u.hostname)) {
      for (const h of LOOPBACK) out.add(`${u.protocol}//${h}${u.port ? `:${u.port}` : ''}`);
    }
  }
  return [...out];
}

function parseTrustProxy(raw: string | null): Config['trustProxy'] {
  if (raw === null) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

type ShippedData = Pick<Config, 'commonPasswords' | 'marketCalendar' | 'leagueExtras' | 'alertExtras'>;
let shipped: ShippedData | undefined;

/** The data files shipped with the source, read on first use and kept: tests build many configs. */
export function shippedData(): ShippedData {
  const read = (file: string) => fs.readFileSync(new URL(`./data/${file}`, import.meta.url), 'utf8');
  if (!shipped) {
    const plans = JSON.parse(read('plans.json')) as { extra_leagues?: unknown; extra_alerts?: unknown };
    shipped = {
      commonPasswords: commonPasswordSet(read('common-passwords.txt')),
      marketCalendar: new MarketCalendar(JSON.parse(read('nyse-holidays.json')) as HolidayTable),
      leagueExtras: parseLeagueExtras(plans.extra_leagues),
      alertExtras: parsePlanExtras(plans.extra_alerts, 'extra_alerts'),
    };
  }
  return shipped;
}

/**
 * The outside services with a simulated stand-in that must not run unnoticed
 * (a reset link in the log is a live credential, a local checkout a free
 * plan). Each is implied by its credentials or chosen by name; in production
 * a simulated one must be chosen by name (DESIGN: configuration).
 */
const OUTSIDE_SERVICES = [
  {
    variable: 'MAIL_TRANSPORT',
    real: 'smtp',
    simulated: 'log',
    credentials: ['SMTP_URL'],
    hint: 'set SMTP_URL, or MAIL_TRANSPORT=log: no mail is delivered, the log says only which mail went to whom',
  },
  {
    variable: 'PAYMENTS',
    real: 'stripe',
    simulated: 'local',
    credentials: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
    hint: 'set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or PAYMENTS=local: anyone can confirm a checkout without paying',
  },
  {
    variable: 'CHAT_TRANSPORT',
    real: 'telegram',
    simulated: 'log',
    credentials: ['TELEGRAM_BOT_TOKEN'],
    hint: 'set TELEGRAM_BOT_TOKEN, or CHAT_TRANSPORT=log: notices are only listed in the app',
  },
] as const;

/** A stated choice must agree with the credentials; in production each simulated one must be stated. */
function checkOutsideServices(env: Env, mode: Config['env']): void {
  const missing: string[] = [];
  for (const s of OUTSIDE_SERVICES) {
    const chosen = str(env, s.variable);
    const credentialed = str(env, s.credentials[0]) !== null;
    if (chosen !== null && chosen !== s.real && chosen !== s.simulated) {
      throw new ConfigError(`${s.variable} must be "${s.real}" or "${s.simulated}", got "${chosen}"`);
    }
    if (chosen === s.real && !credentialed) throw new ConfigError(`${s.variable}=${s.real} needs ${s.credentials.join(' and ')}`);
    if (chosen === s.simulated && credentialed) {
      throw new ConfigError(`${s.variable}=${s.simulated} but ${s.credentials[0]} is set: unset one of them`);
    }
    if (mode === 'production' && chosen === null && !credentialed) missing.push(`${s.variable} (${s.hint})`);
  }
  if (mode === 'production' && str(env, 'PRICE_PROVIDER') === null) {
    missing.push('PRICE_PROVIDER (PRICE_PROVIDER=finnhub with FINNHUB_API_KEY, or PRICE_PROVIDER=simulated: prices of a simulated market)');
  }
  if (missing.length > 0) {
    throw new ConfigError(`NODE_ENV=production runs an outside service simulated only when chosen by name; missing: ${missing.join('; ')}`);
  }
}

function pushConfig(env: Env, mode: Config['env'], publicUrl: string, mailFrom: string): Config['push'] {
  const publicKey = str(env, 'VAPID_PUBLIC_KEY');
  const privateKey = str(env, 'VAPID_PRIVATE_KEY');
  if ((publicKey === null) !== (privateKey === null)) throw new ConfigError('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set together or not at all');
  if (publicKey !== null && privateKey !== null) {
    // The shapes web-push checks: an uncompressed P-256 point (65 bytes) and a 32-byte scalar, base64url.
    const bytes = (s: string) => (/^[A-Za-z0-9_-]+$/.test(s) ? Buffer.from(s, 'base64url').length : -1);
    if (bytes(publicKey) !== 65)
      throw new ConfigError('VAPID_PUBLIC_KEY must be a base64url P-256 public key (65 bytes); npx web-push generate-vapid-keys');
    if (bytes(privateKey) !== 32) throw new ConfigError('VAPID_PRIVATE_KEY must be a base64url P-256 private key (32 bytes)');
  }
  const subject = str(env, 'VAPID_SUBJECT') ?? defaultVapidSubject(publicUrl, mailFrom);
  if (!/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/.test(subject)) throw new ConfigError('VAPID_SUBJECT must be a mailto: address or an https: URL');
  let extraOrigins: string[];
  try {
    extraOrigins = parseExtraOrigins(str(env, 'PUSH_EXTRA_ORIGINS') ?? '');
  } catch (err) {
    throw new ConfigError(`PUSH_EXTRA_ORIGINS must be a comma-separated list of origins (${(err as Error).message})`);
  }
  if (mode === 'production' && extraOrigins.some((o) => !o.startsWith('https://'))) {
    throw new ConfigError('PUSH_EXTRA_ORIGINS must be https origins when NODE_ENV=production');
  }
  return {
    vapidKeys: publicKey !== null && privateKey !== null ? { publicKey, privateKey } : null,
    vapidSubject: subject,
    extraOrigins,
    // Under half the outbox's 60 s lease, so a slow push service never outlives a claim (src/jobs/outbox.ts).
    timeoutMs: int(env, 'PUSH_TIMEOUT_MS', 10_000, 100, 25_000),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = str(env, 'NODE_ENV');
  const mode: Config['env'] = nodeEnv === 'production' ? 'production' : nodeEnv === 'test' ? 'test' : 'development';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const publicUrl = url('PUBLIC_URL', str(env, 'PUBLIC_URL') ?? `http://localhost:${port}`);
  const publicBase = publicUrl.href.replace(/\/$/, '');
  const webUrl = url('WEB_URL', str(env, 'WEB_URL') ?? `${publicBase}/app/`);

  const jwtSecret = str(env, 'JWT_SECRET');
  if (jwtSecret !== null && jwtSecret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  if (mode === 'production' && jwtSecret === null) {
    throw new ConfigError('JWT_SECRET must be set when NODE_ENV=production');
  }
  checkOutsideServices(env, mode);

  // 32 characters: 128 bits as hex digits, the least that cannot be searched.
  const marketSeed = str(env, 'MARKET_SEED');
  if (marketSeed !== null && marketSeed.length < 32) {
    throw new ConfigError('MARKET_SEED must be at least 32 characters (e.g. 32 random hex digits: openssl rand -hex 16)');
  }

  const provider = str(env, 'PRICE_PROVIDER') ?? 'simulated';
  if (provider !== 'simulated' && provider !== 'finnhub') {
    throw new ConfigError(`PRICE_PROVIDER must be "simulated" or "finnhub", got "${provider}"`);
  }
  const finnhubApiKey = str(env, 'FINNHUB_API_KEY');
  if (provider === 'finnhub' && finnhubApiKey === null) throw new ConfigError('PRICE_PROVIDER=finnhub needs FINNHUB_API_KEY');

  const rateLimits = str(env, 'RATE_LIMITS') ?? 'on';
  if (rateLimits !== 'on' && rateLimits !== 'off') throw new ConfigError(`RATE_LIMITS must be "on" or "off", got "${rateLimits}"`);

  const stripeKey = str(env, 'STRIPE_SECRET_KEY');
  const stripeWebhookSecret = str(env, 'STRIPE_WEBHOOK_SECRET');
  if (stripeKey !== null && stripeWebhookSecret === null) {
    throw new ConfigError('STRIPE_SECRET_KEY is set but STRIPE_WEBHOOK_SECRET is not: confirmations could not be verified');
  }
  const stripeApiUrl = str(env, 'STRIPE_API_URL');
  const smtpUrl = str(env, 'SMTP_URL');
  if (smtpUrl !== null && !URL.canParse(smtpUrl)) throw new ConfigError('SMTP_URL must be smtp://user:pass@host:port or smtps://…');
  if (smtpUrl !== null && !['smtp:', 'smtps:'].includes(new URL(smtpUrl).protocol)) {
    throw new ConfigError('SMTP_URL must be smtp://user:pass@host:port or smtps://…');
  }
  const mailFrom = str(env, 'MAIL_FROM') ?? `Paper Bets <no-reply@${publicUrl.hostname}>`;
  if (!/^[^<>@\s]+@[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+>$/.test(mailFrom)) {
    throw new ConfigError('MAIL_FROM must be an address or `Name <address>`');
  }
  const push = pushConfig(env, mode, publicBase, mailFrom);
  const metricsPort = str(env, 'METRICS_PORT');
  const hashConcurrency = int(env, 'HASH_CONCURRENCY', 2, 1, 64);
  const hashQueueMax = int(env, 'HASH_QUEUE_MAX', 16, 0, 1_000_000);
  // Other work must keep at least one place of the queue.
  const hashPlaces = hashConcurrency + hashQueueMax;
  const database = withPoolSize(
    parseDatabaseUrl(str(env, 'DATABASE_URL') ?? 'sqlite:./data/bets.db'),
    int(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 500),
  );
  const mailboxDir = database.dialect === 'sqlite' && database.path !== ':memory:' ? path.dirname(database.path) : 'data';

  return {
    env: mode,
    host,
    port,
    publicUrl: publicBase,
    webUrl: webUrl.href.endsWith('/') ? webUrl.href : `${webUrl.href}/`,
    trustedOrigins: originsOf([publicUrl, webUrl]),
    database,
    jwtSecret,
    marketSeed,
    sessionTtlSeconds: 7 * 24 * 3600,
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    trustProxy: parseTrustProxy(str(env, 'TRUST_PROXY')),
    ipv6PrefixLength: int(env, 'IPV6_PREFIX_LENGTH', DEFAULT_IPV6_PREFIX_LENGTH, 16, 128),
    redisUrl: str(env, 'REDIS_URL'),
    capacities: {
      baseBets: int(env, 'BASE_BET_CAPACITY', 10, 0, 100000),
      baseFollows: int(env, 'BASE_FOLLOW_CAPACITY', 20, 0, 100000),
    },
    leagueLimit: int(env, 'LEAGUE_LIMIT', 5, 0, 10_000),
    consensusMinHolders: int(env, 'CONSENSUS_MIN_HOLDERS', 3, 1, 10_000),
    alertCapacity: int(env, 'BASE_ALERT_CAPACITY', 20, 0, 100_000),
    thesisReportsToHide: int(env, 'THESIS_REPORTS_TO_HIDE', 3, 1, 1_000),
    feedFanOutMaxFollowers: int(env, 'FEED_FANOUT_MAX_FOLLOWERS', FEED_FANOUT_MAX_FOLLOWERS, 2, 1_000_000),
    rateLimits: {
      enabled: rateLimits === 'on',
      authPerMinute: int(env, 'AUTH_RATE_LIMIT_PER_MINUTE', 20, 1, 1_000_000),
      loginFailuresBeforeDelay: int(env, 'LOGIN_FAILURES_BEFORE_DELAY', 5, 1, 1000),
      publicPerMinute: int(env, 'PUBLIC_RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000),
      writesPerMinute: int(env, 'WRITE_RATE_LIMIT_PER_MINUTE', 120, 1, 10_000_000),
      mailPerClientPerHour: int(env, 'MAIL_CLIENT_RATE_LIMIT_PER_HOUR', 20, 1, 1_000_000),
    },
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    hashConcurrency,
    accountThrottle: {
      failuresBeforeDelay: int(env, 'ACCOUNT_FAILURES_BEFORE_DELAY', 20, 1, 1_000_000),
      maxDelayMs: int(env, 'ACCOUNT_MAX_DELAY_SECONDS', 60, 1, 3600) * 1000,
      passwordChecksPerHour: int(env, 'ACCOUNT_PASSWORD_CHECKS_PER_HOUR', 10, 1, 1_000_000),
    },
    hashQueue: {
      maxWaiting: hashQueueMax,
      maxWaitMs: int(env, 'HASH_QUEUE_WAIT_MS', 1000, 1, 60_000),
      perClient: int(env, 'HASH_QUEUE_PER_CLIENT', 4, 1, 1_000_000),
      loginReserve: int(env, 'HASH_QUEUE_LOGIN_RESERVE', Math.min(4, hashPlaces - 1), 0, hashPlaces - 1),
    },
    prices: {
      provider,
      finnhubApiKey,
      finnhubApiUrl: (str(env, 'FINNHUB_API_URL') ?? 'https://finnhub.io/api/v1').replace(/\/$/, ''),
      cacheTtlMs: int(env, 'PRICE_CACHE_MS', 5000, 0, 3_600_000),
      // Half of Finnhub's free 60 calls a minute: the rest is left to the users' own requests.
      triggerQuotesPerMinute: int(env, 'PRICE_TRIGGER_QUOTES_PER_MINUTE', 30, 1, 100_000),
      timeoutMs: int(env, 'PRICE_TIMEOUT_MS', 3000, 100, 60_000),
    },
    stripe: {
      secretKey: stripeKey,
      webhookSecret: stripeWebhookSecret,
      apiUrl: stripeApiUrl === null ? null : url('STRIPE_API_URL', stripeApiUrl).href,
    },
    telegram: {
      botToken: str(env, 'TELEGRAM_BOT_TOKEN'),
      botUsername: str(env, 'TELEGRAM_BOT_USERNAME'),
      webhookSecret: str(env, 'TELEGRAM_WEBHOOK_SECRET'),
      apiUrl: str(env, 'TELEGRAM_API_URL'),
    },
    mail: {
      smtpUrl,
      from: mailFrom,
      perAddressPerHour: int(env, 'MAIL_RATE_LIMIT_PER_HOUR', 5, 1, 1_000_000),
    },
    push,
    workers: {
      enabled: (str(env, 'WORKERS') ?? 'on') !== 'off',
      settlementIntervalMs: int(env, 'SETTLEMENT_INTERVAL_SECONDS', 60, 1, 3600) * 1000,
    },
    metricsPort: metricsPort === null ? null : int(env, 'METRICS_PORT', 0, 1, 65535),
    mailbox: mode === 'development' ? path.join(mailboxDir, 'mailbox.mbox') : null,
    healthCacheMs: int(env, 'HEALTH_CACHE_MS', 1000, 0, 60_000),
    server: {
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      connectionTimeoutMs: 60_000,
      keepAliveTimeoutMs: 10_000,
      timeoutCheckIntervalMs: 1_000,
      maxHeaderBytes: 16 * 1024,
      // Unlimited (0): Node answers 503 to a request sent past the limit on a
      // kept-alive socket, which clients that pipeline or ignore Connection:
      // close (load generators, some proxies) see as failures. The idle and
      // header time-outs bound what one connection can hold.
      maxRequestsPerSocket: 0,
    },
    ...shippedData(),
  };
}

/** A config for tests and tools: defaults plus overrides, never the process environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: 'sqlite::memory:',
    RATE_LIMITS: 'off',
    WORKERS: 'off',
    // Fixed, so simulated prices are the same on every run.
    MARKET_SEED: 'test-market-seed-not-a-secret-0123456789',
    // Tests register users many at a time on a loaded machine: the hash queue's
    // bound and wait are tested where they are set (test/integration/password-checks.test.ts).
    HASH_QUEUE_MAX: '10000',
    HASH_QUEUE_WAIT_MS: '60000',
  });
  return { ...base, ...overrides };
}
