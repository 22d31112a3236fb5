// The adversary suite's rules and statistics (test/helpers/adversary.ts), pure:
// what each strategy decides from what it sees, and the verdict on figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  adversaryFailures,
  type BetOutcome,
  lastMove,
  meanOf,
  oracleDirection,
  seededRandom,
  type StrategyName,
  type StrategyStats,
  strategyStats,
  summaryTable,
  upSide,
} from '../helpers/adversary.js';

test('the side a bet is up on, the chart’s last move and the oracle’s choice', () => {
  assert.equal(upSide(100, 101), 'LONG');
  assert.equal(upSide(100, 99), 'SHORT');
  assert.equal(upSide(100, 100), null);
  assert.equal(lastMove([{ price: 5 }, { price: 3 }, { price: 4 }]), 'LONG');
  assert.equal(lastMove([{ price: 5 }, { price: 4 }]), 'SHORT');
  assert.equal(lastMove([{ price: 5 }]), null);
  assert.equal(oracleDirection(100, 90), 'SHORT');
  assert.equal(oracleDirection(100, 100), 'LONG');
});

test('the seeded generator repeats itself and stays in [0, 1)', () => {
  const a = seededRandom(7);
  const b = seededRandom(7);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(
    xs,
    Array.from({ length: 1000 }, () => b()),
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.ok(Math.abs(meanOf(xs).mean - 0.5) < 0.05);
});

test('the mean and its standard error', () => {
  assert.deepEqual(meanOf([1, 2, 3, 4]), { n: 4, mean: 2.5, stdError: Math.sqrt(5 / 3 / 4) });
  assert.ok(Number.isNaN(meanOf([]).mean));
  assert.ok(Number.isNaN(meanOf([1]).stdError));
});

const bet = (status: BetOutcome['status'], raw: number | null, ranked: number | null): BetOutcome => ({
  status,
  percentage_gain: raw,
  ranked_gain: ranked,
});

test('a strategy’s figures: raw gains over its closed bets, ranked gains over its ranked ones', () => {
  const s = strategyStats('C', 2, [bet('CLOSED', 1, 0.5), bet('CANCELLED', 0, null), bet('CLOSED', 3, -0.5), bet('CANCELLED', 0, null)]);
  assert.deepEqual(
    { opened: s.opened, closed: s.closed, cancelled: s.cancelled, open: s.stillOpen, raw: s.raw.mean, ranked: s.ranked.mean, n: s.ranked.n },
    { opened: 4, closed: 2, cancelled: 2, open: 0, raw: 2, ranked: 0, n: 2 },
  );
  assert.match(summaryTable([s]), /^\| strategy \| rounds \|.*\n\|-+\|.*\n\| C +\| +2 \| +4 \| +2 \|/);
});

/** Figures with a given mean and standard error (n = 100). */
function stats(strategy: StrategyName, raw: [number, number], ranked: [number, number] | null, extra: Partial<StrategyStats> = {}): StrategyStats {
  return {
    strategy,
    rounds: 100,
    opened: 100,
    closed: 100,
    cancelled: 0,
    stillOpen: 0,
    raw: { n: 100, mean: raw[0], stdError: raw[1] },
    ranked: ranked ? { n: 100, mean: ranked[0], stdError: ranked[1] } : { n: 0, mean: Number.NaN, stdError: Number.NaN },
    ...extra,
  };
}

test('the verdict: each strategy’s expectation, and a line for each one broken', () => {
  const passing = [
    stats('A', [0.02, 0.001], null),
    stats('B', [0.02, 0.001], null),
    stats('C', [0.14, 0.01], [0.01, 0.01]),
    stats('D', [0.14, 0.02], [-0.03, 0.02]),
    stats('E', [0, 0.01], [0.02, 0.01]),
    stats('F', [0.4, 0.01], [0.4, 0.01]),
  ];
  assert.deepEqual(adversaryFailures(passing), []);
  const failing = adversaryFailures([
    stats('A', [0.02, 0.001], [0, 0.01]), // ranked bets at all
    stats('C', [0.03, 0.01], [0.02, 0.01]), // head start under 4 s.e., ranked above half of it
    stats('D', [0.14, 0.02], [0.1, 0.02]), // ranked beyond 4 s.e., and above half the head start
    stats('E', [0, 0.01], [0.01, 0.01], { closed: 101 }), // a held bet not ranked
    stats('F', [0.4, 0.01], [0.03, 0.01]), // no edge shown
    stats('B', [0, 0], null, { closed: 0, stillOpen: 1 }),
  ]);
  assert.deepEqual(
    failing.map((line) => line.replace(/ \(.*?\):/, ':').replace(/[-\d.]+/g, '#')),
    [
      'A: # ranked bets, mean ranked gain # %; expected none',
      'C: head start (mean raw gain # %) is not above # standard errors (#): more bets needed',
      'C: mean ranked gain # % is not below half the mean raw gain # %',
      'D: mean ranked gain # % is not within # standard errors of zero (±#)',
      'D: mean ranked gain # % is not below half the mean raw gain # %',
      'E: # ranked bets of # closed; every bet held an hour must be ranked',
      'F: mean ranked gain # % is not above # standard errors (#)',
      'B: # bets still open',
      'B: no closed bet, nothing measured',
    ],
  );
});
