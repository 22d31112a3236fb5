// One load measurement with autocannon, driven programmatically, from steps
// that a single fetch-based probe can also play once beforehand.
import autocannon from 'autocannon';

/** What a sequence's steps share (autocannon resets it at each new round of the sequence). */
export type SeqContext = Record<string, unknown>;

export interface Step {
  method: 'GET' | 'POST';
  path: string;
  /** The JSON body, computed per request; undefined skips the rest of the sequence. */
  body?: (c: SeqContext) => unknown;
  /** Reads an answer into the context for the next steps. */
  onResponse?: (status: number, body: string, c: SeqContext) => void;
}

export interface LoadOptions {
  url: string;
  steps: Step[];
  cookie?: string;
  connections: number;
  durationS: number;
}

export interface LoadResult {
  requests: number;
  /** Requests per second over the whole run. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
}

function headersFor(step: Step, cookie?: string): Record<string, string> {
  return {
    ...(cookie ? { cookie } : {}),
    ...(step.body ? { 'content-type': 'application/json' } : {}),
  };
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const requests: autocannon.Request[] = opts.steps.map((step) => ({
    method: step.method,
    path: step.path,
    headers: headersFor(step, opts.cookie),
    ...(step.body
      ? {
          setupRequest: (req: autocannon.Request, context: object) => {
            const body = step.body!(context as SeqContext);
            // A falsy answer makes autocannon start the sequence over.
            return body === undefined ? (null as unknown as autocannon.Request) : { ...req, body: JSON.stringify(body) };
          },
        }
      : {}),
    ...(step.onResponse
      ? { onResponse: (status: number, body: string, context: object) => step.onResponse!(status, body, context as SeqContext) }
      : {}),
  }));
  const r = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.durationS,
    requests,
    timeout: 30,
  });
  const statusCounts: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCounts[code] = stat.count ?? 0;
  const total = r.requests.total;
  return {
    requests: total,
    rps: total / r.duration,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCounts,
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

/** Plays the steps once with fetch: does every step answer 2xx? (A missing route is a failure like any other.) */
export async function probe(url: string, steps: Step[], cookie?: string): Promise<ProbeOutcome> {
  const context: SeqContext = {};
  let lastAnswer: Answer = { headers: {}, body: '' };
  for (const step of steps) {
    const body = step.body?.(context);
    const res = await fetch(url + step.path, {
      method: step.method,
      headers: headersFor(step, cookie),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (!NODE_HEADERS.has(name)) headers[name] = value;
    });
    lastAnswer = { headers, body: text };
    step.onResponse?.(res.status, text, context);
    if (res.status < 200 || res.status > 299) {
      return {
        ok: false,
        step: `${step.method} ${step.path}`,
        status: res.status,
        body: text.slice(0, 200),
      };
    }
  }
  return { ok: true, lastAnswer };
}
