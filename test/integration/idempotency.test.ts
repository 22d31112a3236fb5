// Idempotency-Key on the writes (issue 24, DESIGN): a repeat with the same key
// answers as the first time without doing the work again; in flight 409;
// another request under the key 422; a 5xx, or a claim past its lease, frees
// the key; keys last 24 hours, per user, on both dialects.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { claimKey, fingerprintOf, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, PRUNE_SLICE } from '../../src/services/idempotency.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { Barrier } from '../helpers/barrier.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

/** Quotes wait at the barrier while one is set: a write is held open after its key was claimed. */
class HeldPrices extends FakePriceProvider {
  barrier: Barrier | null = null;
  override async quote(ticker: string): Promise<number> {
    if (this.barrier) await this.barrier.arrive();
    return super.quote(ticker);
  }
}

let keys = 0;
const freshKey = () => `key-${process.pid}-${++keys}-${Math.random().toString(36).slice(2)}`;

forEachDialect('Idempotency-Key', (dialect) => {
  let t: TestApp;
  const prices = new HeldPrices();
  before(async () => {
    t = await createTestApp(dialect, {
      deps: { prices },
      config: {
        capacities: { baseBets: 50, baseFollows: 50 },
        prices: { provider: 'simulated', finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 0, timeoutMs: 1000 },
      },
    });
  });
  after(() => t.close());

  const send = (method: 'POST' | 'DELETE', url: string, user: TestUser, key: string | null, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as object, headers: { cookie: user.cookie, ...(key === null ? {} : { 'idempotency-key': key }) } });
  const openBet = (user: TestUser, key: string | null, body: object = { ticker: 'AAPL', direction: 'LONG' }) =>
    send('POST', '/bet/open', user, key, body);
  const openCount = async (user: TestUser) =>
    (await t.app.inject({ method: 'GET', url: '/portfolio', headers: { cookie: user.cookie } })).json().length as number;
  const sameAnswer = (a: LightMyRequestResponse, b: LightMyRequestResponse) => {
    assert.equal(b.statusCode, a.statusCode);
    assert.equal(b.body, a.body);
    assert.equal(b.headers['content-type'], a.headers['content-type']);
  };

  test('without the header every request does its work; with one, a repeat replays the answer and opens nothing', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    assert.equal((await openBet(u, null)).statusCode, 200);
    assert.equal((await openBet(u, null)).statusCode, 200);
    assert.equal(await openCount(u), 2);

    const key = freshKey();
    const first = await openBet(u, key);
    assert.equal(first.statusCode, 200, first.body);
    const quotes = prices.calls;
    const again = await openBet(u, key, { direction: 'LONG', ticker: 'AAPL' });
    sameAnswer(first, again);
    assert.equal(prices.calls, quotes, 'the repeat fetched no price: the work was not done again');
    assert.equal(await openCount(u), 3);
  });

  test('a double-clicked close or cancel answers its success twice, not "Bet is not open"', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    const betA = (await openBet(u, null)).json().bet_id as number;
    const betB = (await openBet(u, null)).json().bet_id as number;
    const closeKey = freshKey();
    const closed = await send('POST', '/bet/close', u, closeKey, { bet_id: betA });
    assert.equal(closed.statusCode, 200, closed.body);
    sameAnswer(closed, await send('POST', '/bet/close', u, closeKey, { bet_id: betA }));
    const cancelKey = freshKey();
    const cancelled = await send('DELETE', `/bet/${betB}`, u, cancelKey);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    sameAnswer(cancelled, await send('DELETE', `/bet/${betB}`, u, cancelKey));
    // Without a key the second close is what SPEC says.
    assert.equal((await send('POST', '/bet/close', u, null, { bet_id: betA })).statusCode, 400);
  });

  test('a 4xx is stored and replayed too; the same key with another body or path is 422', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    const key = freshKey();
    const refused = await send('POST', '/bet/close', u, key, { bet_id: 999_999 });
    assert.equal(refused.statusCode, 400);
    sameAnswer(refused, await send('POST', '/bet/close', u, key, { bet_id: 999_999 }));
    for (const other of [
      () => send('POST', '/bet/close', u, key, { bet_id: 999_998 }),
      () => openBet(u, key),
      () => send('DELETE', '/bet/999999', u, key),
    ]) {
      const res = await other();
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
  });

  test('keys belong to their user: another user with the same key does their own work', async () => {
    const a = await registerAndLogin(t.app, 'idem');
    const b = await registerAndLogin(t.app, 'idem');
    const key = freshKey();
    const first = await openBet(a, key);
    const second = await openBet(b, key);
    assert.equal(second.statusCode, 200);
    assert.notEqual(second.json().bet_id, first.json().bet_id);
    assert.equal(await openCount(b), 1);
  });

  test('while the first request runs, a repeat is 409 with Retry-After: 1; afterwards it gets the answer', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    const key = freshKey();
    const barrier = new Barrier();
    prices.barrier = barrier;
    const first = openBet(u, key);
    try {
      await barrier.reached;
      const during = await openBet(u, key);
      assert.equal(during.statusCode, 409, during.body);
      assert.equal(during.headers['retry-after'], '1');
      assert.deepEqual(during.json(), { error: 'A request with this Idempotency-Key is in progress' });
      // A different request under the key is still 422, in flight or not.
      assert.equal((await openBet(u, key, { ticker: 'MSFT', direction: 'SHORT' })).statusCode, 422);
    } finally {
      prices.barrier = null;
      barrier.release();
    }
    const done = await first;
    assert.equal(done.statusCode, 200, done.body);
    sameAnswer(done, await openBet(u, key));
    assert.equal(await openCount(u), 1);
  });

  test('a 5xx frees the key: the repeat does the work', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    const bet = (await openBet(u, null, { ticker: 'MSFT', direction: 'LONG' })).json().bet_id as number;
    const key = freshKey();
    prices.failing.add('MSFT');
    try {
      const failed = await send('POST', '/bet/close', u, key, { bet_id: bet });
      assert.equal(failed.statusCode, 500, failed.body);
    } finally {
      prices.failing.delete('MSFT');
    }
    const retried = await send('POST', '/bet/close', u, key, { bet_id: bet });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(await openCount(u), 0);
  });

  test('a claim left in flight (a crash) holds the key for its lease only', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    const key = freshKey();
    const body = { ticker: 'AAPL', direction: 'SHORT' };
    // What a request that died after its claim leaves behind.
    const claim = await claimKey(t.ctx, { userId: u.id, key }, fingerprintOf('POST', '/bet/open', body));
    assert.equal(claim.kind, 'claimed');
    assert.equal((await openBet(u, key, body)).statusCode, 409);
    t.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const res = await openBet(u, key, body);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await openCount(u), 1);
  });

  test('keys last 24 hours, then the same key is a new request; expired rows are pruned', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    const key = freshKey();
    const first = await openBet(u, key);
    assert.equal((await openBet(u, key)).body, first.body);
    const rows = () => t.ctx.db.selectFrom('idempotency_keys').select('idem_key').where('user_id', '=', u.id).execute();
    assert.equal((await rows()).length, 1, 'stored in the database');
    t.clock.advance(IDEMPOTENCY_TTL_MS + 1);
    const later = await openBet(u, key);
    assert.equal(later.statusCode, 200);
    assert.notEqual(later.json().bet_id, first.json().bet_id);
    assert.equal(await openCount(u), 2);
    // An old key of this user, untouched since, is gone after another claim a day on.
    const old = freshKey();
    await openBet(u, old);
    t.clock.advance(IDEMPOTENCY_TTL_MS + 120_000);
    await openBet(u, freshKey());
    const left = (await rows()).map((r) => r.idem_key);
    assert.ok(!left.includes(old), 'the expired key was pruned');
  });

  test('a backlog of expired keys goes a slice a claim, every claim after a full slice pruning again', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    t.clock.advance(120_000);
    const expiredAt = t.clock.now() - IDEMPOTENCY_TTL_MS - 1_000;
    const backlog = 2 * PRUNE_SLICE + 5;
    const rows = Array.from({ length: backlog }, (_, i) => ({
      user_id: u.id,
      idem_key: `expired-${i}`,
      fingerprint: 'f'.repeat(64),
      // Pairs share an instant, as keys claimed in the same millisecond do.
      created_at: expiredAt - Math.floor(i / 2),
      status: 200,
      answer: '{}',
    }));
    for (let i = 0; i < rows.length; i += 200)
      await t.ctx.db
        .insertInto('idempotency_keys')
        .values(rows.slice(i, i + 200))
        .execute();
    const expired = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('idempotency_keys')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('user_id', '=', u.id)
            .where('idem_key', 'like', 'expired-%')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const claim = () => claimKey(t.ctx, { userId: u.id, key: freshKey() }, 'a'.repeat(64));
    await claim();
    const afterOne = await expired();
    assert.ok(afterOne < backlog && afterOne >= backlog - PRUNE_SLICE - 1, `${afterOne} left after one claim`);
    await claim();
    await claim();
    assert.equal(await expired(), 0);
  });

  test('a malformed key is 400 and does nothing', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    for (const bad of ['x'.repeat(256), 'clé', 'a\u0001b']) {
      const res = await openBet(u, bad);
      assert.equal(res.statusCode, 400, `${JSON.stringify(bad)}: ${res.body}`);
      assert.match(res.json().error, /Idempotency-Key/);
    }
    assert.equal((await openBet(u, 'x'.repeat(255))).statusCode, 200);
    assert.equal(await openCount(u), 1);
  });

  test('follow, tail, fade, checkout and link codes replay their first answer', async () => {
    const u = await registerAndLogin(t.app, 'idem');
    const other = await registerAndLogin(t.app, 'idem');
    const source = (await openBet(other, null)).json().bet_id as number;
    const plans = (await t.app.inject({ method: 'GET', url: '/api/pay/plans' })).json().plans as Array<{ price_id: string }>;
    const cases: Array<[string, (key: string) => Promise<LightMyRequestResponse>]> = [
      ['follow', (k) => send('POST', '/follow', u, k, { followed_id: other.id, action: 'follow' })],
      ['tail', (k) => send('POST', `/bet/${source}/tail`, u, k)],
      ['fade', (k) => send('POST', `/bet/${source}/fade`, u, k)],
      ['checkout', (k) => send('POST', '/api/pay/checkout', u, k, { price_id: plans[0]!.price_id })],
      ['link code', (k) => send('POST', '/chat/link-code', u, k)],
    ];
    for (const [what, call] of cases) {
      const key = freshKey();
      const first = await call(key);
      assert.equal(first.statusCode, 200, `${what}: ${first.body}`);
      sameAnswer(first, await call(key));
    }
    assert.equal(await openCount(u), 2, 'one tail and one fade');
  });
});
