// Prices, the bet lifecycle, portfolio, history and leaderboard through HTTP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BetEvent } from '../../src/services/events.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const MIN = 60_000;

forEachDialect('trading', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider();
  const events: BetEvent[] = [];
  before(async () => {
    t = await createTestApp(dialect, {
      deps: { prices },
      config: { capacities: { baseBets: 3, baseFollows: 5 }, prices: { ...testPrices(), cacheTtlMs: 0 } },
    });
    t.ctx.events.inTransaction('betChanged', async (_trx, e) => {
      events.push(e);
    });
  });
  after(() => t.close());

  function testPrices() {
    return { provider: 'simulated' as const, finnhubApiKey: null, finnhubApiUrl: 'http://127.0.0.1:1', cacheTtlMs: 0, timeoutMs: 1000 };
  }
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, user?: TestUser, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as object, headers: user ? { cookie: user.cookie } : {} });
  const open = async (user: TestUser, body: Record<string, unknown>) => {
    const res = await call('POST', '/bet/open', user, body);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id as number;
  };
  const keys = (o: object) => Object.keys(o).sort();

  test('GET /price/{ticker}: 200 upper-cased; 400 badly formed; 404 unknown; 401; 503 with Retry-After', async () => {
    const u = await registerAndLogin(t.app);
    const ok = await call('GET', '/price/aapl', u);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { ticker: 'AAPL', price: 100 });
    assert.equal((await call('GET', '/price/btc-usd', u)).json().ticker, 'BTC-USD');
    for (const bad of ['-X', 'A'.repeat(16), 'AA%20PL', 'A$']) {
      const res = await call('GET', `/price/${bad}`, u);
      assert.equal(res.statusCode, 400, bad);
      assert.deepEqual(keys(res.json()), ['error']);
    }
    const unknown = await call('GET', '/price/NOPE', u);
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(keys(unknown.json()), ['error']);
    assert.equal((await call('GET', '/price/AAPL')).statusCode, 401);
    prices.failing.add('SPY');
    try {
      const down = await call('GET', '/price/SPY', u);
      assert.equal(down.statusCode, 503);
      assert.match(String(down.headers['retry-after']), /^\d+$/);
      assert.deepEqual(keys(down.json()), ['error']);
    } finally {
      prices.failing.delete('SPY');
    }
  });

  test('POST /bet/open: 200 at the server price, ticker normalised, event emitted in the transaction', async () => {
    const u = await registerAndLogin(t.app);
    const res = await call('POST', '/bet/open', u, { ticker: 'msft', direction: 'SHORT' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(keys(body), ['bet_id', 'entry_price', 'message']);
    assert.equal(body.entry_price, 400);
    const e = events.find((x) => x.bet.id === body.bet_id);
    assert.equal(e?.kind, 'opened');
    assert.equal(e?.bet.ticker, 'MSFT');
    assert.equal(e?.bet.status, 'OPEN');
  });

  test('POST /bet/open: 400 for bad direction, dates, tickers, fields; today allowed', async () => {
    const u = await registerAndLogin(t.app);
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    const bad: Array<[string, unknown]> = [
      ['direction', { ticker: 'AAPL', direction: 'UP' }],
      ['lower-case direction', { ticker: 'AAPL', direction: 'long' }],
      ['missing direction', { ticker: 'AAPL' }],
      ['missing ticker', { direction: 'LONG' }],
      ['badly formed ticker', { ticker: '$AAPL', direction: 'LONG' }],
      ['ticker too long', { ticker: 'A'.repeat(16), direction: 'LONG' }],
      ['ticker not a string', { ticker: 7, direction: 'LONG' }],
      ['past target_date', { ticker: 'AAPL', direction: 'LONG', target_date: '2026-03-01' }],
      ['impossible date', { ticker: 'AAPL', direction: 'LONG', target_date: '2026-02-30' }],
      ['date-time, not date', { ticker: 'AAPL', direction: 'LONG', target_date: `${today}T20:00:00Z` }],
      ['client price', { ticker: 'AAPL', direction: 'LONG', entry_price: 1 }],
      ['unknown field', { ticker: 'AAPL', direction: 'LONG', leverage: 10 }],
    ];
    for (const [why, body] of bad) {
      const res = await call('POST', '/bet/open', u, body);
      assert.equal(res.statusCode, 400, why);
      assert.deepEqual(keys(res.json()), ['error'], why);
    }
    const ok = await call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG', target_date: today });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('POST /bet/open: 404 unknown ticker, 401 without session, 503 with Retry-After when prices are down', async () => {
    const u = await registerAndLogin(t.app);
    // Down before any request asks for SPY: the unknown ticker's open fetches SPY beside it (its benchmark), and a
    // publication still in flight (its quote being logged) would be shared by the next request for SPY.
    prices.failing.add('SPY');
    try {
      const unknown = await call('POST', '/bet/open', u, { ticker: 'NOPE', direction: 'LONG' });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(keys(unknown.json()), ['error']);
      assert.equal((await call('POST', '/bet/open', undefined, { ticker: 'AAPL', direction: 'LONG' })).statusCode, 401);
      const down = await call('POST', '/bet/open', u, { ticker: 'SPY', direction: 'LONG' });
      assert.equal(down.statusCode, 503);
      assert.match(String(down.headers['retry-after']), /^\d+$/);
      assert.deepEqual(keys(down.json()), ['error']);
    } finally {
      prices.failing.delete('SPY');
    }
    const portfolio = await call('GET', '/portfolio', u);
    assert.deepEqual(portfolio.json(), []);
  });

  test('POST /bet/open: 403 LIMIT_REACHED at bet_capacity; closing one frees a slot', async () => {
    const u = await registerAndLogin(t.app);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await open(u, { ticker: 'AAPL', direction: 'LONG' }));
    const res = await call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG' });
    assert.equal(res.statusCode, 403);
    const body = res.json();
    assert.deepEqual(keys(body), ['error', 'limit', 'message']);
    assert.equal(body.error, 'LIMIT_REACHED');
    assert.equal(body.limit, 3);
    assert.equal((await call('POST', '/bet/close', u, { bet_id: ids[0] })).statusCode, 200);
    await open(u, { ticker: 'AAPL', direction: 'LONG' });
  });

  test('a failing bet-event listener rolls the open back (and the bet is not remembered as open)', async () => {
    const u = await registerAndLogin(t.app);
    let fail = true;
    let failedBet = 0;
    t.ctx.events.inTransaction('betChanged', async (_trx, e) => {
      if (fail && e.bet.user_id === u.id) {
        failedBet = e.bet.id;
        throw new Error('listener failed');
      }
    });
    const res = await call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG' });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: 'Internal server error' });
    fail = false;
    assert.deepEqual((await call('GET', '/portfolio', u)).json(), []);
    assert.ok(failedBet > 0);
  });

  test('POST /bet/close: LONG and SHORT gains, exit price, leaderboard', async () => {
    const u = await registerAndLogin(t.app);
    const long = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    const short = await open(u, { ticker: 'MSFT', direction: 'SHORT' });
    prices.set('AAPL', 110);
    prices.set('MSFT', 380);
    try {
      t.clock.advance(MIN);
      const a = await call('POST', '/bet/close', u, { bet_id: long });
      assert.equal(a.statusCode, 200);
      assert.deepEqual(a.json(), { message: a.json().message, ticker: 'AAPL', gain_percent: 10, exit_price: 110 });
      const b = await call('POST', '/bet/close', u, { bet_id: short });
      assert.equal(b.json().gain_percent, 5);
      assert.equal(b.json().exit_price, 380);
    } finally {
      prices.set('AAPL', 100);
      prices.set('MSFT', 400);
    }
    const board = (await call('GET', '/leaderboard')).json() as Array<{ id: number; total_score: number; total_trades: number }>;
    const me = board.find((x) => x.id === u.id);
    assert.deepEqual(me, { id: u.id, username: u.username, total_score: 15, total_trades: 2 });
    assert.deepEqual(
      events.filter((e) => e.bet.user_id === u.id).map((e) => e.kind),
      ['opened', 'opened', 'closed', 'closed'],
    );
  });

  test("POST /bet/close: 400 missing, another user's, closed or cancelled bet; 400 bad body; 401", async () => {
    const u = await registerAndLogin(t.app);
    const other = await registerAndLogin(t.app);
    const theirs = await open(other, { ticker: 'AAPL', direction: 'LONG' });
    const closed = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    await call('POST', '/bet/close', u, { bet_id: closed });
    const cancelled = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    await call('DELETE', `/bet/${cancelled}`, u);
    for (const [why, body] of [
      ['missing', { bet_id: 99_999_999 }],
      ['not owned', { bet_id: theirs }],
      ['already closed', { bet_id: closed }],
      ['cancelled', { bet_id: cancelled }],
      ['string id', { bet_id: String(closed) }],
      ['extra field', { bet_id: closed, price: 1 }],
      ['no id', {}],
    ] as const) {
      const res = await call('POST', '/bet/close', u, body);
      assert.equal(res.statusCode, 400, why);
      assert.deepEqual(keys(res.json()), ['error'], why);
    }
    assert.equal((await call('POST', '/bet/close', undefined, { bet_id: theirs })).statusCode, 401);
    const stillOpen = (await call('GET', '/portfolio', other)).json();
    assert.equal(stillOpen.length, 1, "another user's bet was not touched");
  });

  test('POST /bet/close: 500 when the price cannot be fetched; the bet stays OPEN', async () => {
    const u = await registerAndLogin(t.app);
    const id = await open(u, { ticker: 'SPY', direction: 'LONG' });
    prices.failing.add('SPY');
    try {
      const res = await call('POST', '/bet/close', u, { bet_id: id });
      assert.equal(res.statusCode, 500);
      assert.deepEqual(keys(res.json()), ['error']);
    } finally {
      prices.failing.delete('SPY');
    }
    const portfolio = (await call('GET', '/portfolio', u)).json();
    assert.deepEqual(
      portfolio.map((b: { id: number }) => b.id),
      [id],
    );
    assert.equal((await call('POST', '/bet/close', u, { bet_id: id })).statusCode, 200);
  });

  test('POST /bet/close of a bet ended elsewhere (another instance): 400, nothing counted', async () => {
    const u = await registerAndLogin(t.app);
    const id = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    // Another instance cancels it: this process never hears of it.
    await t.ctx.db
      .updateTable('bets')
      .set({ status: 'CANCELLED', exit_price: 100, percentage_gain: 0, closed_at: Date.now(), close_reason: 'cancel' })
      .where('id', '=', id)
      .execute();
    const res = await call('POST', '/bet/close', u, { bet_id: id });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'Bet is not open');
    const row = await t.ctx.db.selectFrom('bets').select(['status', 'close_reason']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'CANCELLED', close_reason: 'cancel' });
    const board = (await call('GET', '/leaderboard')).json() as Array<{ id: number }>;
    assert.ok(!board.some((r) => r.id === u.id), 'no trade counted');
  });

  test('DELETE /bet/{id}: 4:59 after opening allowed, kept in history at 0 %, never on the leaderboard', async () => {
    const u = await registerAndLogin(t.app);
    const id = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    prices.set('AAPL', 150);
    try {
      t.clock.advance(4 * MIN + 59_000);
      const res = await call('DELETE', `/bet/${id}`, u);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { message: res.json().message, bet_id: id });
    } finally {
      prices.set('AAPL', 100);
    }
    const hist = (await call('GET', '/history', u)).json();
    assert.equal(hist.length, 1);
    assert.equal(hist[0].status, 'CANCELLED');
    assert.equal(hist[0].percentage_gain, 0);
    assert.equal(hist[0].exit_price, hist[0].entry_price);
    assert.equal(hist[0].exit_date, new Date(t.clock.now()).toISOString());
    const board = (await call('GET', '/leaderboard')).json() as Array<{ id: number }>;
    assert.equal(
      board.some((x) => x.id === u.id),
      false,
    );
    assert.equal(events.find((e) => e.bet.id === id && e.kind === 'cancelled')?.bet.status, 'CANCELLED');
  });

  test('DELETE /bet/{id}: 5:01 after opening → 403 {error, message}; the bet stays open', async () => {
    const u = await registerAndLogin(t.app);
    const id = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    t.clock.advance(5 * MIN + 1000);
    const res = await call('DELETE', `/bet/${id}`, u);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(keys(res.json()), ['error', 'message']);
    assert.match(res.json().message, /close/i);
    assert.equal((await call('GET', '/portfolio', u)).json().length, 1);
  });

  test("DELETE /bet/{id}: 404 missing or another user's; 400 closed or cancelled; 400 bad id; 401", async () => {
    const u = await registerAndLogin(t.app);
    const other = await registerAndLogin(t.app);
    const theirs = await open(other, { ticker: 'AAPL', direction: 'LONG' });
    for (const url of ['/bet/99999999', `/bet/${theirs}`]) {
      const res = await call('DELETE', url, u);
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(keys(res.json()), ['error']);
    }
    const closed = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    await call('POST', '/bet/close', u, { bet_id: closed });
    const cancelled = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    await call('DELETE', `/bet/${cancelled}`, u);
    for (const id of [closed, cancelled]) {
      const res = await call('DELETE', `/bet/${id}`, u);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(keys(res.json()), ['error']);
    }
    assert.equal((await call('DELETE', '/bet/abc', u)).statusCode, 400);
    assert.equal((await call('DELETE', `/bet/${theirs}`)).statusCode, 401);
  });

  test("GET /portfolio: the caller's OPEN bets with all nine fields, marked to market", async () => {
    const u = await registerAndLogin(t.app);
    const a = await open(u, { ticker: 'AAPL', direction: 'LONG', target_date: '2026-12-31' });
    const b = await open(u, { ticker: 'MSFT', direction: 'SHORT' });
    const openedAt = t.clock.now();
    prices.set('AAPL', 120);
    try {
      const res = await call('GET', '/portfolio', u);
      assert.equal(res.statusCode, 200);
      const rows = res.json() as Array<Record<string, unknown>>;
      assert.deepEqual(rows.map((r) => r.id).sort(), [a, b].sort());
      const ra = rows.find((r) => r.id === a) as Record<string, unknown>;
      assert.deepEqual(ra, {
        id: a,
        ticker: 'AAPL',
        direction: 'LONG',
        entry: 100,
        current: 120,
        unrealized_gain: 20,
        target_date: '2026-12-31',
        entry_date: new Date(openedAt).toISOString(),
        cancelable_until: new Date(openedAt + 5 * MIN).toISOString(),
      });
      const rb = rows.find((r) => r.id === b) as Record<string, unknown>;
      assert.equal(rb.target_date, null);
      assert.equal(rb.unrealized_gain, 0);
      t.clock.advance(5 * MIN + 1);
      const later = (await call('GET', '/portfolio', u)).json() as Array<Record<string, unknown>>;
      assert.ok(later.every((r) => r.cancelable_until === null));
      assert.equal((await call('GET', '/portfolio')).statusCode, 401);
    } finally {
      prices.set('AAPL', 100);
    }
  });

  test('GET /portfolio: the last known price when the provider fails', async () => {
    const u = await registerAndLogin(t.app);
    await open(u, { ticker: 'SPY', direction: 'LONG' });
    prices.set('SPY', 550);
    await call('GET', '/price/SPY', u);
    prices.failing.add('SPY');
    try {
      const rows = (await call('GET', '/portfolio', u)).json();
      assert.equal(rows[0].current, 550);
      assert.equal(rows[0].unrealized_gain, 10);
    } finally {
      prices.failing.delete('SPY');
      prices.set('SPY', 500);
    }
  });

  test('GET /history: newest exit first with status; limit/offset paging and bounds', async () => {
    const u = await registerAndLogin(t.app);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await open(u, { ticker: 'AAPL', direction: 'LONG' });
      t.clock.advance(1000);
      if (i === 2) await call('DELETE', `/bet/${id}`, u);
      else await call('POST', '/bet/close', u, { bet_id: id });
      ids.push(id);
    }
    await open(u, { ticker: 'AAPL', direction: 'LONG' }); // OPEN: never in history
    const all = (await call('GET', '/history', u)).json() as Array<{ id: number; status: string }>;
    assert.deepEqual(
      all.map((b) => b.id),
      [...ids].reverse(),
    );
    assert.deepEqual(
      all.map((b) => b.status),
      ['CLOSED', 'CLOSED', 'CANCELLED', 'CLOSED', 'CLOSED'],
    );
    for (const b of all) {
      for (const k of ['id', 'ticker', 'direction', 'entry_price', 'exit_price', 'percentage_gain', 'exit_date', 'entry_date']) {
        assert.ok(k in b, k);
      }
    }
    const page = (await call('GET', '/history?limit=2&offset=1', u)).json() as Array<{ id: number }>;
    assert.deepEqual(
      page.map((b) => b.id),
      [ids[3], ids[2]],
    );
    assert.equal((await call('GET', '/history?limit=500&offset=10000', u)).statusCode, 200);
    assert.equal((await call('GET', '/history?limit=1&offset=0', u)).json().length, 1);
    for (const q of ['limit=0', 'limit=501', 'limit=-1', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=10001', 'offset=x', 'other=1']) {
      const res = await call('GET', `/history?${q}`, u);
      assert.equal(res.statusCode, 400, q);
      assert.deepEqual(keys(res.json()), ['error'], q);
    }
    assert.equal((await call('GET', '/history')).statusCode, 401);
    const other = await registerAndLogin(t.app);
    assert.deepEqual((await call('GET', '/history', other)).json(), [], "nobody sees another's history here");
  });

  test('GET /leaderboard: public, ordered by score, then trades, then id; cancelled bets excluded', async () => {
    const [a, b, c, d] = [
      await registerAndLogin(t.app, 'lb'),
      await registerAndLogin(t.app, 'lb'),
      await registerAndLogin(t.app, 'lb'),
      await registerAndLogin(t.app, 'lb'),
    ];
    const closeAt = async (u: TestUser, entry: number, exit: number) => {
      prices.set('AAPL', entry);
      const id = await open(u, { ticker: 'AAPL', direction: 'LONG' });
      prices.set('AAPL', exit);
      assert.equal((await call('POST', '/bet/close', u, { bet_id: id })).statusCode, 200);
    };
    try {
      await closeAt(a, 100, 1000); // +900
      await closeAt(b, 100, 600); // +500 in one trade
      await closeAt(c, 100, 350); // +250
      await closeAt(c, 100, 350); // +250: 500 in two trades, above b
      prices.set('AAPL', 100);
      const cancelled = await open(d, { ticker: 'AAPL', direction: 'LONG' });
      await call('DELETE', `/bet/${cancelled}`, d);
    } finally {
      prices.set('AAPL', 100);
    }
    const res = await call('GET', '/leaderboard');
    assert.equal(res.statusCode, 200);
    const board = res.json() as Array<{ id: number; username: string; total_score: number; total_trades: number }>;
    assert.ok(board.length <= 100);
    for (const row of board) assert.deepEqual(keys(row), ['id', 'total_score', 'total_trades', 'username']);
    for (let i = 1; i < board.length; i++) {
      const [p, q] = [board[i - 1], board[i]];
      assert.ok(
        p.total_score > q.total_score ||
          (p.total_score === q.total_score && (p.total_trades > q.total_trades || (p.total_trades === q.total_trades && p.id < q.id))),
        `order at ${i}`,
      );
    }
    const ours = board.filter((r) => [a.id, b.id, c.id, d.id].includes(r.id));
    assert.deepEqual(
      ours.map((r) => r.id),
      [a.id, c.id, b.id],
    );
    assert.deepEqual(ours[1], { id: c.id, username: c.username, total_score: 500, total_trades: 2 });
  });
});
