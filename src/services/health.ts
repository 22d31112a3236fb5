// GET /: the service's own view of its health. The database is pinged at most
// once per cache period (a load balancer polling GET / must not cost a query
// per poll); providers are judged by our recent calls to them.
import { pingDatabase } from '../db/database.js';
import { API_VERSION } from '../version.js';
import type { HealthResponse } from '../schemas/discovery.js';
import type { AppContext } from '../context.js';
import { FreshValue } from '../lib/fresh-value.js';
import type { ProviderStatus } from './provider-status.js';

export function healthOf(databaseOk: boolean, failingProviders: string[]): HealthResponse {
  const reasons = [...(databaseOk ? [] : ['database unreachable']), ...failingProviders.map((p) => `${p} provider failing`)];
  return {
    status: reasons.length === 0 ? 'ok' : 'degraded',
    version: API_VERSION,
    database: databaseOk ? 'ok' : 'unreachable',
    ...(reasons.length > 0 ? { reasons } : {}),
  };
}

export function healthMonitor(ctx: AppContext, providers: ProviderStatus[]): FreshValue<HealthResponse> {
  return new FreshValue(async () => {
    const dbOk = await pingDatabase(ctx.db);
    ctx.metrics.databaseUp.set(dbOk ? 1 : 0);
    const now = ctx.clock.now();
    return healthOf(
      dbOk,
      providers.filter((p) => p.failing(now)).map((p) => p.name),
    );
  }, ctx.config.healthCacheMs);
}
