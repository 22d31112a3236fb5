import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp, uniqueName } from '../helpers/app.js';
import { insertTestBets } from '../helpers/bet-rows.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { assertNoPrivateFields, deleteTestUser, insertTestUser, setExtraSlots } from '../helpers/users.js';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

forEachDialect('public profiles', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 120, MSFT: 400 });
  before(async () => {
    t = await createTestApp(dialect, { config: { prices: { ...testConfig().prices, cacheTtlMs: 0 } }, deps: { prices } });
  });
  after(() => t.close());

  const profile = (id: number | string, query = '', cookie?: string) =>
    t.app.inject({ method: 'GET', url: `/user/${id}/public${query}`, headers: cookie ? { cookie } : {} });

  async function trader() {
    const name = uniqueName('p');
    const id = await insertTestUser(t.ctx, name);
    await setExtraSlots(t.ctx, id, 3);
    const now = t.clock.now();
    const [fresh, old, closed, cancelled, closedLater] = await insertTestBets(t.ctx, [
      { userId: id, ticker: 'AAPL', direction: 'LONG', entry: 100, openedAt: now - 2 * MIN },
      { userId: id, ticker: 'MSFT', direction: 'SHORT', entry: 500, openedAt: now - 60 * MIN },
      { userId: id, ticker: 'MSFT', entry: 100, openedAt: now - 300 * MIN, end: { status: 'CLOSED', at: now - 200 * MIN, exit: 110, gain: 10 } },
      { userId: id, ticker: 'AAPL', entry: 90, openedAt: now - 150 * MIN, end: { status: 'CANCELLED', at: now - 148 * MIN } },
      { userId: id, ticker: 'AAPL', entry: 80, openedAt: now - 120 * MIN, end: { status: 'CLOSED', at: now - 100 * MIN, exit: 60, gain: -25 } },
    ]);
    return { id, name, now, fresh: fresh!, old: old!, closed: closed!, cancelled: cancelled!, closedLater: closedLater! };
  }

  test('200 without a session: PublicUser, open bets marked to market, finished bets newest first, their total', async () => {
    const p = await trader();
    const res = await profile(p.id);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['history', 'history_total', 'portfolio', 'user']);
    assert.deepEqual(body.user, { id: p.id, username: p.name });
    assert.equal(body.history_total, 3);

    const byId = new Map(body.portfolio.map((b: { id: number }) => [b.id, b]));
    assert.equal(body.portfolio.length, 2);
    assert.deepEqual(byId.get(p.fresh.id), {
      id: p.fresh.id,
      ticker: 'AAPL',
      direction: 'LONG',
      entry: 100,
      current: 120,
      unrealized_gain: 20,
      target_date: null,
      entry_date: iso(p.now - 2 * MIN),
      cancelable_until: iso(p.now + 3 * MIN),
    });
    const old = byId.get(p.old.id) as Record<string, unknown>;
    assert.equal(old.cancelable_until, null, 'the window has passed');
    assert.equal(old.current, 400);
    assert.equal(old.unrealized_gain, 20, 'SHORT gains when the price falls');

    assert.deepEqual(
      body.history.map((b: { id: number }) => b.id),
      [p.closedLater.id, p.cancelled.id, p.closed.id],
    );
    assert.deepEqual(body.history[0], {
      id: p.closedLater.id,
      ticker: 'AAPL',
      direction: 'LONG',
      entry_price: 80,
      exit_price: 60,
      percentage_gain: -25,
      exit_date: iso(p.now - 100 * MIN),
      entry_date: iso(p.now - 120 * MIN),
      status: 'CLOSED',
      close_reason: 'manual',
    });
    assert.equal(body.history[1].status, 'CANCELLED');
    assert.equal(body.history[1].close_reason, 'cancel');
    assert.equal(body.history[1].exit_price, 90);
    assert.equal(body.history[1].percentage_gain, 0);
    assertNoPrivateFields(body);
  });

  test('a session changes nothing: the same public view, never the account', async () => {
    const viewer = await registerAndLogin(t.app);
    const mine = await profile(viewer.id, '', viewer.cookie);
    assert.equal(mine.statusCode, 200);
    assert.deepEqual(mine.json(), { user: { id: viewer.id, username: viewer.username }, portfolio: [], history: [], history_total: 0 });
    assertNoPrivateFields(mine.json());
  });

  test('history is paged by limit and offset; history_total does not depend on the page', async () => {
    const p = await trader();
    const page = (await profile(p.id, '?limit=1&offset=1')).json();
    assert.deepEqual(
      page.history.map((b: { id: number }) => b.id),
      [p.cancelled.id],
    );
    assert.equal(page.history_total, 3);
    assert.equal(page.portfolio.length, 2, 'the portfolio is not paged');
    const past = (await profile(p.id, '?offset=3')).json();
    assert.deepEqual(past.history, []);
    assert.equal(past.history_total, 3);
  });

  test('unknown or deleted ids → 404 Error; ids no user can have → 400 Error', async () => {
    const gone = await insertTestUser(t.ctx, uniqueName('g'));
    await deleteTestUser(t.ctx, gone);
    for (const [id, status] of [
      [987654321, 404],
      [gone, 404],
      // Ids are safe integers from 1 (issue 22).
      [0, 400],
      [-1, 400],
      ['100000000000000000000', 400],
    ] as const) {
      const res = await profile(id);
      assert.equal(res.statusCode, status, String(id));
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
  });

  test('non-integer id or bad limit/offset → 400 Error', async () => {
    const p = await trader();
    const bad: Array<[string | number, string]> = [
      ['abc', ''],
      ['1.5', ''],
      ['1e', ''],
      [p.id, '?limit=0'],
      [p.id, '?limit=501'],
      [p.id, '?limit=ten'],
      [p.id, '?offset=-1'],
      [p.id, '?offset=10001'],
      [p.id, '?other=1'],
    ];
    for (const [id, q] of bad) {
      const res = await profile(id, q);
      assert.equal(res.statusCode, 400, `${id}${q}`);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
  });

  test('a price outage does not fail the profile: open bets show their last known price', async () => {
    const p = await trader();
    await profile(p.id);
    prices.failing.add('*');
    try {
      const res = await profile(p.id);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().portfolio.find((b: { id: number }) => b.id === p.fresh.id).current, 120);
    } finally {
      prices.failing.delete('*');
    }
  });
});
