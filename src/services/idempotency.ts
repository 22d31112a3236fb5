// Idempotency-Key on writes (DESIGN): a key is claimed, in its own committed
// transaction, before the write runs; the write's answer is stored with it
// and replayed to a repeat; a failure frees it. Keyed by user and key, so one
// user's keys never meet another's.
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { deleteKeysBefore, findKey, finishClaim, insertClaim, type KeyOf, releaseClaim, retakeClaim } from '../repositories/idempotency.js';

/** The part of the context this module uses. */
export type IdempotencyDeps = Pick<AppContext, 'clock' | 'database' | 'idempotencyPruning'>;

export type { KeyOf } from '../repositories/idempotency.js';

/** How long a key answers as the first time did. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** Expired keys one claim deletes at most (about: those of the boundary instant go too). */
export const PRUNE_SLICE = 1_000;
/**
 * A claim still in flight after this long belongs to a request that died
 * (a crash, a lost connection to the database): the key is free again. Far
 * above any write's running time, which the server's time-outs bound.
 */
export const IDEMPOTENCY_LEASE_MS = 120_000;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim = { kind: 'claimed'; claimedAt: number } | ({ kind: 'replay' } & StoredAnswer) | { kind: 'in-flight' } | { kind: 'mismatch' };

/** JSON with object keys sorted: the same body in another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests the same: method, path (with its query) and body. */
export function fingerprintOf(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${url}\n${body === undefined ? '' : canonical(body)}`)
    .digest('hex');
}

/** Claims the key for this request, or says what a repeat gets instead. */
export async function claimKey(ctx: IdempotencyDeps, k: KeyOf, fingerprint: string): Promise<Claim> {
  const now = ctx.clock.now();
  const pruneDue = ctx.idempotencyPruning.due(now);
  return ctx.database.transaction(async (trx): Promise<Claim> => {
    // A slice at a time, in this request's transaction: a backlog is worked off by the claims that follow.
    if (pruneDue && (await deleteKeysBefore(trx, now - IDEMPOTENCY_TTL_MS, PRUNE_SLICE)) >= PRUNE_SLICE) ctx.idempotencyPruning.again();
    // Two tries: a row seen free may be retaken by another request first.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await insertClaim(trx, k, fingerprint, now)) return { kind: 'claimed', claimedAt: now };
      const row = await findKey(trx, k);
      if (!row) continue;
      const expired = row.created_at <= now - IDEMPOTENCY_TTL_MS;
      const abandoned = row.status === null && row.created_at <= now - IDEMPOTENCY_LEASE_MS;
      if (expired || abandoned) {
        if (await retakeClaim(trx, k, row.created_at, fingerprint, now)) return { kind: 'claimed', claimedAt: now };
        continue;
      }
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status === null || row.answer === null) return { kind: 'in-flight' };
      const stored = JSON.parse(row.answer) as { headers: Record<string, string>; body: string };
      return { kind: 'replay', status: row.status, headers: stored.headers, body: stored.body };
    }
    // Taken over by others twice in a row: as good as in flight.
    return { kind: 'in-flight' };
  });
}

/** Stores the write's answer with the key claimed at claimedAt. */
export async function finishKey(ctx: IdempotencyDeps, k: KeyOf, claimedAt: number, answer: StoredAnswer): Promise<void> {
  const stored = JSON.stringify({ headers: answer.headers, body: answer.body });
  await ctx.database.transaction((trx) => finishClaim(trx, k, claimedAt, answer.status, stored));
}

/** Frees the key claimed at claimedAt: the write failed or gave no answer worth replaying. */
export async function releaseKey(ctx: IdempotencyDeps, k: KeyOf, claimedAt: number): Promise<void> {
  await ctx.database.transaction((trx) => releaseClaim(trx, k, claimedAt));
}
