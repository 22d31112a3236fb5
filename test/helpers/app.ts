// Builds the app for a test on an isolated database with a fake clock, and
// small helpers to drive it through inject.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, testConfig } from '../../src/config.js';
import type { AppContext, AppDeps } from '../../src/context.js';
import type { Dialect } from '../../src/db/database.js';
import { FakeClock } from '../../src/lib/clock.js';
import { FakePriceProvider } from './prices.js';
import { openTestDatabase, type TestDatabase } from './db.js';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: FakeClock;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  deps?: Omit<AppDeps, 'database' | 'clock'>;
  clock?: FakeClock;
  /** Told the SQL of every statement the app's database runs. */
  onQuery?: (sql: string) => void;
}

export async function createTestApp(dialect: Dialect, opts: TestAppOptions = {}): Promise<TestApp> {
  const database = await openTestDatabase(dialect, { onQuery: opts.onQuery });
  const clock = opts.clock ?? new FakeClock();
  const config = testConfig(opts.config);
  if (opts.deps?.prices instanceof FakePriceProvider) opts.deps.prices.followClock(clock);
  try {
    const app = await buildApp(config, { logger: false, ...opts.deps, database, clock });
    return {
      app,
      ctx: app.ctx,
      clock,
      database,
      close: async () => {
        await app.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}

export const PASSWORD = 'a perfectly fine passphrase';

export interface TestUser {
  id: number;
  username: string;
  email: string;
  password: string;
  cookie: string;
}

export function uniqueName(prefix = 'u'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export function cookieFrom(res: LightMyRequestResponse): string {
  const c = res.cookies.find((x) => x.name === 'auth_token');
  if (!c) throw new Error(`no auth_token cookie in ${res.statusCode} ${res.body}`);
  return `auth_token=${c.value}`;
}

/** Registers a fresh user and logs in; every test makes its own users. */
export async function registerAndLogin(app: FastifyInstance, prefix = 'u'): Promise<TestUser> {
  const username = uniqueName(prefix);
  const email = `${username}@example.test`;
  const reg = await app.inject({ method: 'POST', url: '/register', payload: { username, email, password: PASSWORD } });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.statusCode} ${reg.body}`);
  const login = await app.inject({ method: 'POST', url: '/login', payload: { email, password: PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  return { id: login.json().id, username, email, password: PASSWORD, cookie: cookieFrom(login) };
}
