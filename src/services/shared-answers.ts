// Answers everyone reads alike (the leaderboards, raw and ranked, public
// profiles and live league boards): made once and shared by every caller for
// at most SHARED_ANSWER_TTL_MS. That lifetime is the staleness bound, and it
// holds on every instance: a change made through another instance shows here
// within it. A change made through this instance also drops the answers it
// alters once it commits (the handlers in src/services/wiring.ts), so whoever
// made it reads it back at once.
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';

export const SHARED_ANSWER_TTL_MS = 1_000;
/**
 * An instrument's consensus (docs/consensus.md) is kept longer: it moves only
 * as holders open and close, is read on every instrument page, and nothing
 * drops it early, so this is its staleness bound on every instance.
 */
export const CONSENSUS_TTL_MS = 30_000;

/** Distinct answers kept per kind; the least recently used goes first. */
const MAX_ANSWERS = 5_000;
/** Live league boards kept, one per league. */
const MAX_LEAGUE_BOARDS = 1_000;

type Make = () => Promise<object>;

function answerCache(clock: Clock, max: number, onDispose?: (key: string) => void, ttl = SHARED_ANSWER_TTL_MS): LRUCache<string, object, Make> {
  return new LRUCache<string, object, Make>({
    max,
    ttl,
    // Ages by the service's clock (tests move a fake one), read afresh at every look-up.
    perf: clock,
    ttlResolution: 0,
    // Callers asking while an answer is being made wait for that one (one query for them all).
    fetchMethod: (_key, _stale, { context }) => context(),
    // An answer dropped while it was being made still reaches the callers waiting for it, but is not kept.
    ignoreFetchAbort: true,
    // A value replaced by its own fresh answer ('set') stays known under its key.
    ...(onDispose ? { dispose: (_value: object, key: string, reason: string) => reason !== 'set' && onDispose(key) } : {}),
  });
}

export class SharedAnswers {
  private readonly leaderboards: LRUCache<string, object, Make>;
  private readonly profiles: LRUCache<string, object, Make>;
  private readonly leagueBoards: LRUCache<string, object, Make>;
  private readonly consensuses: LRUCache<string, object, Make>;
  /** Each user's profile answers (one per page), so a change drops them all. */
  private readonly profileKeys = new Map<number, Set<string>>();

  constructor(clock: Clock) {
    this.leaderboards = answerCache(clock, MAX_ANSWERS);
    this.profiles = answerCache(clock, MAX_ANSWERS, (key) => this.forgetProfileKey(key));
    this.leagueBoards = answerCache(clock, MAX_LEAGUE_BOARDS);
    this.consensuses = answerCache(clock, MAX_ANSWERS, undefined, CONSENSUS_TTL_MS);
  }

  /** A leaderboard (raw or ranked, any window); the key names everything the answer depends on. */
  leaderboard<T extends object>(key: string, make: () => Promise<T>): Promise<T> {
    return fetchFrom(this.leaderboards, key, make);
  }

  /** A user's public profile page; the key names the page. */
  profile<T extends object>(userId: number, page: string, make: () => Promise<T>): Promise<T> {
    const key = `${userId}|${page}`;
    const keys = this.profileKeys.get(userId) ?? new Set<string>();
    this.profileKeys.set(userId, keys);
    keys.add(key);
    return fetchFrom(this.profiles, key, make).catch((err: unknown) => {
      // A failed answer (404) is not kept, and neither is its key.
      if (!this.profiles.has(key)) this.forgetProfileKey(key);
      throw err;
    });
  }

  /** A league's live board (a settled league's final board is read from its document instead). */
  leagueBoard<T extends object>(leagueId: number, make: () => Promise<T>): Promise<T> {
    return fetchFrom(this.leagueBoards, String(leagueId), make);
  }

  /** An instrument's consensus (key: its symbol), or every instrument's for sorting the directory; kept CONSENSUS_TTL_MS. */
  consensus<T extends object>(key: string, make: () => Promise<T>): Promise<T> {
    return fetchFrom(this.consensuses, key, make);
  }

  /** A change of a league's members or rules: its board is made anew. */
  dropLeagueBoard(leagueId: number): void {
    this.leagueBoards.delete(String(leagueId));
  }

  /** A closed or settled bet moves scores: every leaderboard, raw and ranked, is made anew. */
  dropLeaderboards(): void {
    this.leaderboards.clear();
  }

  dropProfile(userId: number): void {
    for (const key of this.profileKeys.get(userId) ?? []) this.profiles.delete(key);
  }

  /** A deleted account's name changes everywhere it shows. */
  clear(): void {
    this.leaderboards.clear();
    this.profiles.clear();
  }

  private forgetProfileKey(key: string): void {
    const userId = Number(key.slice(0, key.indexOf('|')));
    const keys = this.profileKeys.get(userId);
    keys?.delete(key);
    if (keys?.size === 0) this.profileKeys.delete(userId);
  }
}

async function fetchFrom<T extends object>(cache: LRUCache<string, object, Make>, key: string, make: () => Promise<T>): Promise<T> {
  const answer = await cache.fetch(key, { context: make });
  // Only an aborted fetch answers undefined, and fetches here are never aborted for their callers.
  if (answer === undefined) return make();
  return answer as T;
}
