// Registration, login, logout and the current user.
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { UserRow } from '../db/tables.js';
import { capacitiesOf, normalizeEmail, passwordProblem, usernameKey, usernameProblem } from '../domain/accounts.js';
import { AppError, badRequest, conflict, notFound, tooManyRequests, unauthorized } from '../errors.js';
import { findUserByEmail, findUserById, insertUser, replacePasswordHash, takenIdentity } from '../repositories/users.js';
import { deleteSession, findLiveSession, insertSession } from '../repositories/sessions.js';
import type { RegisterRequest, User } from '../schemas/users.js';
import { queueVerification } from './email-queue.js';
import { SessionTokens } from './tokens.js';

/** The part of the context this module uses. */
export type AccountDeps = Pick<
  AppContext,
  'clock' | 'config' | 'database' | 'db' | 'loginThrottle' | 'passwordBudget' | 'passwords' | 'sessions' | 'tokens'
>;

export function toUser(ctx: AccountDeps, row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    ...capacitiesOf(ctx.config.capacities, row),
    pay_subscription_id: row.pay_subscription_id,
  };
}

export async function register(ctx: AccountDeps, ip: string, req: RegisterRequest): Promise<void> {
  const problem = usernameProblem(req.username) ?? passwordProblem(req.password, ctx.config.commonPasswords);
  if (problem) throw badRequest(problem);
  // No account yet: the hash queue counts registrations by address.
  const hash = await ctx.passwords.hash(req.password, { ip });
  const usernameLower = usernameKey(req.username);
  const email = normalizeEmail(req.email);
  try {
    await ctx.database.transaction(async (trx) => {
      const now = ctx.clock.now();
      const id = await insertUser(trx, { username: req.username, username_lower: usernameLower, email, password_hash: hash, created_at: now });
      // The verification mail leaves through the outbox once the account is committed.
      await queueVerification(trx, id, email, now);
    });
  } catch (err) {
    // The unique constraints decide, so concurrent duplicates cannot both win;
    // the loser then reads which value the winner holds (accounts are never
    // removed, so it is still there). The answer tells whether an address has
    // an account: /register is rate limited per client address for that.
    if (!isUniqueViolation(err)) throw err;
    const taken = await takenIdentity(ctx.db, usernameLower, email);
    throw conflict(taken === 'email' ? EMAIL_TAKEN : USERNAME_TAKEN);
  }
}

/** SPEC's 409 on /register, one text per unique value (the web app matches them). */
export const USERNAME_TAKEN = 'Username already exists';
export const EMAIL_TAKEN = 'Email already registered';

export interface LoginResult {
  user: User;
  token: string;
}

const INVALID_LOGIN = 'Invalid email or password';

export async function login(ctx: AccountDeps, ip: string, email: string, password: string): Promise<LoginResult> {
  const account = normalizeEmail(email);
  const now = ctx.clock.now();
  const row = await checkPassword(ctx, { ip, account, login: true }, password, () => findUserByEmail(ctx.db, account));
  if (!row) throw unauthorized(INVALID_LOGIN);
  if (ctx.passwords.hashing.needsRehash(row.password_hash)) await rehash(ctx, row, password, { ip, account });
  const sessionId = SessionTokens.newSessionId();
  const ttl = ctx.config.sessionTtlSeconds;
  await insertSession(ctx.db, { id: sessionId, user_id: row.id, created_at: now, expires_at: now + ttl * 1000 });
  const token = await ctx.tokens.sign({ userId: row.id, sessionId }, now, ttl);
  return { user: toUser(ctx, row), token };
}

/**
 * A hash made with older settings (src/services/passwords.ts) is made again
 * with today's once its password has proved right. It waits for a place in
 * the hash queue as other work than logins does; when the queue or this
 * client's share is full the old hash stays, for the next login to replace.
 */
async function rehash(ctx: AccountDeps, row: UserRow, password: string, who: { ip: string; account: string }): Promise<void> {
  let hash: string;
  try {
    hash = await ctx.passwords.hash(password, who);
  } catch (err) {
    if (err instanceof AppError && (err.statusCode === 429 || err.statusCode === 503)) return;
    throw err;
  }
  await replacePasswordHash(ctx.db, row.id, row.password_hash, hash);
}

/** Who checks a password: the client's address, the account's email, and whether it is a login or a signed-in user confirming theirs. */
export interface PasswordCheck {
  ip: string;
  account: string;
  login: boolean;
}

/**
 * Every password check (login, and the password a signed-in user confirms
 * with): a place in the hash queue first (429 or 503 at once when the
 * address or account holds its share, or the queue is full; nothing is
 * counted then; a login may take the places kept for logins), then for a
 * confirmation the account's hourly budget (429 with Retry-After, right
 * password or wrong), then the failure throttle for ip+account (429 with
 * Retry-After), then the verification. The row when the password is right,
 * else null; an account that does not exist costs the same work.
 */
export async function checkPassword(
  ctx: Pick<AppContext, 'config' | 'clock' | 'passwords' | 'loginThrottle' | 'passwordBudget'>,
  check: PasswordCheck,
  password: string,
  find: () => Promise<UserRow | undefined>,
): Promise<UserRow | null> {
  const { ip, account } = check;
  const place = ctx.passwords.reserve(check);
  try {
    const throttled = ctx.config.rateLimits.enabled;
    if (throttled && !check.login) {
      const refill = await ctx.passwordBudget.spend(account, ctx.clock.now());
      if (refill > 0) throw tooManyRequests(Math.ceil(refill / 1000));
    }
    if (throttled) {
      // Counted as a failure from here on, until the password proves right.
      const wait = await ctx.loginThrottle.claim(ip, account, ctx.clock.now());
      if (wait > 0) throw tooManyRequests(Math.ceil(wait / 1000));
    }
    const row = await find();
    const ok = row ? await place.verify(row.password_hash, password) : await place.verifyDummy(password);
    if (!row || !ok) return null;
    if (throttled) await ctx.loginThrottle.recordSuccess(ip, account);
    return row;
  } finally {
    place.release();
  }
}

export interface Principal {
  userId: number;
  sessionId: string;
}

/**
 * The session a cookie names, or null if the token is invalid, expired or
 * revoked. A session this instance saw live lately is taken from memory
 * (src/services/sessions.ts: every ending of a session reaches it), any other
 * from its row.
 */
export async function authenticate(ctx: AccountDeps, token: string): Promise<Principal | null> {
  const now = ctx.clock.now();
  const claims = await ctx.tokens.verify(token, now);
  if (!claims) return null;
  if (ctx.sessions.userOf(claims.sessionId) === claims.userId) return claims;
  const ticket = ctx.sessions.ticket();
  const session = await findLiveSession(ctx.db, claims.sessionId, now);
  if (!session || session.user_id !== claims.userId) return null;
  ctx.sessions.remember(ticket, session.id, { userId: session.user_id, expiresAt: session.expires_at });
  return claims;
}

export async function logout(ctx: AccountDeps, token: string | undefined): Promise<void> {
  if (!token) return;
  const claims = await ctx.tokens.verify(token, ctx.clock.now());
  if (!claims) return;
  await deleteSession(ctx.db, claims.sessionId);
  await ctx.sessions.revoke({ sessionId: claims.sessionId });
}

export async function currentUser(ctx: AccountDeps, userId: number): Promise<User> {
  const row = await findUserById(ctx.db, userId);
  if (!row) throw notFound('User not found');
  return toUser(ctx, row);
}
