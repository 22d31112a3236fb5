// The load generator's scripts: Lua literals, the figures done() prints, and,
// with wrk installed, the sequences themselves against a recording server:
// every close names the bet its own open answered, with that open's session
// cookie, and the traders are spread over the connections; each connection's
// first request waits until every connection of the run can be admitted.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Plan } from '../../bench/lib/load.js';
import { ADMIT_MS, findWrk, loadResultOf, luaScript, luaString, parseWrkOutput, runWrk, threadsFor, WRK_MISSING } from '../../bench/lib/wrk.js';

test('Lua string literals escape quotes, backslashes and bytes outside printable ASCII', () => {
  assert.equal(luaString('plain auth_token=a.b-c_d'), '"plain auth_token=a.b-c_d"');
  assert.equal(luaString('{"a":"b\\\\c"}'), '"{\\"a\\":\\"b\\\\\\\\c\\"}"');
  assert.equal(luaString('é\n'), '"\\195\\169\\10"');
});

test('a single request is wrk’s prebuilt one, with the browser’s headers, and no request() or response() in Lua', () => {
  const script = luaScript({ kind: 'single', request: { method: 'GET', path: '/portfolio' }, cookie: 'auth_token=x' }, 64);
  assert.match(script, /wrk\.path = "\/portfolio"/);
  assert.match(script, /wrk\.headers\["Accept-Encoding"\] = "br, gzip"/);
  assert.match(script, /wrk\.headers\["Cookie"\] = "auth_token=x"/);
  assert.doesNotMatch(script, /function request\(/);
  assert.doesNotMatch(script, /function response\(/);
  assert.match(script, /function done\(/);
});

test('sequences run one connection per thread; everything else one thread', () => {
  const pairs: Plan = { kind: 'pairs', pair: 'bet', cookies: ['a'], tickers: ['AAPL'] };
  assert.equal(threadsFor(pairs, 64), 64);
  assert.equal(threadsFor({ kind: 'single', request: { method: 'GET', path: '/' } }, 64), 1);
  assert.match(luaScript(pairs, 64), /local THREADS = 64/);
});

test('each connection’s first request waits ADMIT_MS, and only the first: counted per wrk thread', () => {
  const single = luaScript({ kind: 'single', request: { method: 'GET', path: '/' } }, 64);
  assert.match(single, /local unadmitted = 64\n/);
  assert.match(single, new RegExp(`function delay\\(\\)[\\s\\S]*return ${ADMIT_MS}[\\s\\S]*return 0`));
  assert.match(luaScript({ kind: 'rotate', requests: [{ method: 'GET', path: '/' }] }, 16), /local unadmitted = 16\n/);
  // A sequence has one connection per thread.
  assert.match(luaScript({ kind: 'pairs', pair: 'bet', cookies: ['a'], tickers: ['AAPL'] }, 64), /local unadmitted = 1\n/);
});

test('done()’s line is read back into the figures, latency in ms, failures counted', () => {
  const out = [
    'Running 10s test @ http://127.0.0.1:1/',
    '@@wrk {"requests":20000,"durationUs":10000000,"bytes":1,"errors":{"connect":0,"read":1,"write":0,"status":7,"timeout":2},' +
      '"latencyUs":{"p50":1500,"p90":3000,"p99":12000,"max":40000},"statuses":{"200":19993,"500":7}}',
    '0m0.01s 0m0.00s',
    '0m4.00s 0m1.00s',
  ].join('\n');
  const r = loadResultOf(parseWrkOutput(out), 5, 10);
  assert.equal(r.rps, 2000);
  assert.equal(r.p50Ms, 1.5);
  assert.equal(r.p99Ms, 12);
  assert.equal(r.non2xx, 7);
  assert.equal(r.errors, 3);
  assert.deepEqual(r.statusCounts, { '200': 19993, '500': 7 });
  assert.equal(r.loadGeneratorPct, 50);
  assert.throws(() => parseWrkOutput('no figures'), /wrk printed no figures/);
});

interface Seen {
  method: string;
  url: string;
  cookie: string;
  body: string;
  encoding: string;
}

async function recordingServer(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let nextBet = 1000;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, cookie: req.headers.cookie ?? '', body, encoding: req.headers['accept-encoding'] ?? '' });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/bet/open') res.end(JSON.stringify({ message: 'ok', bet_id: nextBet++, entry_price: 1 }));
      else res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const skip = findWrk() ? false : WRK_MISSING;

test('open + close: each close carries the bet its open answered and the same trader’s cookie; every trader trades', { skip }, async () => {
  const server = await recordingServer();
  try {
    const cookies = Array.from({ length: 8 }, (_, i) => `auth_token=trader${i}`);
    const load = await runWrk({
      binary: findWrk()!,
      url: server.url,
      plan: { kind: 'pairs', pair: 'bet', cookies, tickers: ['AAPL', 'MSFT'] },
      connections: 4,
      durationS: 1,
    });
    assert.ok(load.requests > 20, `only ${load.requests} requests`);
    assert.equal(load.statusCounts['200'], load.requests);
    const openedBy = new Map<number, string>();
    let bet = 1000;
    for (const s of server.seen) {
      assert.equal(s.method, 'POST');
      assert.equal(s.encoding, 'br, gzip');
      if (s.url === '/bet/open') {
        assert.match(s.body, /^\{"ticker":"(AAPL|MSFT)","direction":"LONG"\}$/);
        openedBy.set(bet++, s.cookie);
      } else {
        assert.equal(s.url, '/bet/close');
        const id = (JSON.parse(s.body) as { bet_id: number }).bet_id;
        assert.equal(s.cookie, openedBy.get(id), `bet ${id} closed by another session`);
        openedBy.delete(id);
      }
    }
    // At most one open per connection is still waiting for its close when the run stops.
    assert.ok(openedBy.size <= 4, `${openedBy.size} opens never closed`);
    assert.deepEqual(new Set(server.seen.map((s) => s.cookie)), new Set(cookies));
  } finally {
    await server.close();
  }
});

test('follow + unfollow: the unfollow names the user just followed, with the same cookie', { skip }, async () => {
  const server = await recordingServer();
  try {
    const cookies = ['auth_token=a', 'auth_token=b'];
    await runWrk({
      binary: findWrk()!,
      url: server.url,
      plan: { kind: 'pairs', pair: 'follow', cookies, targets: [50, 51, 52] },
      connections: 2,
      durationS: 1,
    });
    const byCookie = new Map<string, Seen[]>();
    for (const s of server.seen) byCookie.set(s.cookie, [...(byCookie.get(s.cookie) ?? []), s]);
    assert.deepEqual([...byCookie.keys()].sort(), cookies);
    for (const list of byCookie.values()) {
      for (let i = 0; i + 1 < list.length; i += 2) {
        const follow = JSON.parse(list[i]!.body) as { followed_id: number; action: string };
        const unfollow = JSON.parse(list[i + 1]!.body) as { followed_id: number; action: string };
        assert.equal(follow.action, 'follow');
        assert.deepEqual(unfollow, { followed_id: follow.followed_id, action: 'unfollow' });
      }
    }
  } finally {
    await server.close();
  }
});

test('a rotation takes each request in turn and counts answers by status', { skip }, async () => {
  const server = await recordingServer();
  try {
    const load = await runWrk({
      binary: findWrk()!,
      url: server.url,
      plan: {
        kind: 'rotate',
        requests: [
          { method: 'POST', path: '/login', body: '{"email":"a@b.test"}' },
          { method: 'GET', path: '/x' },
        ],
      },
      connections: 2,
      durationS: 1,
    });
    assert.equal(load.statusCounts['200'], load.requests);
    const urls = new Set(server.seen.map((s) => `${s.method} ${s.url} ${s.body}`));
    assert.deepEqual([...urls].sort(), ['GET /x ', 'POST /login {"email":"a@b.test"}']);
  } finally {
    await server.close();
  }
});

test('no connection sends its first request before ADMIT_MS have passed, and then it is not held again', { skip }, async () => {
  // The server notes when it accepted each connection and when each request came; the kernel completes
  // wrk's connections before the server accepts them, so the wait seen here is at most ADMIT_MS.
  const accepted = new Map<number, number>();
  const arrivals = new Map<number, number[]>();
  const server = http.createServer((req, res) => {
    const port = req.socket.remotePort!;
    arrivals.set(port, [...(arrivals.get(port) ?? []), performance.now()]);
    res.end('{}');
  });
  server.on('connection', (socket) => accepted.set(socket.remotePort!, performance.now()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const load = await runWrk({
      binary: findWrk()!,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      plan: { kind: 'single', request: { method: 'GET', path: '/' } },
      connections: 8,
      durationS: 1,
    });
    // wrk opens one more connection than it runs, before the run, and sends nothing on it.
    assert.equal(arrivals.size, 8, 'every connection sent requests');
    for (const [port, times] of arrivals) {
      const waited = times[0]! - accepted.get(port)!;
      // Half the wait at least: the server's accept itself may come a little after wrk's connect.
      assert.ok(waited >= ADMIT_MS / 2, `connection ${port} sent its first request ${waited.toFixed(1)} ms after it was accepted`);
    }
    // The later requests follow each other without the wait: far more than one a connection per ADMIT_MS.
    assert.ok(load.requests > ((8 * 1000) / ADMIT_MS) * 5, `only ${load.requests} requests`);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
