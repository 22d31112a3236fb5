// The load generator: wrk (Debian's package), driven by a Lua script generated
// from a scenario's plan, pinned to the load generator's core. Its figures
// come from the script's done(), which prints them as one JSON line.
//
// wrk's Lua state is per thread and its response() hook does not say which
// connection answered, so a sequence that carries state from one answer to
// the next request (open, then close the bet it answered) runs one connection
// per thread: in a thread with one connection, request() and response()
// strictly alternate, and the thread's globals are that connection's state.
// Each thread holds its own traders (its session cookies), so a trader's
// requests never race each other across connections.
//
// Each connection's first request waits ADMIT_MS (the scripts' delay()). Node's
// libuv (1.45 and later) accepts one new connection a turn of the event loop,
// so 64 connections opened together against a server that starts answering the
// first ones at once are admitted over 64 turns that each grow by a request:
// the last waits about 64 × 64 / 2 requests' time before its first request is
// read. That tail is the admission's, not the requests', and the P rule reads
// it as a stall (docs/performance.md, "Where the time goes"). Admitted while
// the server is idle, the run measures requests on established keep-alive
// connections, the service's as the hello world's. wrk starts a request's
// clock when it writes it, after the wait; the wait is part of the run's
// duration (1 % of a 10 s run, for the baselines alike).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACCEPT_ENCODING, type LoadResult, type Plan, type RequestSpec } from './load.js';
import { LOAD_CPU, runCounted } from './server.js';

let wrkPath: string | null | undefined;
/** wrk's path, or null when it is not installed (Debian: apt-get install wrk). */
export function findWrk(): string | null {
  if (wrkPath === undefined) {
    wrkPath = null;
    for (const candidate of ['/usr/bin/wrk', '/usr/local/bin/wrk']) {
      if (fs.existsSync(candidate)) {
        wrkPath = candidate;
        break;
      }
    }
    if (wrkPath === null) {
      try {
        wrkPath = execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || null;
      } catch {
        wrkPath = null;
      }
    }
  }
  return wrkPath;
}

export const WRK_MISSING = 'wrk is not installed (Debian: apt-get update && apt-get install -y wrk)';

/** wrk's version line, for the report. */
export function wrkVersion(binary: string): string {
  try {
    execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // wrk --version prints its banner and exits 1.
    const out = String((err as { stdout?: string }).stdout ?? '');
    return out.split('\n')[0]?.trim() ?? 'wrk';
  }
  return 'wrk';
}

/** A Lua string literal: quotes, backslashes and anything outside printable ASCII escaped as \ddd. */
export function luaString(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${byte}`;
  }
  return `${out}"`;
}

const luaList = (items: string[]) => `{\n  ${items.join(',\n  ')}\n}`;

/** How long each connection's first request waits for every connection of its run to be admitted (above). */
export const ADMIT_MS = 100;

// Counted per thread; done() adds the threads' counts (thread:get copies tables between Lua states).
// The first requests counted down are the thread's connections' first: wrk spreads a run's connections evenly over its threads.
const common = (connectionsPerThread: number) => `
local unadmitted = ${connectionsPerThread}
function delay()
  if unadmitted > 0 then
    unadmitted = unadmitted - 1
    return ${ADMIT_MS}
  end
  return 0
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

local function count(status)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local codes = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    if s then
      for code, n in pairs(s) do codes[code] = (codes[code] or 0) + n end
    end
  end
  local parts = {}
  for code, n in pairs(codes) do parts[#parts + 1] = string.format('"%.0f":%.0f', code, n) end
  local e = summary.errors
  io.write(string.format(
    '@@wrk {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,' ..
    '"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f},' ..
    '"latencyUs":{"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f},"statuses":{%s}}\\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    table.concat(parts, ",")))
end
`;

function headerTable(cookie: string | undefined, json: boolean): string {
  const entries = [`["Accept-Encoding"] = ${luaString(ACCEPT_ENCODING)}`];
  if (cookie) entries.push(`["Cookie"] = ${luaString(cookie)}`);
  if (json) entries.push('["Content-Type"] = "application/json"');
  return `{ ${entries.join(', ')} }`;
}

function singleScript(request: RequestSpec, perThread: number, cookie?: string): string {
  // No request() and no response(): wrk builds the request once and parses no body, its cheapest load.
  const lines = [
    `wrk.method = ${luaString(request.method)}`,
    `wrk.path = ${luaString(request.path)}`,
    `wrk.headers["Accept-Encoding"] = ${luaString(ACCEPT_ENCODING)}`,
    ...(cookie ? [`wrk.headers["Cookie"] = ${luaString(cookie)}`] : []),
    ...(request.body !== undefined ? ['wrk.headers["Content-Type"] = "application/json"', `wrk.body = ${luaString(request.body)}`] : []),
  ];
  return `${lines.join('\n')}\n${common(perThread)}`;
}

function rotateScript(requests: RequestSpec[], perThread: number, cookie?: string): string {
  const specs = requests.map(
    (r) => `{ ${luaString(r.method)}, ${luaString(r.path)}, ${r.body === undefined ? 'nil' : luaString(r.body)}, ${r.body !== undefined} }`,
  );
  return `${common(perThread)}
local SPECS = ${luaList(specs)}
local built = {}
local i = 0

-- A fresh table each time: wrk.format adds Host and Content-Length to the one it is given.
local function headers(json)
  if json then return ${headerTable(cookie, true)} end
  return ${headerTable(cookie, false)}
end

function init(args)
  statuses = {}
  for k, s in ipairs(SPECS) do built[k] = wrk.format(s[1], s[2], headers(s[4]), s[3]) end
  -- Threads start at different places in the list.
  i = ((id - 1) * 7) % #built
end

function request()
  i = i % #built + 1
  return built[i]
end

function response(status, headers, body)
  count(status)
end
`;
}

function pairsScript(plan: Extract<Plan, { kind: 'pairs' }>, threads: number, perThread: number): string {
  const bet = plan.pair === 'bet';
  const data = bet ? `local TICKERS = ${luaList(plan.tickers.map(luaString))}` : `local TARGETS = { ${plan.targets.join(', ')} }`;
  const first = bet
    ? `return wrk.format("POST", "/bet/open", headers(cookie), '{"ticker":"' .. TICKERS[k] .. '","direction":"LONG"}')`
    : `return wrk.format("POST", "/follow", headers(cookie), '{"followed_id":' .. TARGETS[k] .. ',"action":"follow"}')`;
  const second = bet
    ? `if status == 200 then
      local bet = string.match(body, '"bet_id"%s*:%s*(%d+)')
      if bet then second = wrk.format("POST", "/bet/close", headers(cookie), '{"bet_id":' .. bet .. '}') end
    end`
    : `if status >= 200 and status < 300 then
      second = wrk.format("POST", "/follow", headers(cookie), '{"followed_id":' .. TARGETS[k] .. ',"action":"unfollow"}')
    end`;
  // The second request is made from the first's answer, never ahead of it: wrk calls request() once
  // before the run to check the script, and that call's request is never sent.
  return `${common(perThread)}
local THREADS = ${threads}
local COOKIES = ${luaList(plan.cookies.map(luaString))}
${data}
local LIST = ${bet ? 'TICKERS' : 'TARGETS'}
local mine = {}
local t = 0
local k = 0
local cookie = nil
local awaiting = false
local second = nil

local function headers(c)
  return { ["Accept-Encoding"] = ${luaString(ACCEPT_ENCODING)}, ["Content-Type"] = "application/json", ["Cookie"] = c }
end

function init(args)
  statuses = {}
  -- This thread's traders: every THREADS-th from its id, or one shared when there are fewer traders than threads.
  for x = id, #COOKIES, THREADS do mine[#mine + 1] = COOKIES[x] end
  if #mine == 0 then mine[1] = COOKIES[(id - 1) % #COOKIES + 1] end
  k = (id - 1) % #LIST
end

function request()
  if second then
    local r = second
    second = nil
    return r
  end
  t = t % #mine + 1
  cookie = mine[t]
  k = k % #LIST + 1
  awaiting = true
  ${first}
end

function response(status, hdrs, body)
  count(status)
  if awaiting then
    awaiting = false
    ${second}
  end
end
`;
}

/** wrk's threads for a plan: one per connection for sequences, else one (wrk has one core). */
export function threadsFor(plan: Plan, connections: number): number {
  return plan.kind === 'pairs' ? connections : 1;
}

export function luaScript(plan: Plan, connections: number): string {
  const header = '-- Generated by bench/lib/wrk.ts for one benchmark scenario.\n';
  const threads = threadsFor(plan, connections);
  const perThread = Math.ceil(connections / threads);
  if (plan.kind === 'single') return header + singleScript(plan.request, perThread, plan.cookie);
  if (plan.kind === 'rotate') return header + rotateScript(plan.requests, perThread, plan.cookie);
  return header + pairsScript(plan, threads, perThread);
}

interface WrkJson {
  requests: number;
  durationUs: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
}

/** The figures done() printed, from wrk's whole output. */
export function parseWrkOutput(stdout: string): WrkJson {
  const line = stdout.split('\n').find((l) => l.startsWith('@@wrk '));
  if (!line) throw new Error(`wrk printed no figures:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice('@@wrk '.length)) as WrkJson;
}

export function loadResultOf(figures: WrkJson, cpuSeconds: number | null, wallSeconds: number): LoadResult {
  const seconds = figures.durationUs / 1e6;
  const e = figures.errors;
  return {
    requests: figures.requests,
    rps: seconds > 0 ? figures.requests / seconds : 0,
    p50Ms: figures.latencyUs.p50 / 1000,
    p90Ms: figures.latencyUs.p90 / 1000,
    p99Ms: figures.latencyUs.p99 / 1000,
    maxMs: figures.latencyUs.max / 1000,
    non2xx: e.status,
    statusCounts: figures.statuses,
    errors: e.connect + e.read + e.write + e.timeout,
    loadGeneratorPct: cpuSeconds === null || wallSeconds <= 0 ? null : (cpuSeconds / wallSeconds) * 100,
  };
}

export interface WrkRun {
  binary: string;
  url: string;
  plan: Plan;
  connections: number;
  durationS: number;
}

/** One wrk run on the load generator's core. */
export async function runWrk(o: WrkRun): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
  const script = path.join(dir, 'scenario.lua');
  fs.writeFileSync(script, luaScript(o.plan, o.connections));
  const threads = threadsFor(o.plan, o.connections);
  try {
    const run = await runCounted(LOAD_CPU, o.binary, [
      '-t',
      String(threads),
      '-c',
      String(o.connections),
      '-d',
      `${o.durationS}s`,
      '--timeout',
      '30s',
      '-s',
      script,
      o.url,
    ]);
    if (run.code !== 0) throw new Error(`wrk exited with ${run.code}:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
    return loadResultOf(parseWrkOutput(run.stdout), run.cpuSeconds, run.wallSeconds);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
