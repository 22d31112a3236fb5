// The one API client: openapi-fetch typed by the generated schema, same origin,
// cookies included. Every call goes through `call`, which turns a non-2xx
// answer into an ApiError carrying the status and SPEC's error body.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type User = Schemas['User'];
export type PublicUser = Schemas['PublicUser'];
export type PortfolioBet = Schemas['PortfolioBet'];
export type ClosedBet = Schemas['ClosedBet'];
export type FeedItem = Schemas['FeedItem'];
export type LeaderboardUser = Schemas['LeaderboardUser'];
export type Plan = Schemas['StripePlan'];
export type BetDetail = Schemas['BetDetail'];
export type Notification = Schemas['Notification'];
export type Direction = PortfolioBet['direction'];

export const api = createClient<paths>({ baseUrl: '', credentials: 'include' });

export interface ErrorBody {
  error: string;
  message?: string;
  limit?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | null,
  ) {
    super(body?.message ?? body?.error ?? (status === 0 ? 'The service cannot be reached' : `Request failed (${status})`));
    this.name = 'ApiError';
  }

  get isLimit(): boolean {
    return this.status === 403 && this.body?.error === 'LIMIT_REACHED';
  }
}

function asErrorBody(v: unknown): ErrorBody | null {
  if (v && typeof v === 'object' && typeof (v as ErrorBody).error === 'string') return v as ErrorBody;
  return null;
}

export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: Awaited<typeof request>;
  try {
    result = await request;
  } catch {
    throw new ApiError(0, null);
  }
  if (!result.response.ok) throw new ApiError(result.response.status, asErrorBody(result.error));
  return result.data as T;
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) {
    // 501, or no such route on an older server: the feature is not there yet.
    if (err.status === 501 || (err.status === 404 && err.body?.error.startsWith('Route '))) return 'This part of the service is not available yet.';
    if (err.status === 503) return 'Prices are unavailable right now; try again in a moment.';
    if (err.status >= 500) return 'The service had a problem; try again later.';
    return err.message;
  }
  return err instanceof Error ? err.message : 'Something went wrong';
}
