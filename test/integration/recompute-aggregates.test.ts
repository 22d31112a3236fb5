// The aggregates' recount goes in slices (users a board statement, closed bets
// a page, day rows an insert) with the loop running between: with slices of 2
// over more users and bets than that it writes exactly the rows one slice
// over everything writes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { recomputeAggregates } from '../../src/services/recompute-aggregates.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { insertTestBets, type TestBet } from '../helpers/bet-rows.js';
import { forEachDialect } from '../helpers/db.js';

forEachDialect('aggregates recounted in slices', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const tables = async () => ({
    leaderboard: await t.ctx.db.selectFrom('leaderboard').selectAll().orderBy('user_id').execute(),
    ranked: await t.ctx.db.selectFrom('ranked_leaderboard').selectAll().orderBy('user_id').execute(),
    days: await t.ctx.db.selectFrom('user_day_stats').selectAll().orderBy('user_id').orderBy('day').execute(),
  });

  test('slices of 2 give the rows one slice over everything gives', async () => {
    const day = 86_400_000;
    const t0 = Date.parse('2026-10-01T15:00:00Z');
    const bets: TestBet[] = [];
    for (let u = 0; u < 5; u++) {
      const user = await registerAndLogin(t.app);
      // 0 to 4 closed bets over two days, a cancelled one, an open one.
      for (let k = 0; k < u; k++)
        bets.push({ userId: user.id, openedAt: t0 + k, end: { status: 'CLOSED', at: t0 + (k % 2) * day + 60_000, gain: k - 1.5 } });
      bets.push({ userId: user.id, openedAt: t0, end: { status: 'CANCELLED', at: t0 + 1_000 } });
      bets.push({ userId: user.id, openedAt: t0 });
    }
    await insertTestBets(t.ctx, bets);
    await t.ctx.database.transaction((trx) => recomputeAggregates(trx, 1_000_000));
    const whole = await tables();
    assert.ok(whole.leaderboard.length >= 4 && whole.days.length > 2, JSON.stringify(whole));
    await t.ctx.database.transaction((trx) => recomputeAggregates(trx, 2));
    assert.deepEqual(await tables(), whole);
  });
});
