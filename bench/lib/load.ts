// What a scenario sends, as data: wrk's Lua script is generated from it
// (wrk.ts), and a fetch-based probe plays it once beforehand, so a missing
// route or a refused session fails the scenario before anything is measured.

/** Every request carries this, as a browser's fetch does. */
export const ACCEPT_ENCODING = 'br, gzip';
export const SESSION_COOKIE = 'auth_token';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  /** A JSON body, sent as is. */
  body?: string;
}

/**
 * - `single`: the same request again and again (wrk's prebuilt request: the
 *   cheapest load wrk can make);
 * - `rotate`: a list of requests, taken in turn (logins of many accounts);
 * - `pairs`: each connection alternates a first and a second request for the
 *   traders it holds, the second built from the first (open then close with
 *   the bet id the open answered; follow then unfollow of the same user).
 *   One connection per wrk thread, so each thread's Lua state is one
 *   connection's sequence.
 */
export type Plan =
  | { kind: 'single'; request: RequestSpec; cookie?: string }
  | { kind: 'rotate'; requests: RequestSpec[]; cookie?: string }
  | { kind: 'pairs'; pair: 'bet'; cookies: string[]; tickers: string[] }
  | { kind: 'pairs'; pair: 'follow'; cookies: string[]; targets: number[] };

export interface LoadResult {
  /** Requests answered. */
  requests: number;
  /** Requests per second over the measured time. */
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers with a status of 400 or more (wrk's count), and per status where the script counted them. */
  non2xx: number;
  statusCounts: Record<string, number>;
  /** Connection errors: connect, read, write, timeout. */
  errors: number;
  /** The load generator's CPU over its run, in % of one core; null when it could not be told. */
  loadGeneratorPct: number | null;
}

function headersOf(request: RequestSpec, cookie?: string): Record<string, string> {
  return {
    'accept-encoding': ACCEPT_ENCODING,
    ...(cookie ? { cookie } : {}),
    ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
}

/** An answer as a server sent it: its body and the headers it chose (not those Node adds to every answer). */
export interface Answer {
  headers: Record<string, string>;
  body: string;
}

/** Headers Node sets on every answer (or per connection), left out of a replayed answer. */
const NODE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** ok with the last step's answer, or why a step failed. */
export type ProbeOutcome = { ok: true; lastAnswer: Answer } | { ok: false; step: string; status: number; body: string };

async function send(url: string, request: RequestSpec, cookie?: string): Promise<{ status: number; answer: Answer }> {
  const res = await fetch(url + request.path, {
    method: request.method,
    headers: headersOf(request, cookie),
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const body = await res.text();
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!NODE_HEADERS.has(name)) headers[name] = value;
  });
  return { status: res.status, answer: { headers, body } };
}

/** The plan's first request(s), as its load sends them, with fetch: does each answer 2xx? */
export async function probe(url: string, plan: Plan): Promise<ProbeOutcome> {
  const steps: Array<{ request: RequestSpec | ((previous: Answer) => RequestSpec); cookie?: string }> = [];
  if (plan.kind === 'single') steps.push({ request: plan.request, cookie: plan.cookie });
  else if (plan.kind === 'rotate') steps.push({ request: plan.requests[0]!, cookie: plan.cookie });
  else if (plan.pair === 'bet') {
    const cookie = plan.cookies[0];
    steps.push({ request: openRequest(plan.tickers[0]!), cookie });
    steps.push({ request: (previous) => closeRequest(betIdOf(previous.body) ?? 0), cookie });
  } else {
    const cookie = plan.cookies[0];
    steps.push({ request: followRequest(plan.targets[0]!, 'follow'), cookie });
    steps.push({ request: followRequest(plan.targets[0]!, 'unfollow'), cookie });
  }
  let last: Answer = { headers: {}, body: '' };
  for (const step of steps) {
    const request = typeof step.request === 'function' ? step.request(last) : step.request;
    const { status, answer } = await send(url, request, step.cookie);
    last = answer;
    if (status < 200 || status > 299) return { ok: false, step: `${request.method} ${request.path}`, status, body: answer.body.slice(0, 200) };
  }
  return { ok: true, lastAnswer: last };
}

export const openRequest = (ticker: string): RequestSpec => ({
  method: 'POST',
  path: '/bet/open',
  body: JSON.stringify({ ticker, direction: 'LONG' }),
});
export const closeRequest = (betId: number): RequestSpec => ({ method: 'POST', path: '/bet/close', body: JSON.stringify({ bet_id: betId }) });
export const followRequest = (target: number, action: 'follow' | 'unfollow'): RequestSpec => ({
  method: 'POST',
  path: '/follow',
  body: JSON.stringify({ followed_id: target, action }),
});

/** The bet id an open answered, as the Lua script reads it (the same pattern). */
export function betIdOf(body: string): number | null {
  const m = /"bet_id"\s*:\s*(\d+)/.exec(body);
  return m ? Number(m[1]) : null;
}

/** Sends a request with the browser's headers and the session cookie, for the runner's own sequential requests. */
export async function sendOnce(url: string, request: RequestSpec, cookie?: string): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const { status, answer } = await send(url, request, cookie);
  return { status, body: answer.body, ms: performance.now() - started };
}
