// Builds the app for a test on an isolated database with a fake clock, and
// small helpers to drive it through inject.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, testConfig } from '../../src/config.js';
import type { AppContext, AppDeps } from '../../src/context.js';
import type { Dialect } from '../../src/db/database.js';
import { FakeClock } from '../../src/lib/clock.js';
import { insertSession } from '../../src/repositories/sessions.js';
import { SessionTokens } from '../../src/services/tokens.js';
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
  /** The production durability settings instead of synchronous=OFF (see openTestDatabase). */
  durable?: boolean;
}

export async function createTestApp(dialect: Dialect, opts: TestAppOptions = {}): Promise<TestApp> {
  const database = await openTestDatabase(dialect, { onQuery: opts.onQuery, migrated: true, durable: opts.durable });
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

/**
 * Registers a fresh user through the API and gives it a session; every test
 * makes its own users. The session is signed directly (sessionFor), so only
 * the registration pays for an argon2id hash; tests of logging in use
 * registerAndLogInThroughApi.
 */
export async function registerAndLogin(app: FastifyInstance, prefix = 'u'): Promise<TestUser> {
  const { username, email } = await registerThroughApi(app, prefix);
  const row = await app.ctx.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  return { id: row.id, username, email, password: PASSWORD, cookie: await sessionFor(app.ctx, row.id) };
}

/** Registers a fresh user and logs in through POST /login, as a client does. */
export async function registerAndLogInThroughApi(app: FastifyInstance, prefix = 'u'): Promise<TestUser> {
  const { username, email } = await registerThroughApi(app, prefix);
  const login = await app.inject({ method: 'POST', url: '/login', payload: { email, password: PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  return { id: login.json().id, username, email, password: PASSWORD, cookie: cookieFrom(login) };
}

async function registerThroughApi(app: FastifyInstance, prefix: string): Promise<{ username: string; email: string }> {
  const username = uniqueName(prefix);
  const email = `${username}@example.test`;
  const reg = await app.inject({ method: 'POST', url: '/register', payload: { username, email, password: PASSWORD } });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.statusCode} ${reg.body}`);
  return { username, email };
}

/** The auth_token cookie of a new session for userId, made as a login makes it but without checking a password. */
export async function sessionFor(ctx: AppContext, userId: number): Promise<string> {
  const now = ctx.clock.now();
  const sessionId = SessionTokens.newSessionId();
  const ttl = ctx.config.sessionTtlSeconds;
  await insertSession(ctx.db, { id: sessionId, user_id: userId, created_at: now, expires_at: now + ttl * 1000 });
  return `auth_token=${await ctx.tokens.sign({ userId, sessionId }, now, ttl)}`;
}
