// The environment the measured service runs with: the production
// configuration (NODE_ENV=production, default logging, rate limits and
// workers on), with the rate limits and the hash queue raised by
// configuration so that no request of the load is refused while every one is
// still counted by the limiter.
import { type Config, DEFAULT_POOL_SIZE, loadConfig } from '../../src/config.js';

/**
 * Limits raised far above what the load sends: the public limit is per address
 * and minute (every request of the run comes from 127.0.0.1), the write limit
 * per user, route and minute (the single hot trader sends every write), the
 * auth limit and the hash queue per address (the login scenarios).
 */
export const RAISED_LIMITS = {
  PUBLIC_RATE_LIMIT_PER_MINUTE: '10000000',
  WRITE_RATE_LIMIT_PER_MINUTE: '10000000',
  AUTH_RATE_LIMIT_PER_MINUTE: '1000000',
  LOGIN_FAILURES_BEFORE_DELAY: '1000',
  ACCOUNT_FAILURES_BEFORE_DELAY: '1000000',
  HASH_QUEUE_MAX: '1000000',
  HASH_QUEUE_WAIT_MS: '60000',
  HASH_QUEUE_PER_CLIENT: '1000000',
} as const;

/** The benchmark measures the service, not a mail server, Stripe, Telegram or Finnhub: each is chosen as simulated. */
export const SIMULATED_SERVICES = { MAIL_TRANSPORT: 'log', PAYMENTS: 'local', CHAT_TRANSPORT: 'log', PRICE_PROVIDER: 'simulated' } as const;

/** Fixed, so every run quotes the same simulated prices. */
export const BENCH_MARKET_SEED = 'bench-market-seed-not-a-secret-0123456789';

export interface ServiceEnvOptions {
  databaseUrl: string;
  jwtSecret: string;
  redisUrl?: string | null;
  /** DATABASE_POOL_SIZE, when a run measures another pool size than the default. */
  poolSize?: number | null;
}

/**
 * What the service gets besides PATH, HOME, HOST and PORT. Nothing else: no
 * RATE_LIMITS, no LOG_LEVEL, no WORKERS, so those stay at their defaults.
 */
export function serviceEnv(o: ServiceEnvOptions): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: o.databaseUrl,
    // Shared by every instance, so a session from one is valid on the others.
    JWT_SECRET: o.jwtSecret,
    MARKET_SEED: BENCH_MARKET_SEED,
    // Production runs a simulated outside service only when told to (src/config.ts).
    ...SIMULATED_SERVICES,
    ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}),
    ...(o.poolSize ? { DATABASE_POOL_SIZE: String(o.poolSize) } : {}),
    ...RAISED_LIMITS,
  };
}

/**
 * The configuration the service will build from that environment, checked:
 * production, info logging, limits on at the raised values, workers on. A
 * renamed or re-ranged variable in src/config.ts stops the run here, instead
 * of a benchmark that silently measures something else.
 */
export function checkServiceConfig(env: Record<string, string>): Config {
  const config = loadConfig(env);
  const wrong: string[] = [];
  const expect = (what: string, actual: unknown, wanted: unknown) => {
    if (actual !== wanted) wrong.push(`${what} is ${String(actual)}, expected ${String(wanted)}`);
  };
  expect('env', config.env, 'production');
  expect('logLevel', config.logLevel, 'info');
  expect('rateLimits.enabled', config.rateLimits.enabled, true);
  expect('workers.enabled', config.workers.enabled, true);
  expect('rateLimits.publicPerMinute', config.rateLimits.publicPerMinute, Number(RAISED_LIMITS.PUBLIC_RATE_LIMIT_PER_MINUTE));
  expect('rateLimits.writesPerMinute', config.rateLimits.writesPerMinute, Number(RAISED_LIMITS.WRITE_RATE_LIMIT_PER_MINUTE));
  expect('rateLimits.authPerMinute', config.rateLimits.authPerMinute, Number(RAISED_LIMITS.AUTH_RATE_LIMIT_PER_MINUTE));
  expect('hashQueue.maxWaiting', config.hashQueue.maxWaiting, Number(RAISED_LIMITS.HASH_QUEUE_MAX));
  expect('hashQueue.perClient', config.hashQueue.perClient, Number(RAISED_LIMITS.HASH_QUEUE_PER_CLIENT));
  if (wrong.length > 0) throw new Error(`the benchmark's service configuration is not what it measures: ${wrong.join('; ')}`);
  return config;
}

/**
 * The service's PostgreSQL pool size, as its configuration resolves it
 * (DATABASE_POOL_SIZE or the default): pgbench runs with that many clients,
 * so the anchor has the service's concurrency toward the database.
 */
export function servicePoolSize(config: Config): number {
  return config.database.dialect === 'postgres' ? (config.database.poolSize ?? DEFAULT_POOL_SIZE) : DEFAULT_POOL_SIZE;
}
