// The adversary suite of issue 33 in full (docs/rankings.md, "What the
// adversary suite measures"): the strategies, ADVERSARY_ROUNDS rounds each
// (2,000 by default), play the bet service on the seeded walk of BTC-USD with
// the injected clock while the commitments job runs as the worker would. The
// free option (A, B) never reaches a ranked board; selection inside the cancel
// window (C, D) and the chart's last move (E) earn a head start on the raw
// gain only; a real edge (F, the oracle) shows on the ranked gain. G is C with
// its look and its cancel at the committed instant itself, after the job has
// committed the pair there: seeing the committed price earns nothing either.
// The walk and the seeds are fixed: both dialects print the same table.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { leagueBoard } from '../../src/services/league-boards.js';
import { createLeague, joinById } from '../../src/services/leagues.js';
import { rankedLeaderboard } from '../../src/services/rankings.js';
import {
  type AdversaryWorld,
  adversaryFailures,
  adversaryUserIds,
  createAdversaryWorld,
  HOUR,
  MINUTE,
  runAdversaries,
  type StrategyName,
  summaryTable,
  timingLines,
} from '../helpers/adversary.js';
import { uniqueName } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { insertTestUser } from '../helpers/users.js';

const ROUNDS = Number(process.env.ADVERSARY_ROUNDS ?? 2000);

forEachDialect('the adversary suite, full', (dialect) => {
  let world: AdversaryWorld;
  before(async () => {
    world = await createAdversaryWorld(dialect);
  });
  after(() => world.close());

  test(`${ROUNDS} rounds of each strategy: only a real edge shows on the ranked gain`, { timeout: 60 * 60_000 }, async () => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const n = ROUNDS;
    // A public league on ranked gains that every strategy's user joins before it starts, spanning all their rounds.
    const { ctx, clock } = world;
    const owner = await insertTestUser(ctx, uniqueName('advO'));
    const league = await createLeague(ctx, owner, {
      name: 'Adversaries, full',
      description: '',
      starts_at: new Date(clock.now() + MINUTE).toISOString(),
      ends_at: new Date(clock.now() + 365 * 24 * HOUR).toISOString(),
      visibility: 'public',
      rules: { instruments: 'all', min_closed_bets: 1, scoring: 'gain' },
    });
    // A league lasts at most a year; the strategies play one after another for about three simulated years, so the
    // test stretches this one's window on its row (nothing else about the league changes).
    await ctx.db
      .updateTable('leagues')
      .set({ ends_at: clock.now() + 20 * 365 * 24 * HOUR })
      .where('id', '=', league.id)
      .execute();
    const userIds: Partial<Record<StrategyName, number>> = {};
    for (const strategy of ['A', 'B', 'C', 'D', 'E', 'F', 'G'] as const) {
      userIds[strategy] = await insertTestUser(ctx, uniqueName(`adv${strategy}`));
      await joinById(ctx, userIds[strategy], league.id);
    }
    const runs = await runAdversaries(world, { A: n, B: n, C: n, D: n, E: n, F: n, G: n }, { userIds });
    const stats = runs.map((r) => r.stats);
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `adversary suite [${dialect}]: ${n} rounds a strategy, ${((performance.now() - t0) / 1000).toFixed(0)} s wall, ` +
        `${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU, ${world.jobPasses} job passes`,
    );
    console.log(summaryTable(stats));
    for (const line of timingLines(world.timings)) console.log(line);
    assert.deepEqual(adversaryFailures(stats), []);

    // The boards: F, the one real edge, ranks first among C, D, E and F on the ranked board and on the league's
    // board (ranked gains); A and B, whose every close was riskless, are on neither.
    const ids = adversaryUserIds(runs);
    const contenders = new Set(['C', 'D', 'E', 'F'].map((s) => ids[s as keyof typeof ids]!));
    const ranked = await rankedLeaderboard(ctx, { limit: 100 });
    assert.equal(ranked.filter((r) => contenders.has(r.id))[0]?.id, ids.F, 'F first among C-F on the ranked board');
    assert.ok(!ranked.some((r) => r.id === ids.A || r.id === ids.B), 'A and B are not on the ranked board');
    const board = await leagueBoard(ctx, league.id, owner);
    assert.equal(board.scoring_version, 2);
    const placed = board.rows.filter((r) => contenders.has(r.user.id) && r.rank !== null).sort((a, b) => a.rank! - b.rank!);
    assert.equal(placed[0]?.user.id, ids.F, 'F first among C-F on the league board');
    for (const id of [ids.A, ids.B]) assert.equal(board.rows.find((r) => r.user.id === id)?.rank ?? null, null, 'A and B are unranked in the league');
  });
});
