import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { NewBet } from '../../src/db/tables.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp } from '../helpers/app.js';
import { explain } from '../helpers/explain.js';
import { closedBetsQuery } from '../../src/repositories/stats.js';

forEachDialect('trader statistics endpoint', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const H = 3_600_000;
  const row = (userId: number, over: Partial<NewBet>): NewBet => ({
    user_id: userId,
    ticker: 'AAPL',
    direction: 'LONG',
    status: 'CLOSED',
    entry_price: 100,
    exit_price: 100,
    percentage_gain: 0,
    target_date: null,
    settle_at: null,
    opened_at: 0,
    closed_at: H,
    last_event_at: H,
    close_reason: 'user',
    source_bet_id: null,
    source_kind: null,
    ...over,
  });

  test('statistics match a hand-computed example, with the cancel rate and how tailers fared', async () => {
    const u = await registerAndLogin(t.app);
    const follower = await registerAndLogin(t.app);
    // Ranked gains (committed price to exit) differ from the raw ones by a point: the scored figures must follow the ranked.
    const gains = [10, -4, 6, -15, 3];
    const ids: number[] = [];
    for (const [i, g] of gains.entries()) {
      const r = await t.ctx.db
        .insertInto('bets')
        .values(
          row(u.id, {
            percentage_gain: g + 1,
            committed_price: 100,
            ranked_gain: g,
            opened_at: i * H,
            closed_at: (i + 1) * H,
            last_event_at: (i + 1) * H,
          }),
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(r.id);
    }
    await t.ctx.db
      .insertInto('bets')
      .values([
        // Closed 30 s after opening, between the 2nd and 3rd exits: raw only, an early close, never on the curve.
        row(u.id, { percentage_gain: 20, opened_at: 2 * H + 60_000, closed_at: 2 * H + 90_000, last_event_at: 2 * H + 90_000 }),
        row(u.id, { status: 'CANCELLED', percentage_gain: 0 }),
        row(u.id, { status: 'OPEN', exit_price: null, percentage_gain: null, closed_at: null }),
        row(follower.id, { source_bet_id: ids[0], source_kind: 'tail', percentage_gain: 8 }),
        row(follower.id, { source_bet_id: ids[1], source_kind: 'tail', status: 'OPEN', exit_price: null, percentage_gain: null, closed_at: null }),
        row(follower.id, { source_bet_id: ids[2], source_kind: 'fade', percentage_gain: -6 }),
      ])
      .execute();

    const res = await t.app.inject({ method: 'GET', url: `/user/${u.id}/stats` });
    assert.equal(res.statusCode, 200);
    const s = res.json();
    assert.equal(s.closed_trades, 6);
    assert.equal(s.ranked_trades, 5);
    assert.equal(s.opened_trades, 8);
    assert.equal(s.open_trades, 1);
    assert.equal(s.cancelled_trades, 1);
    assert.equal(s.wins, 3);
    assert.equal(s.win_rate, 0.6);
    assert.equal(s.average_gain, 0);
    assert.equal(s.median_gain, 3);
    assert.equal(s.best_gain, 10);
    assert.equal(s.worst_gain, -15);
    assert.equal(s.total_gain, 0);
    assert.equal(s.max_drawdown, 15);
    // Raw: every close's percentage_gain (11, -3, 7, -14, 4 and the early 20).
    assert.deepEqual(s.raw, { closed_trades: 6, wins: 4, win_rate: 0.666667, average_gain: 4.166667, total_gain: 25 });
    assert.equal(s.early_closes, 1);
    assert.equal(s.early_close_share, 0.166667);
    assert.equal(s.median_holding_seconds, 3600, 'over every CLOSED bet: five held an hour, one 30 s');
    assert.equal(s.cancel_rate, Math.round((1 / 8) * 1e6) / 1e6);
    assert.deepEqual(s.tailers, { tails: 2, closed: 1, average_gain: 8, win_rate: 1 });
    assert.deepEqual(
      s.curve.map((p: { value: number }) => p.value),
      [10, 6, 12, -3, 0],
    );
    assert.ok(!('email' in s));
  });

  test('followers: live accounts following the trader, each once; a deleted follower no longer counts', async () => {
    const trader = await registerAndLogin(t.app);
    const stats = async () => (await t.app.inject({ method: 'GET', url: `/user/${trader.id}/stats` })).json().followers;
    assert.equal(await stats(), 0);
    const fans = [await registerAndLogin(t.app), await registerAndLogin(t.app)];
    for (const fan of [...fans, fans[0]]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/follow',
        headers: { cookie: fan.cookie },
        payload: { followed_id: trader.id, action: 'follow' },
      });
      assert.ok(res.statusCode < 300, res.body);
    }
    assert.equal(await stats(), 2);
    const gone = await t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie: fans[1].cookie }, payload: { password: PASSWORD } });
    assert.equal(gone.statusCode, 200, gone.body);
    assert.equal(await stats(), 1);
  });

  test('EXPLAIN: the closed bets are one range of bets_user_closed_idx, which holds every column read (migration 0036)', async () => {
    const plan = await explain(t.database, closedBetsQuery(t.ctx.db, 1), { noSeqScan: true });
    if (dialect === 'sqlite') assert.match(plan, /^SEARCH bets USING COVERING INDEX bets_user_closed_idx \(user_id=\?\)$/, plan);
    else {
      assert.match(plan, /Index (Only )?Scan using bets_user_closed_idx on bets/, plan);
      assert.doesNotMatch(plan, /Sort/, plan);
    }
  });

  test('unknown user → 404, bad id → 400', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/user/999999999/stats' })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/user/x/stats' })).statusCode, 400);
  });
});
