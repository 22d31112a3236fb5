// The secrets in email links. One-time tokens: 256 random bits, only their
// SHA-256 stored. Unsubscribe tokens: the user's id signed with a key derived
// from the service's signing secret, so an unsubscribe link needs no row and
// keeps working from any old message.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function newOneTimeToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The key for unsubscribe links, derived from the signing secret (every instance agrees). */
export function mailKeyFrom(signingSecret: string): Buffer {
  return createHmac('sha256', signingSecret).update('paper-bets email unsubscribe v1').digest();
}

function signature(key: Buffer, userId: number): Buffer {
  return createHmac('sha256', key).update(`unsubscribe:${userId}`).digest();
}

export function unsubscribeToken(key: Buffer, userId: number): string {
  return `${userId}.${signature(key, userId).toString('base64url')}`;
}

/** The user an unsubscribe token names, or null for a forged or malformed one. */
export function userOfUnsubscribeToken(key: Buffer, token: string): number | null {
  const m = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const userId = Number(m[1]);
  if (!Number.isSafeInteger(userId)) return null;
  const given = Buffer.from(m[2]!, 'base64url');
  const expected = signature(key, userId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? userId : null;
}
