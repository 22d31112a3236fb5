// Concurrent requests on one user's bets: capacity, double close, close
// against cancel. On PostgreSQL the requests run on separate connections.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

forEachDialect('trading races', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 3, baseFollows: 5 } } });
  });
  after(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, user: TestUser, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as object, headers: { cookie: user.cookie } });
  const codes = (rs: Array<{ statusCode: number }>) => rs.map((r) => r.statusCode).sort();

  /** Runs requests together: the price provider holds them until all are in flight. */
  async function together<T>(fns: Array<() => Promise<T>>): Promise<T[]> {
    prices.hold();
    const all = Promise.all(fns.map((f) => f()));
    await new Promise((r) => setTimeout(r, 20));
    prices.unhold();
    return all;
  }

  async function leaderboardRow(userId: number) {
    const board = (await t.app.inject({ method: 'GET', url: '/leaderboard' })).json() as Array<{ id: number; total_trades: number }>;
    return board.find((r) => r.id === userId);
  }

  test('parallel opens at capacity: never more OPEN bets than bet_capacity', async () => {
    const u = await registerAndLogin(t.app);
    await call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG' });
    const results = await together(Array.from({ length: 8 }, () => () => call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG' })));
    assert.deepEqual(codes(results), [200, 200, 403, 403, 403, 403, 403, 403]);
    assert.equal((await call('GET', '/portfolio', u)).json().length, 3);
  });

  test('two users at once do not block each other\'s capacity', async () => {
    const [a, b] = [await registerAndLogin(t.app), await registerAndLogin(t.app)];
    const results = await together(
      [a, b, a, b, a, b].map((u) => () => call('POST', '/bet/open', u, { ticker: 'MSFT', direction: 'SHORT' })),
    );
    assert.deepEqual(codes(results), [200, 200, 200, 200, 200, 200]);
  });

  test('concurrent closes of one bet: exactly one succeeds, counted once', async () => {
    const u = await registerAndLogin(t.app);
    const id = (await call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG' })).json().bet_id;
    const results = await together(Array.from({ length: 6 }, () => () => call('POST', '/bet/close', u, { bet_id: id })));
    assert.deepEqual(codes(results), [200, 400, 400, 400, 400, 400]);
    assert.equal((await leaderboardRow(u.id))?.total_trades, 1);
    assert.equal((await call('GET', '/history', u)).json().length, 1);
  });

  test('a close and a cancel racing on one bet: exactly one wins, and the state agrees with it', async () => {
    for (let round = 0; round < 4; round++) {
      const u = await registerAndLogin(t.app);
      const id = (await call('POST', '/bet/open', u, { ticker: 'AAPL', direction: 'LONG' })).json().bet_id;
      const racers = [() => call('POST', '/bet/close', u, { bet_id: id }), () => call('DELETE', `/bet/${id}`, u)];
      // Held: the close reads the bet OPEN, waits for its price while the cancel commits. Free: they interleave.
      const [close, cancel] = round % 2 === 0 ? await together(racers) : await Promise.all(racers.map((f) => f()));
      const winners = [close.statusCode, cancel.statusCode].filter((c) => c === 200);
      assert.equal(winners.length, 1, `round ${round}: close ${close.statusCode} ${close.body}, cancel ${cancel.statusCode} ${cancel.body}`);
      assert.equal(close.statusCode === 200 ? cancel.statusCode : close.statusCode, 400);
      const [bet] = (await call('GET', '/history', u)).json();
      assert.equal(bet.status, close.statusCode === 200 ? 'CLOSED' : 'CANCELLED');
      assert.equal((await leaderboardRow(u.id)) !== undefined, close.statusCode === 200);
    }
  });
});
