import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { FakePriceProvider } from '../helpers/prices.js';

forEachDialect('operability: request ids, no-store, metrics, degraded health', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { metricsPort: 0 } });
  });
  after(() => t.close());

  test('x-request-id: a sane one is echoed, a missing or hostile one replaced by a fresh id', async () => {
    const given = await t.app.inject({ method: 'GET', url: '/', headers: { 'x-request-id': 'abc-123.trace:1' } });
    assert.equal(given.headers['x-request-id'], 'abc-123.trace:1');
    const none = await t.app.inject({ method: 'GET', url: '/' });
    const none2 = await t.app.inject({ method: 'GET', url: '/' });
    assert.match(String(none.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.notEqual(none.headers['x-request-id'], none2.headers['x-request-id']);
    for (const bad of ['a b', 'x'.repeat(129), 'id\u0000', '{"json":1}', '']) {
      const res = await t.app.inject({ method: 'GET', url: '/', headers: { 'x-request-id': bad } });
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, JSON.stringify(bad));
    }
    const err = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'on-errors-too' } });
    assert.equal(err.statusCode, 404);
    assert.equal(err.headers['x-request-id'], 'on-errors-too');
  });

  test('metrics: a scrape on the metrics port shows request counters and latency per route moving', async () => {
    const port = t.ctx.metrics.port;
    assert.ok(port);
    const scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/plain/);
      return res.text();
    };
    const count = (text: string, labels: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`http_requests_total{${labels}}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await scrape();
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
    await t.app.inject({ method: 'GET', url: '/me' });
    await t.app.inject({ method: 'GET', url: '/no/such/route/42' });
    const after = await scrape();
    const okLabels = 'method="GET",route="/.well-known/oauth-protected-resource",status="200"';
    assert.equal(count(after, okLabels) - count(before, okLabels), 3);
    assert.equal(count(after, 'method="GET",route="/me",status="401"') - count(before, 'method="GET",route="/me",status="401"'), 1);
    // Unmatched URLs share one label: a scanner cannot blow up the series count.
    assert.ok(count(after, 'method="GET",route="unmatched",status="404"') >= 1);
    assert.doesNotMatch(after, /no\/such\/route/);
    assert.match(after, /http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/\.well-known\/oauth-protected-resource"\}/);
    for (const name of [
      'settlement_lag_seconds',
      'outbox_depth',
      'outbox_delivery_failures_total',
      'provider_errors_total',
      'price_cache_hits_total',
      'price_cache_misses_total',
      'database_up',
    ]) {
      assert.match(after, new RegExp(`# TYPE ${name} `), name);
    }
    t.ctx.metrics.providerErrors.inc({ provider: 'prices' });
    const fed = await scrape();
    assert.match(fed, /provider_errors_total\{provider="prices"\} 1/);
    // Outbox depth and settlement lag are read from the database at scrape time (queue-metrics.test.ts).
    assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
  });

  test('metrics: a 50 ms block of the event loop is a stall on the metrics port, and the delay shows it', async () => {
    const scrape = async () => (await fetch(`http://127.0.0.1:${t.ctx.metrics.port}/metrics`)).text();
    const stalls = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('event_loop_stalls_total{'))
        .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    const before = stalls(await scrape());
    // The scrape resets the delay histogram, which then measures from its next tick on.
    await new Promise((r) => setTimeout(r, 30));
    const until = performance.now() + 50;
    while (performance.now() < until) {
      // the loop runs nothing else meanwhile
    }
    await new Promise((r) => setTimeout(r, 120));
    const after = await scrape();
    assert.ok(stalls(after) > before, after);
    assert.match(after, /^event_loop_stall_longest_seconds\{cause="[^"]+"\} /m);
    assert.ok(Number(/^event_loop_delay_max_seconds (\S+)$/m.exec(after)?.[1]) >= 0.04, after);
  });
});

forEachDialect('health: degraded when the database fails', (dialect) => {
  test('GET / answers 200 degraded with the reason once the database handle is broken', async () => {
    const t = await createTestApp(dialect, { config: { healthCacheMs: 0 } });
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/' })).json().status, 'ok');
      // Every connection closed (SQLite's writer and reader, PostgreSQL's pool).
      await t.database.db.destroy();
      const res = await t.app.inject({ method: 'GET', url: '/' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'degraded', version: '1.0.0', database: 'unreachable', reasons: ['database unreachable'] });
      assert.equal(res.headers['cache-control'], 'no-store');
      // A request that needs the database fails as a clean 500, not a hang or a leak.
      const reg = await t.app.inject({
        method: 'POST',
        url: '/register',
        payload: { username: 'nodb_user', email: 'nodb@example.test', password: 'a perfectly fine passphrase' },
      });
      assert.equal(reg.statusCode, 500);
      assert.deepEqual(reg.json(), { error: 'Internal server error' });
    } finally {
      await t.app.close();
      await t.database.close().catch(() => undefined);
    }
  });
});

forEachDialect('health: degraded while a provider is failing', (dialect) => {
  test('a failing price provider shows in GET / until it answers again', async () => {
    const prices = new FakePriceProvider();
    const t = await createTestApp(dialect, { config: { healthCacheMs: 0 }, deps: { prices } });
    try {
      const user = await registerAndLogin(t.app);
      assert.deepEqual((await t.app.inject({ method: 'GET', url: '/' })).json(), { status: 'ok', version: '1.0.0', database: 'ok' });
      prices.failing.add('*');
      const down = await t.app.inject({ method: 'GET', url: '/price/AAPL', headers: { cookie: user.cookie } });
      assert.equal(down.statusCode, 503);
      const res = await t.app.inject({ method: 'GET', url: '/' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'degraded', version: '1.0.0', database: 'ok', reasons: ['price provider failing'] });
      prices.failing.clear();
      t.clock.advance(10 * 60_000); // past the price cache
      assert.equal((await t.app.inject({ method: 'GET', url: '/price/MSFT', headers: { cookie: user.cookie } })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: '/' })).json().status, 'ok');
    } finally {
      await t.close();
    }
  });
});
