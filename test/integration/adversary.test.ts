// The adversary suite of issue 33, short (the full one is
// test/long/adversary.test.ts): 200 rounds each of the free option on a pair
// (A), on one bet (B) and the chart's last move (E), played on the bet service
// with the seeded walk and the injected clock while the commitments job runs
// as the worker would. A and B farm SPEC's raw gain and never reach a ranked
// board; E's ranked gain is noise around zero. Then the one instant where the
// cancel window and the committed price meet.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Dialect } from '../../src/db/database.js';
import { committedInstant } from '../../src/domain/bets.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { findBetById } from '../../src/repositories/bets.js';
import { cancelBet, closeBet, openBet, portfolio } from '../../src/services/bets.js';
import {
  type AdversaryWorld,
  adversaryFailures,
  createAdversaryWorld,
  HOUR,
  K_STD_ERRORS,
  runAdversaries,
  SECOND,
  summaryTable,
} from '../helpers/adversary.js';
import { uniqueName } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { insertTestUser } from '../helpers/users.js';

/** PostgreSQL pays a round trip per query (about nine times SQLite's cost a round): fewer rounds there, the same assertions. */
const ROUNDS: Record<Dialect, number> = { sqlite: 200, postgres: 40 };

const silent = { info: () => {}, warn: () => {}, error: () => {} };

forEachDialect('the adversary suite, short', (dialect) => {
  let world: AdversaryWorld;
  before(async () => {
    world = await createAdversaryWorld(dialect);
  });
  after(() => world.close());

  test(`${ROUNDS[dialect]} rounds of A, B and E: the free option farms the raw gain and is never ranked; the chart's last move earns nothing ranked`, async () => {
    const n = ROUNDS[dialect];
    const runs = await runAdversaries(world, { A: n, B: n, E: n });
    const stats = runs.map((r) => r.stats);
    console.log(summaryTable(stats));
    assert.deepEqual(adversaryFailures(stats), []);
    // The option is real: what SPEC's /leaderboard sums grows every round A and B play.
    for (const s of stats.filter((x) => x.strategy !== 'E')) {
      assert.ok(s.raw.mean > K_STD_ERRORS * s.raw.stdError, `${s.strategy}: mean raw gain ${s.raw.mean} ± ${s.raw.stdError}`);
    }
  });

  test('at the committed instant itself: a cancel after the commit was seen leaves no ranked gain, a close there ranks a gain of zero', async () => {
    const { ctx, clock, ticker } = world;
    const userId = await insertTestUser(ctx, uniqueName('advX'));
    // On a whole second, so the job's pass falls exactly on the committed instant.
    const opened = Math.ceil((clock.now() + HOUR) / SECOND) * SECOND;
    await world.advanceTo(opened);
    const long = await openBet(ctx, userId, { ticker, direction: 'LONG' });
    const short = await openBet(ctx, userId, { ticker, direction: 'SHORT' });
    const at = committedInstant(opened);
    await world.advanceTo(at);
    assert.equal((await commitDueBets(ctx, silent)).committed, 2);
    const committed = (await findBetById(ctx.db, long.bet_id))?.committed_price;
    // The quote anyone sees at that instant is the committed price, and the window is still open.
    const seen = (await portfolio(ctx, userId)).map((b) => [b.current, b.cancelable_until !== null]);
    assert.deepEqual(seen, [
      [committed, true],
      [committed, true],
    ]);
    await cancelBet(ctx, userId, short.bet_id);
    await closeBet(ctx, userId, long.bet_id);
    const [l, s] = [await findBetById(ctx.db, long.bet_id), await findBetById(ctx.db, short.bet_id)];
    assert.equal(s?.status, 'CANCELLED');
    assert.equal(s?.ranked_gain, null);
    assert.equal(l?.status, 'CLOSED');
    assert.equal(l?.exit_price, committed);
    assert.equal(l?.ranked_gain, 0);
  });
});
