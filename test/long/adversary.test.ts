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
import { type AdversaryWorld, adversaryFailures, createAdversaryWorld, runAdversaries, summaryTable, timingLines } from '../helpers/adversary.js';
import { forEachDialect } from '../helpers/db.js';

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
    const runs = await runAdversaries(world, { A: n, B: n, C: n, D: n, E: n, F: n, G: n });
    const stats = runs.map((r) => r.stats);
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `adversary suite [${dialect}]: ${n} rounds a strategy, ${((performance.now() - t0) / 1000).toFixed(0)} s wall, ` +
        `${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU, ${world.jobPasses} job passes`,
    );
    console.log(summaryTable(stats));
    for (const line of timingLines(world.timings)) console.log(line);
    assert.deepEqual(adversaryFailures(stats), []);
  });
});
