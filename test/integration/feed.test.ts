import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { listFeed } from '../../src/repositories/feed.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser, uniqueName } from '../helpers/app.js';
import { insertTestBets } from '../helpers/bet-rows.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { assertNoPrivateFields, deleteTestUser, insertTestUser } from '../helpers/users.js';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

forEachDialect('activity feed', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 110, MSFT: 400, TSLA: 50, NOQUOTE: 1 });
  before(async () => {
    t = await createTestApp(dialect, {
      config: { prices: { ...testConfig().prices, cacheTtlMs: 0 }, capacities: { baseBets: 10, baseFollows: 50 } },
      deps: { prices },
    });
  });
  after(() => t.close());

  const getFeed = async (u: TestUser, query = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/feed${query}`, headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Array<Record<string, unknown>>;
  };
  const follow = async (u: TestUser, id: number) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/follow',
      payload: { followed_id: id, action: 'follow' },
      headers: { cookie: u.cookie },
    });
    assert.equal(res.statusCode, 200, res.body);
  };

  test('one item per bet of followed users, current status, latest event first', async () => {
    const me = await registerAndLogin(t.app);
    const aName = uniqueName('a');
    const a = await insertTestUser(t.ctx, aName);
    const b = await insertTestUser(t.ctx, uniqueName('b'));
    const stranger = await insertTestUser(t.ctx, uniqueName('c'));
    const t0 = t.clock.now() - 60 * MIN;
    const [open, closed, cancelled] = await insertTestBets(t.ctx, [
      { userId: a, ticker: 'AAPL', direction: 'LONG', entry: 100, openedAt: t0 + MIN },
      { userId: a, ticker: 'MSFT', direction: 'SHORT', entry: 200, openedAt: t0, end: { status: 'CLOSED', at: t0 + 5 * MIN, exit: 180, gain: 10 } },
      { userId: b, ticker: 'TSLA', entry: 50, openedAt: t0 + 2 * MIN, end: { status: 'CANCELLED', at: t0 + 3 * MIN } },
      { userId: stranger, openedAt: t0 + 10 * MIN },
      { userId: me.id, openedAt: t0 + 11 * MIN },
    ]);
    await follow(me, a);
    await follow(me, b);

    const items = await getFeed(me);
    assert.deepEqual(
      items.map((i) => i.id),
      [closed!.id, cancelled!.id, open!.id],
    );
    assert.deepEqual(items[0], {
      id: closed!.id,
      ticker: 'MSFT',
      direction: 'SHORT',
      entry_price: 200,
      exit_price: 180,
      percentage_gain: 10,
      exit_date: iso(t0 + 5 * MIN),
      entry_date: iso(t0),
      status: 'CLOSED',
      close_reason: 'manual',
      user_id: a,
      username: aName,
    });
    assert.equal(items[1]!.status, 'CANCELLED');
    assert.equal(items[1]!.exit_price, 50, 'a cancelled bet exits at its entry');
    assert.equal(items[1]!.percentage_gain, 0);
    assert.equal(items[1]!.exit_date, iso(t0 + 3 * MIN), 'at the cancel time');
    assert.equal(items[2]!.status, 'OPEN');
    assert.equal(items[2]!.exit_price, 110, 'an open bet is marked to market');
    assert.ok(Math.abs((items[2]!.percentage_gain as number) - 10) < 1e-9);
    assert.equal(items[2]!.exit_date, iso(t.clock.now()), 'at the time of the mark');
    assertNoPrivateFields(items);
  });

  test('an open bet with no price to be had is shown at its entry, and the feed still answers', async () => {
    const me = await registerAndLogin(t.app);
    const a = await insertTestUser(t.ctx, uniqueName('a'));
    await insertTestBets(t.ctx, [{ userId: a, ticker: 'NOQUOTE', entry: 7, openedAt: t.clock.now() - MIN }]);
    await follow(me, a);
    prices.failing.add('NOQUOTE');
    try {
      const [item] = await getFeed(me);
      assert.equal(item!.status, 'OPEN');
      assert.equal(item!.exit_price, 7);
      assert.equal(item!.percentage_gain, 0);
    } finally {
      prices.failing.delete('NOQUOTE');
    }
  });

  test('paged by limit and offset (default 100), newest first', async () => {
    const me = await registerAndLogin(t.app);
    const a = await insertTestUser(t.ctx, uniqueName('a'));
    const b = await insertTestUser(t.ctx, uniqueName('b'));
    const t0 = t.clock.now() - 1000 * MIN;
    const rows = await insertTestBets(
      t.ctx,
      Array.from({ length: 105 }, (_, i) => ({
        userId: i % 2 ? a : b,
        openedAt: t0 + i * MIN,
        end: { status: 'CLOSED' as const, at: t0 + i * MIN + 1, exit: 101, gain: 1 },
      })),
    );
    await follow(me, a);
    await follow(me, b);
    const newestFirst = rows.map((r) => r.id).reverse();
    const all = await getFeed(me);
    assert.deepEqual(
      all.map((i) => i.id),
      newestFirst.slice(0, 100),
    );
    const page = await getFeed(me, '?limit=7&offset=98');
    assert.deepEqual(
      page.map((i) => i.id),
      newestFirst.slice(98, 105),
    );
    assert.deepEqual(await getFeed(me, '?offset=105'), []);
    assert.deepEqual((await getFeed(me, '?limit=500')).length, 105);
  });

  test('equal event times are ordered by the newer bet first', async () => {
    const me = await registerAndLogin(t.app);
    const a = await insertTestUser(t.ctx, uniqueName('a'));
    const b = await insertTestUser(t.ctx, uniqueName('b'));
    const at = t.clock.now() - 5 * MIN;
    const rows = await insertTestBets(t.ctx, [
      { userId: a, openedAt: at },
      { userId: b, openedAt: at },
      { userId: a, openedAt: at },
    ]);
    await follow(me, a);
    await follow(me, b);
    assert.deepEqual(
      (await getFeed(me)).map((i) => i.id),
      rows.map((r) => r.id).reverse(),
    );
  });

  test('bad limit or offset → 400 Error', async () => {
    const me = await registerAndLogin(t.app);
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=10001', 'offset=x', 'extra=1']) {
      const res = await t.app.inject({ method: 'GET', url: `/feed?${q}`, headers: { cookie: me.cookie } });
      assert.equal(res.statusCode, 400, q);
      assert.deepEqual(Object.keys(res.json()), ['error'], q);
    }
  });

  test('following nobody → []; 401 without a session', async () => {
    const me = await registerAndLogin(t.app);
    assert.deepEqual(await getFeed(me), []);
    const res = await t.app.inject({ method: 'GET', url: '/feed' });
    assert.equal(res.statusCode, 401);
  });

  test('unfollowed and deleted users leave the feed', async () => {
    const me = await registerAndLogin(t.app);
    const a = await insertTestUser(t.ctx, uniqueName('a'));
    const b = await insertTestUser(t.ctx, uniqueName('b'));
    await insertTestBets(t.ctx, [
      { userId: a, openedAt: t.clock.now() - MIN },
      { userId: b, openedAt: t.clock.now() - MIN },
    ]);
    await follow(me, a);
    await follow(me, b);
    assert.equal((await getFeed(me)).length, 2);
    await t.app.inject({ method: 'POST', url: '/follow', payload: { followed_id: a, action: 'unfollow' }, headers: { cookie: me.cookie } });
    assert.deepEqual(
      (await getFeed(me)).map((i) => i.user_id),
      [b],
    );
    await deleteTestUser(t.ctx, b);
    assert.deepEqual(await getFeed(me), []);
  });

  test('many followed users, read in groups and merged, give the same page as one query', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => insertTestUser(t.ctx, uniqueName('m'))));
    const t0 = t.clock.now() - 500 * MIN;
    await insertTestBets(
      t.ctx,
      Array.from({ length: 40 }, (_, i) => ({ userId: users[(i * 7) % 5]!, openedAt: t0 + ((i * 13) % 17) * MIN })),
    );
    for (const page of [
      { limit: 100, offset: 0 },
      { limit: 6, offset: 3 },
      { limit: 10, offset: 35 },
    ]) {
      const whole = await listFeed(t.ctx.db, users, page);
      const grouped = await listFeed(t.ctx.db, users, page, 2);
      assert.deepEqual(
        grouped.map((r) => r.id),
        whole.map((r) => r.id),
        JSON.stringify(page),
      );
      assert.equal(whole.length, Math.min(page.limit, 40 - page.offset));
    }
  });

  test('through the bet lifecycle: open, then cancel or close, stays one item in its current state', async () => {
    const me = await registerAndLogin(t.app);
    const trader = await registerAndLogin(t.app, 'tr');
    await follow(me, trader.id);
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, payload, headers: { cookie: trader.cookie } });

    prices.set('AAPL', 100);
    const opened = await post('/bet/open', { ticker: 'AAPL', direction: 'LONG' });
    assert.equal(opened.statusCode, 200, opened.body);
    const betId = opened.json().bet_id;
    let items = await getFeed(me);
    assert.deepEqual(
      items.map((i) => [i.id, i.status]),
      [[betId, 'OPEN']],
    );

    t.clock.advance(MIN);
    const cancelAt = t.clock.now();
    const cancelled = await t.app.inject({ method: 'DELETE', url: `/bet/${betId}`, headers: { cookie: trader.cookie } });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    items = await getFeed(me);
    assert.equal(items.length, 1);
    assert.equal(items[0]!.status, 'CANCELLED');
    assert.equal(items[0]!.exit_price, items[0]!.entry_price);
    assert.equal(items[0]!.percentage_gain, 0);
    assert.equal(items[0]!.exit_date, iso(cancelAt));

    t.clock.advance(MIN);
    const second = (await post('/bet/open', { ticker: 'AAPL', direction: 'SHORT' })).json().bet_id;
    t.clock.advance(10 * MIN);
    prices.set('AAPL', 90);
    const closed = await post('/bet/close', { bet_id: second });
    assert.equal(closed.statusCode, 200, closed.body);
    items = await getFeed(me);
    assert.deepEqual(
      items.map((i) => [i.id, i.status]),
      [
        [second, 'CLOSED'],
        [betId, 'CANCELLED'],
      ],
      'the close is the latest event',
    );
    assert.equal(items[0]!.exit_price, 90);
    assert.ok(Math.abs((items[0]!.percentage_gain as number) - 10) < 1e-9);
    assert.equal(items[0]!.username, trader.username);
  });
});
