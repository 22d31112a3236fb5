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

/** GET /user/{id}/stats: ranked (scored) figures, with the raw ones and how the trader trades beside them. */
export type TraderStats = Schemas['TraderStats'];
/** GET /me/standing: the caller's place on SPEC's board and on the ranked board, per window. */
export type MyStanding = Schemas['MyStandingResponse'];
/** GET /leagues/{id}/board: scoring_version 1 raw gains (a league started before ranked scoring), 2 ranked gains. */
export type LeagueBoard = Schemas['LeagueBoard'];

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

/** A fresh Idempotency-Key: 128 random bits (getRandomValues works on plain http too, unlike randomUUID). */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The server's 409 while an earlier request with the same Idempotency-Key runs (src/http/idempotency.ts). */
const KEY_IN_PROGRESS = 'A request with this Idempotency-Key is in progress';
/** How long a repeat waits for the earlier send of its action, at most, before giving up. */
const MAX_WAITS = 30;

export type IdempotencyHeader = { 'Idempotency-Key': string };

/**
 * A write sent under its user action's Idempotency-Key (DESIGN): however
 * often the action is sent (a double click, a retry), the server does it
 * once and answers each send alike. A send arriving while an earlier one
 * still runs is told 409 with Retry-After: it waits and asks again, and so
 * ends with the earlier one's answer.
 */
export async function callWrite<T>(
  key: string,
  send: (header: IdempotencyHeader) => Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  for (let waits = 0; ; waits++) {
    let result: Awaited<ReturnType<typeof send>>;
    try {
      result = await send({ 'Idempotency-Key': key });
    } catch {
      throw new ApiError(0, null);
    }
    const inProgress = result.response.status === 409 && asErrorBody(result.error)?.error === KEY_IN_PROGRESS;
    if (!inProgress || waits >= MAX_WAITS) return call(Promise.resolve(result));
    const seconds = Number(result.response.headers.get('retry-after'));
    await new Promise((resolve) => setTimeout(resolve, (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000));
  }
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
