// Route options shared by several route modules.
import type { Config } from '../config.js';

/** Route config for public reads: the per-client rate limit when limits are on. */
export function publicRateLimit(config: Config): { rateLimit?: { max: number; timeWindow: number } } {
  return config.rateLimits.enabled ? { rateLimit: { max: config.rateLimits.publicPerMinute, timeWindow: 60_000 } } : {};
}
