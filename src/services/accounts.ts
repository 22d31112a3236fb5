// Registration, login, logout and the current user.
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { UserRow } from '../db/tables.js';
import { capacitiesOf, normalizeEmail, passwordProblem, usernameKey } from '../domain/accounts.js';
import { badRequest, conflict, notFound, tooManyRequests, unauthorized } from '../errors.js';
import { findUserByEmail, findUserById, insertUser } from '../repositories/users.js';
import { deleteSession, findLiveSession, insertSession } from '../repositories/sessions.js';
import type { RegisterRequest, User } from '../schemas/users.js';
import { SessionTokens } from './tokens.js';

export function toUser(ctx: AppContext, row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    ...capacitiesOf(ctx.config.capacities, row),
    pay_subscription_id: row.pay_subscription_id,
  };
}

export async function register(ctx: AppContext, req: RegisterRequest): Promise<void> {
  const problem = passwordProblem(req.password, ctx.config.commonPasswords);
  if (problem) throw badRequest(problem);
  const hash = await ctx.passwords.hash(req.password);
  try {
    await insertUser(ctx.db, {
      username: req.username,
      username_lower: usernameKey(req.username),
      email: normalizeEmail(req.email),
      password_hash: hash,
      created_at: ctx.clock.now(),
    });
  } catch (err) {
    // The unique constraints decide, so concurrent duplicates cannot both win.
    if (isUniqueViolation(err)) throw conflict('Username or email already exists');
    throw err;
  }
}

export interface LoginResult {
  user: User;
  token: string;
}

const INVALID_LOGIN = 'Invalid email or password';

export async function login(ctx: AppContext, ip: string, email: string, password: string): Promise<LoginResult> {
  const account = normalizeEmail(email);
  const now = ctx.clock.now();
  if (ctx.config.rateLimits.enabled) {
    // Counted as a failure from here on, until the password proves right.
    const wait = await ctx.loginThrottle.claim(ip, account, now);
    if (wait > 0) throw tooManyRequests(Math.ceil(wait / 1000));
  }
  const row = await findUserByEmail(ctx.db, account);
  const ok = row ? await ctx.passwords.verify(row.password_hash, password) : await ctx.passwords.verifyDummy(password);
  if (!row || !ok) throw unauthorized(INVALID_LOGIN);
  if (ctx.config.rateLimits.enabled) await ctx.loginThrottle.recordSuccess(ip, account);
  const sessionId = SessionTokens.newSessionId();
  const ttl = ctx.config.sessionTtlSeconds;
  await insertSession(ctx.db, { id: sessionId, user_id: row.id, created_at: now, expires_at: now + ttl * 1000 });
  const token = await ctx.tokens.sign({ userId: row.id, sessionId }, now, ttl);
  return { user: toUser(ctx, row), token };
}

export interface Principal {
  userId: number;
  sessionId: string;
}

/**
 * The session a cookie names, or null if the token is invalid, expired or
 * revoked. The session row is read on every request, so a logout, a password
 * change or a deletion is refused at once on every instance.
 */
export async function authenticate(ctx: AppContext, token: string): Promise<Principal | null> {
  const now = ctx.clock.now();
  const claims = await ctx.tokens.verify(token, now);
  if (!claims) return null;
  const session = await findLiveSession(ctx.db, claims.sessionId, now);
  if (!session || session.user_id !== claims.userId) return null;
  return claims;
}

export async function logout(ctx: AppContext, token: string | undefined): Promise<void> {
  if (!token) return;
  const claims = await ctx.tokens.verify(token, ctx.clock.now());
  if (!claims) return;
  await deleteSession(ctx.db, claims.sessionId);
}

export async function currentUser(ctx: AppContext, userId: number): Promise<User> {
  const row = await findUserById(ctx.db, userId);
  if (!row) throw notFound('User not found');
  return toUser(ctx, row);
}
