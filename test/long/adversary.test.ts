// The adversary suite of issue 33 in full (docs/rankings.md, "What the
// adversary suite measures"): six scripted strategies, ADVERSARY_ROUNDS rounds
// each (2,000 by default), play the bet service on the seeded walk of BTC-USD
// with the injected clock while the commitments job runs as the worker would.
// The free option (A, B) never reaches a ranked board; selection inside the
// cancel window (C, D) and the chart's last move (E) earn a head start on the
// raw gain only; a real edge (F, the oracle) shows on the ranked gain. G is C
// with its look and its cancel at the committed instant itself, after the job
// has committed the pair there: seeing the committed price earns nothing either.
//
// SQLite only: on PostgreSQL the same rounds make the same service calls (the
// figures are the same: the walk and the seeds are fixed) at about nine times
// the cost per round (a round trip per query), an hour and more for the full
// count; test/integration/adversary.test.ts plays A, B and E on both dialects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type AdversaryWorld,
  adversaryFailures,
  createAdversaryWorld,
  runAdversaries,
  type StrategyRun,
  summaryTable,
  timingLines,
} from '../helpers/adversary.js';

const ROUNDS = Number(process.env.ADVERSARY_ROUNDS ?? 2000);

describe('the adversary suite, full [sqlite]', () => {
  let world: AdversaryWorld;
  let runs: StrategyRun[];
  before(async () => {
    world = await createAdversaryWorld('sqlite');
  });
  after(() => world.close());

  test(`${ROUNDS} rounds of each strategy: only a real edge shows on the ranked gain`, { timeout: 60 * 60_000 }, async () => {
    const t0 = performance.now();
    runs = await runAdversaries(world, { A: ROUNDS, B: ROUNDS, C: ROUNDS, D: ROUNDS, E: ROUNDS, F: ROUNDS, G: ROUNDS });
    const stats = runs.map((r) => r.stats);
    console.log(`adversary suite: ${ROUNDS} rounds a strategy, ${((performance.now() - t0) / 1000).toFixed(0)} s, ${world.jobPasses} job passes`);
    console.log(summaryTable(stats));
    for (const line of timingLines(world.timings)) console.log(line);
    assert.deepEqual(adversaryFailures(stats), []);
  });
});
