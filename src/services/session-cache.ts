// Live sessions kept in memory on SQLite, where one process owns the database
// (DESIGN.md): every change to the sessions table is made by this process, so
// it can drop what it changed. Each authenticated request then skips a read
// of the session row. On PostgreSQL several instances share the table and a
// logout on one must hold on all at once: there is no cache there.
//
// Only live sessions are kept, each until its own expiry and for at most
// SESSION_CACHE_MAX_AGE_MS (a bound on a change made outside the service).
// A lookup that raced a revocation is not kept: every drop bumps a
// generation, and a row read before the latest drop is not remembered.

import { BoundedMap } from '../lib/bounded-map.js';

export const SESSION_CACHE_SIZE = 10_000;
export const SESSION_CACHE_MAX_AGE_MS = 60_000;

interface Entry {
  userId: number;
  expiresAt: number;
  cachedAt: number;
}

export class LiveSessionCache {
  private readonly entries: BoundedMap<string, Entry>;
  private generation = 0;

  constructor(
    size = SESSION_CACHE_SIZE,
    private readonly maxAgeMs = SESSION_CACHE_MAX_AGE_MS,
  ) {
    this.entries = new BoundedMap(size);
  }

  /** The cached session's user, when the session is cached and live at now. */
  userOf(sessionId: string, now: number): number | undefined {
    const e = this.entries.get(sessionId);
    if (!e) return undefined;
    if (now >= e.expiresAt || now - e.cachedAt >= this.maxAgeMs || now < e.cachedAt) {
      this.entries.delete(sessionId);
      return undefined;
    }
    return e.userId;
  }

  /** Taken before reading a session row; pass it to remember. */
  ticket(): number {
    return this.generation;
  }

  /** Keeps a live session read at ticket, unless something was dropped since. */
  remember(ticket: number, sessionId: string, userId: number, expiresAt: number, now: number): void {
    if (ticket !== this.generation) return;
    this.entries.set(sessionId, { userId, expiresAt, cachedAt: now });
  }

  /** Drops one session (logout). */
  forget(sessionId: string): void {
    this.generation += 1;
    this.entries.delete(sessionId);
  }

  /** Drops a user's sessions but one (password change), or all (account deletion). */
  forgetUser(userId: number, keepSessionId?: string): void {
    this.generation += 1;
    for (const [id, e] of this.entries) if (e.userId === userId && id !== keepSessionId) this.entries.delete(id);
  }
}
