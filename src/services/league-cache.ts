// Live league boards, shared for at most SHARED_ANSWER_TTL_MS (by the
// service's clock) like the other answers everyone reads alike; a change of
// members or rules made through this instance drops its league's board.
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.js';
import { SHARED_ANSWER_TTL_MS } from './shared-answers.js';

type Make = () => Promise<object>;
const boardCaches = new WeakMap<AppContext, LRUCache<number, object, Make>>();

/** Live boards, one per league, for at most a second (by the service's clock), as the shared answers. */
export function boardCache(ctx: AppContext): LRUCache<number, object, Make> {
  let cache = boardCaches.get(ctx);
  if (!cache) {
    cache = new LRUCache<number, object, Make>({
      max: 1000,
      ttl: SHARED_ANSWER_TTL_MS,
      perf: ctx.clock,
      ttlResolution: 0,
      fetchMethod: (_key, _stale, { context }) => context(),
      ignoreFetchAbort: true,
    });
    boardCaches.set(ctx, cache);
  }
  return cache;
}

/** A change of members or rules made here shows at once to whoever made it. */
export function dropLeagueAnswers(ctx: AppContext, leagueId: number): void {
  boardCaches.get(ctx)?.delete(leagueId);
}
