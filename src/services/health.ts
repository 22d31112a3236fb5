// GET /: the service's own view of its health. The database is pinged at most
// once per cache period (a load balancer polling GET / must not cost a query
// per poll), by one probe that concurrent polls share; providers are judged by
// our recent calls to them. An answer is at most the cache period plus one
// probe (pingDatabase gives up after 2 s) old.
import { pingDatabase } from '../db/database.js';
import { API_VERSION } from '../version.js';
import { LRUCache, type Perf } from 'lru-cache';
import type { HealthResponse } from '../schemas/discovery.js';
import type { AppContext } from '../context.js';
import type { ProviderStatus } from './provider-status.js';

/** The part of the context this module uses. */
export type HealthDeps = Pick<AppContext, 'clock' | 'config' | 'db' | 'metrics'>;

export function healthOf(databaseOk: boolean, failingProviders: string[]): HealthResponse {
  const reasons = [...(databaseOk ? [] : ['database unreachable']), ...failingProviders.map((p) => `${p} provider failing`)];
  return {
    status: reasons.length === 0 ? 'ok' : 'degraded',
    version: API_VERSION,
    database: databaseOk ? 'ok' : 'unreachable',
    ...(reasons.length > 0 ? { reasons } : {}),
  };
}

export interface HealthMonitor {
  get(): Promise<HealthResponse>;
}

/** `monotonic` ages the cached answer, so that a wall-clock jump does not; tests pass a fake. */
export function healthMonitor(ctx: HealthDeps, providers: ProviderStatus[], monotonic: Perf = performance): HealthMonitor {
  const maxAgeMs = ctx.config.healthCacheMs;
  const cache = new LRUCache<'health', HealthResponse>({
    max: 1,
    ttl: maxAgeMs,
    ttlResolution: 0,
    perf: monotonic,
    // A failed probe is not kept (lru-cache drops a rejected fetch); pingDatabase never rejects anyway.
    fetchMethod: async () => {
      const dbOk = await pingDatabase(ctx.db);
      ctx.metrics.databaseUp.set(dbOk ? 1 : 0);
      const now = ctx.clock.now();
      return healthOf(
        dbOk,
        providers.filter((p) => p.failing(now)).map((p) => p.name),
      );
    },
  });
  return {
    async get() {
      // To lru-cache a ttl of 0 means "never stale": a cache period of 0 forces
      // a probe on every call instead, still joining one already under way.
      const health = await cache.fetch('health', { forceRefresh: maxAgeMs === 0 });
      if (!health) throw new Error('the health probe was aborted');
      return health;
    },
  };
}
