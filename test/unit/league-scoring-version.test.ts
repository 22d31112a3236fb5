// League scoring versions as pure rules (docs/leagues.md): version 2 scores
// ranked gains (committed price to exit) of bets committed by the end,
// version 1 raw gains; tallies and recounts agree; a recount from a record
// follows the document's version.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { betsAtHead } from '../../src/domain/league-record.js';
import {
  awaitsCommitment,
  betOutcome,
  boardFromTallies,
  computeBoard,
  EMPTY_TALLY,
  type LeagueBet,
  type LeagueTally,
  tallyDelta,
  tickersToMark,
} from '../../src/domain/leagues.js';
import { encodeEntry, GENESIS, type RecordEvent } from '../../src/domain/record.js';
import type { UserRecord } from '../../src/schemas/record.js';

const T = (s: string) => Date.parse(s);
const start = T('2026-04-01T00:00:00Z');
const end = T('2026-04-08T00:00:00Z');
const MIN = 60_000;
const HOUR_MS = 60 * MIN;
const scope = { starts_at: start, ends_at: end, instruments: 'all' as const };
const NO_MARKS = new Map<string, number>();

let nextId = 1;
/** A bet held past its window: opened at start + 1 s, committed at 105, closed at 110 (raw +10, ranked ≈ +4.76). */
function bet(over: Partial<LeagueBet>): LeagueBet {
  return {
    id: nextId++,
    user_id: 1,
    ticker: 'AAPL',
    direction: 'LONG',
    status: 'CLOSED',
    entry_price: 100,
    exit_price: 110,
    percentage_gain: 10,
    opened_at: start + 1000,
    closed_at: start + 60 * MIN,
    benchmark_entry: null,
    benchmark_exit: null,
    committed_price: 105,
    benchmark_committed: null,
    ranked_gain: (5 / 105) * 100,
    unranked_reason: null,
    ...over,
  };
}
const early = (over: Partial<LeagueBet> = {}) => bet({ closed_at: start + 1000 + MIN, committed_price: null, ranked_gain: null, ...over });
const open = (over: Partial<LeagueBet> = {}) =>
  bet({ status: 'OPEN', exit_price: null, percentage_gain: null, closed_at: null, ranked_gain: null, ...over });

describe('a bet in a version-2 league', () => {
  test('closed after its window: its ranked gain, alpha from the benchmark committed price', () => {
    const o = betOutcome(bet({ benchmark_committed: 500, benchmark_exit: 505, benchmark_entry: 400 }), scope, end, NO_MARKS, 2);
    assert.equal(o.kind, 'closed');
    if (o.kind !== 'closed') return;
    assert.ok(Math.abs(o.gain - (5 / 105) * 100) < 1e-9);
    assert.ok(Math.abs(o.alpha! - ((5 / 105) * 100 - 1)) < 1e-9, 'benchmark 500 → 505, not from its entry 400');
    // Version 1 (the default) of the same bet: raw.
    assert.deepEqual(betOutcome(bet({}), scope, end, NO_MARKS), { kind: 'closed', gain: 10, alpha: null });
  });
  test('closed inside its window: an early close, shown and never scored; cancelled: a cancellation', () => {
    assert.deepEqual(betOutcome(early(), scope, end, NO_MARKS, 2), { kind: 'unscored', early: true });
    assert.deepEqual(betOutcome(bet({ status: 'CANCELLED', ranked_gain: null, committed_price: null }), scope, end, NO_MARKS, 2), {
      kind: 'cancelled',
    });
  });
  test('committed after the end: never scored, open or closed after it', () => {
    const late = { opened_at: end - 2 * MIN, closed_at: end + 10 * MIN, committed_price: 100, ranked_gain: 10 };
    assert.deepEqual(betOutcome(bet(late), scope, end, new Map([['AAPL', 120]]), 2), { kind: 'unscored', early: false });
    assert.deepEqual(betOutcome(open({ opened_at: end - 2 * MIN, committed_price: null }), scope, end, new Map([['AAPL', 120]]), 2), {
      kind: 'unscored',
      early: false,
    });
  });
  test('open at the instant: marked from its committed price; before its committed instant pending; past it uncommitted until recorded', () => {
    const marks = new Map([
      ['AAPL', 126],
      ['SPY', 505],
    ]);
    const o = betOutcome(open({ committed_price: 120, benchmark_committed: 500 }), scope, end, marks, 2);
    assert.equal(o.kind, 'marked');
    if (o.kind === 'marked') {
      assert.ok(Math.abs(o.gain - 5) < 1e-9, '120 → 126');
      assert.ok(Math.abs(o.alpha! - 4) < 1e-9);
    }
    assert.deepEqual(betOutcome(open({}), scope, start + 2 * MIN, marks, 2), { kind: 'pending' });
    assert.deepEqual(betOutcome(open({ committed_price: null }), scope, end, marks, 2), { kind: 'uncommitted' });
    assert.deepEqual(betOutcome(open({ committed_price: null, unranked_reason: 'not_market_price' }), scope, end, marks, 2), {
      kind: 'unscored',
      early: false,
    });
    assert.deepEqual(betOutcome(open({}), scope, end, NO_MARKS, 2), { kind: 'unmarked' });
  });
  test('a final board waits for a missing committed price, and marks only committed bets', () => {
    const rules = { instruments: 'all' as const, min_closed_bets: 1, scoring: 'skill' as const };
    assert.equal(awaitsCommitment(rules, scope, [open({ committed_price: null })], end, 2), true);
    assert.equal(awaitsCommitment(rules, scope, [open({})], end, 2), false);
    assert.equal(awaitsCommitment(rules, scope, [open({ committed_price: null })], end, 1), false, 'version 1 has no commitments to wait for');
    assert.deepEqual(tickersToMark(rules, scope, [open({}), open({ ticker: 'MSFT', opened_at: end - MIN })], end, 2), ['AAPL', 'SPY']);
  });
});

describe('version-2 tallies', () => {
  test('a close adds its ranked gain; an early close counts as one; a cancel as a cancellation; a version-1 delta is unchanged', () => {
    const d = tallyDelta(bet({ benchmark_committed: 100, benchmark_exit: 100 }), 2)!;
    assert.equal(d.trades, 1);
    assert.ok(Math.abs(d.gain_sum - (5 / 105) * 100) < 1e-9);
    assert.equal(d.alpha_n, 1);
    assert.equal(d.early_closes, 0);
    assert.deepEqual(tallyDelta(early(), 2), { ...EMPTY_TALLY, early_closes: 1 });
    assert.deepEqual(tallyDelta(bet({ status: 'CANCELLED', ranked_gain: null }), 2), { ...EMPTY_TALLY, cancels: 1, early_closes: 0 });
    assert.equal(tallyDelta(open(), 2), null);
    assert.deepEqual(tallyDelta(early()), { ...EMPTY_TALLY, trades: 1, gain_sum: 10 }, 'version 1: every close, raw');
  });
  test('tallies plus open bets give the same board as counting every bet', () => {
    const rules = { instruments: 'all' as const, min_closed_bets: 1, scoring: 'gain' as const };
    const members = [1, 2, 3].map((user_id) => ({ user_id, left_at: null }));
    const bets = [
      bet({ user_id: 1 }),
      early({ user_id: 1 }),
      bet({ user_id: 1, status: 'CANCELLED', ranked_gain: null }),
      open({ user_id: 2, committed_price: 100, ticker: 'MSFT' }),
      early({ user_id: 2 }),
      bet({ user_id: 3, opened_at: end - 2 * MIN, closed_at: end + MIN }),
    ];
    const marks = new Map([['MSFT', 110]]);
    const counted = computeBoard(rules, scope, members, bets, end, marks, 2);
    const tallies = members.map((m) => {
      const t: Required<LeagueTally> = { ...EMPTY_TALLY, early_closes: 0 };
      for (const b of bets) {
        if (b.user_id !== m.user_id || b.closed_at === null || b.closed_at > end) continue;
        const d = tallyDelta(b, 2);
        if (d) for (const k of Object.keys(t) as Array<keyof typeof t>) t[k] += d[k] ?? 0;
      }
      return { ...m, ...t };
    });
    const stillOpen = bets.filter((b) => b.closed_at === null || b.closed_at > end);
    assert.deepEqual(boardFromTallies(rules, scope, tallies, stillOpen, end, marks, 2), counted);
    assert.deepEqual(
      counted.map((r) => [r.user_id, r.rank, r.trades, r.marked, r.cancels, r.early_closes]),
      [
        [2, 1, 1, 1, 0, 1],
        [1, 2, 1, 0, 1, 1],
        [3, null, 0, 0, 0, 0],
      ],
    );
    assert.ok(Math.abs(counted[0].score! - 10) < 1e-9, 'MSFT from the committed 100 to the end 110');
    assert.equal('early_closes' in computeBoard(rules, scope, members, bets, end, marks)[0], false, 'a version-1 row keeps its fields');
  });
});

describe('a recount from the record', () => {
  const event = (over: Partial<RecordEvent> & Record<string, unknown>, seq: number) =>
    ({
      user_id: 7,
      seq,
      kind: 'opened',
      at: new Date(start + 1000).toISOString(),
      bet_id: 1,
      ticker: 'AAPL',
      direction: 'LONG',
      status: 'OPEN',
      entry_price: 100,
      exit_price: null,
      percentage_gain: null,
      target_date: null,
      ...over,
    }) as RecordEvent;
  const recordOf = (events: RecordEvent[]): UserRecord => {
    let prev = GENESIS;
    const entries = events.map((e) => {
      const enc = encodeEntry(prev, e);
      const entry = { seq: e.seq, prev_hash: prev, hash: enc.hash, event: e };
      prev = enc.hash;
      return entry;
    });
    return { user_id: 7, entries, bets: [], proof: null };
  };
  test('entries carrying the committed price give the ranked gain of a close after the committed instant', () => {
    const closed = { kind: 'closed', status: 'CLOSED', exit_price: 110, percentage_gain: 10, at: new Date(start + HOUR_MS).toISOString() } as const;
    const [b] = betsAtHead(recordOf([event({}, 1), event({ ...closed, committed_price: 105 }, 2)]), 2);
    assert.equal(b.committed_price, 105);
    assert.ok(Math.abs(b.ranked_gain! - (5 / 105) * 100) < 1e-9);
    const [old] = betsAtHead(recordOf([event({}, 1), event(closed, 2)]), 2);
    assert.equal(old.ranked_gain, null, 'entries without the field: no ranked gain');
  });
});
