import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { extraLeaguesOf, parseLeagueExtras } from '../../src/domain/payments.js';
import { boardHashOf, betsAtHead, encodeBoardDocument, leagueLeafHash, verifyLeagueProof } from '../../src/domain/league-record.js';
import {
  betOutcome,
  boardFromTallies,
  computeBoard,
  EMPTY_TALLY,
  countsInstrument,
  effectiveStart,
  isEditable,
  joinProblem,
  type LeagueBet,
  leagueStatus,
  oneYearAfter,
  standingText,
  tallyDelta,
  tickersToMark,
  windowProblem,
} from '../../src/domain/leagues.js';
import { encodeEntry, GENESIS, inclusionProof, leafHash, merkleRoot, type RecordEvent } from '../../src/domain/record.js';
import type { LeagueBoardDocument, LeagueProof } from '../../src/schemas/leagues.js';
import type { UserRecord } from '../../src/schemas/record.js';

const T = (s: string) => Date.parse(s);
const start = T('2026-04-01T00:00:00Z');
const end = T('2026-04-08T00:00:00Z');
const league = { starts_at: start, ends_at: end };
const NO_MARKS = new Map<string, number>();

let nextId = 1;
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
    closed_at: start + 2000,
    benchmark_entry: null,
    benchmark_exit: null,
    ...over,
  };
}

describe('league window', () => {
  const now = T('2026-03-01T12:00:00Z');
  test('a start now or later, an end after it and at most one calendar year after it', () => {
    assert.equal(windowProblem({ starts_at: now, ends_at: now + 1 }, now), null);
    assert.equal(windowProblem({ starts_at: now + 86_400_000, ends_at: oneYearAfter(now + 86_400_000) }, now), null);
    assert.match(windowProblem({ starts_at: now, ends_at: oneYearAfter(now) + 1 }, now)!, /one year/);
    assert.match(windowProblem({ starts_at: now, ends_at: now }, now)!, /after starts_at/);
    assert.match(windowProblem({ starts_at: now - 10 * 60_000, ends_at: now + 1 }, now)!, /now or in the future/);
  });
  test('a start a moment in the past counts as now', () => {
    assert.equal(windowProblem({ starts_at: now - 60_000, ends_at: now + 1 }, now), null);
    assert.equal(effectiveStart(now - 60_000, now), now);
    assert.equal(effectiveStart(now + 5, now), now + 5);
  });
  test('one year after 29 February is 1 March', () => {
    assert.equal(new Date(oneYearAfter(T('2028-02-29T10:00:00Z'))).toISOString(), '2029-03-01T10:00:00.000Z');
  });
  test('status and editability follow the clock; a settled league is final', () => {
    const l = { ...league, settled_at: null };
    assert.equal(leagueStatus(l, start - 1), 'upcoming');
    assert.equal(leagueStatus(l, start), 'running');
    assert.equal(leagueStatus(l, end), 'ended');
    assert.equal(leagueStatus({ ...l, settled_at: end + 5 }, end + 10), 'final');
    assert.equal(isEditable(league, start - 1), true);
    assert.equal(isEditable(league, start), false);
  });
  test('joining: refused from the start on, and at the member limit', () => {
    assert.equal(joinProblem({ ...league, member_limit: 3 }, start - 1, 2), null);
    assert.equal(joinProblem({ ...league, member_limit: 3 }, start - 1, 3)?.kind, 'full');
    assert.equal(joinProblem({ ...league, member_limit: 3 }, start, 0)?.kind, 'started');
  });
});

describe('what counts', () => {
  test('instruments: all, stocks and ETFs (everything but crypto pairs), crypto only', () => {
    assert.equal(countsInstrument('all', 'BTC-USD'), true);
    assert.equal(countsInstrument('stocks', 'AAPL'), true);
    assert.equal(countsInstrument('stocks', 'SPY'), true);
    assert.equal(countsInstrument('stocks', 'BTC-USD'), false);
    assert.equal(countsInstrument('crypto', 'ETH-USD'), true);
    assert.equal(countsInstrument('crypto', 'AAPL'), false);
  });
  const scope = { ...league, instruments: 'stocks' as const };
  test('only bets opened within the window', () => {
    assert.equal(betOutcome(bet({ opened_at: start - 1 }), scope, end, NO_MARKS).kind, 'excluded');
    assert.equal(betOutcome(bet({ opened_at: end, closed_at: end + 1 }), scope, end + 5, NO_MARKS).kind, 'excluded');
    assert.equal(betOutcome(bet({ opened_at: start }), scope, end, NO_MARKS).kind, 'closed');
  });
  test('bets on instruments the league does not count are excluded', () => {
    assert.equal(betOutcome(bet({ ticker: 'BTC-USD' }), scope, end, NO_MARKS).kind, 'excluded');
  });
  test('closed by the end: its gain; cancelled by the end: a cancellation', () => {
    assert.deepEqual(betOutcome(bet({ percentage_gain: 7 }), scope, end, NO_MARKS), { kind: 'closed', gain: 7, alpha: null });
    assert.equal(betOutcome(bet({ status: 'CANCELLED', percentage_gain: 0 }), scope, end, NO_MARKS).kind, 'cancelled');
  });
  test('open at the end, or closed after it: marked at the end price (nothing after the end changes the league)', () => {
    const marks = new Map([['AAPL', 120]]);
    const open = bet({ status: 'OPEN', exit_price: null, percentage_gain: null, closed_at: null });
    assert.deepEqual(betOutcome(open, scope, end, marks), { kind: 'marked', gain: 20, alpha: null });
    const closedLater = bet({ percentage_gain: -50, closed_at: end + 1 });
    assert.equal(betOutcome(closedLater, scope, end, marks).kind, 'marked');
    const cancelledLater = bet({ status: 'CANCELLED', closed_at: end + 1 });
    assert.equal(betOutcome(cancelledLater, scope, end, marks).kind, 'marked');
    assert.equal(betOutcome(open, scope, end, NO_MARKS).kind, 'unmarked');
    const short = bet({ direction: 'SHORT', status: 'OPEN', closed_at: null, percentage_gain: null });
    assert.equal((betOutcome(short, scope, end, marks) as { gain: number }).gain, -20);
  });
  test('the tickers to mark: open counted bets, with their benchmarks under skill scoring', () => {
    const bets = [bet({ status: 'OPEN', closed_at: null, ticker: 'MSFT' }), bet({}), bet({ ticker: 'BTC-USD', status: 'OPEN', closed_at: null })];
    assert.deepEqual(tickersToMark({ instruments: 'stocks', min_closed_bets: 0, scoring: 'gain' }, league, bets, end), ['MSFT']);
    assert.deepEqual(tickersToMark({ instruments: 'all', min_closed_bets: 0, scoring: 'skill' }, league, bets, end), ['BTC-USD', 'MSFT', 'SPY']);
  });
});

describe('the board', () => {
  const members = [1, 2, 3, 4].map((user_id) => ({ user_id, left_at: null as number | null }));
  const gainRules = { instruments: 'all' as const, min_closed_bets: 2, scoring: 'gain' as const };
  test('summed gain, ranked; below the minimum (marked bets count toward it) unranked; cancellations shown, never scored', () => {
    const bets = [
      bet({ user_id: 1, percentage_gain: 5 }),
      bet({ user_id: 1, percentage_gain: 3 }),
      bet({ user_id: 2, percentage_gain: 20 }),
      bet({ user_id: 2, status: 'OPEN', closed_at: null, percentage_gain: null }),
      bet({ user_id: 2, status: 'CANCELLED', percentage_gain: 0 }),
      bet({ user_id: 3, percentage_gain: 50 }),
    ];
    const rows = computeBoard(gainRules, league, members, bets, end, new Map([['AAPL', 90]]));
    assert.deepEqual(
      rows.map((r) => [r.user_id, r.rank, r.score, r.trades, r.marked, r.cancels]),
      [
        [2, 1, 10, 2, 1, 1],
        [1, 2, 8, 2, 0, 0],
        [3, null, 50, 1, 0, 0],
        [4, null, null, 0, 0, 0],
      ],
    );
    assert.equal(rows[0].cancel_rate, 1 / 3);
    assert.equal(rows[3].cancel_rate, 0);
  });
  test('ties: more trades first, then the lower id', () => {
    const bets = [
      bet({ user_id: 2, percentage_gain: 4 }),
      bet({ user_id: 1, percentage_gain: 4 }),
      bet({ user_id: 3, percentage_gain: 2 }),
      bet({ user_id: 3, percentage_gain: 2 }),
    ];
    const rows = computeBoard({ ...gainRules, min_closed_bets: 0 }, league, members, bets, end, NO_MARKS);
    assert.deepEqual(
      rows.filter((r) => r.rank !== null).map((r) => r.user_id),
      [3, 1, 2],
    );
  });
  test('skill: the skill score over alphas (no alpha, no score)', () => {
    const bets = [
      bet({ user_id: 1, percentage_gain: 10, benchmark_entry: 100, benchmark_exit: 100 }),
      bet({ user_id: 2, percentage_gain: 10, benchmark_entry: 100, benchmark_exit: 110 }),
      bet({ user_id: 3, percentage_gain: 10 }),
    ];
    const rows = computeBoard({ instruments: 'all', min_closed_bets: 1, scoring: 'skill' }, league, members, bets, end, NO_MARKS);
    // alpha 10 and 0, one trade each: mean − 1.645 × 5 / 1
    assert.equal(rows[0].user_id, 1);
    assert.ok(Math.abs(rows[0].score! - (10 - 1.645 * 5)) < 1e-9);
    assert.ok(Math.abs(rows[1].score! - (0 - 1.645 * 5)) < 1e-9);
    assert.equal(rows.find((r) => r.user_id === 3)!.score, null);
    assert.equal(rows.find((r) => r.user_id === 3)!.rank, null);
  });
  test('a member who left after the start stays on the board, marked as left', () => {
    const rows = computeBoard(gainRules, league, [{ user_id: 1, left_at: start + 5 }], [bet({ user_id: 1 }), bet({ user_id: 1 })], end, NO_MARKS);
    assert.equal(rows[0].left, true);
    assert.equal(rows[0].rank, 1);
  });
  test("a finished bet's tally delta: closed adds its gain and alpha, cancelled a cancellation, open nothing", () => {
    assert.deepEqual(tallyDelta(bet({ percentage_gain: 10, benchmark_entry: 100, benchmark_exit: 104 })), {
      trades: 1,
      cancels: 0,
      gain_sum: 10,
      alpha_n: 1,
      alpha_sum: 6,
      alpha_sq_sum: 36,
    });
    assert.deepEqual(tallyDelta(bet({ direction: 'SHORT', percentage_gain: 10, benchmark_entry: 100, benchmark_exit: 104 }))?.alpha_sum, 14);
    assert.deepEqual(tallyDelta(bet({ percentage_gain: -3 })), { ...EMPTY_TALLY, trades: 1, gain_sum: -3 });
    assert.deepEqual(tallyDelta(bet({ status: 'CANCELLED', percentage_gain: 0 })), { ...EMPTY_TALLY, cancels: 1 });
    assert.equal(tallyDelta(bet({ status: 'OPEN', percentage_gain: null, closed_at: null })), null);
  });
  test('from tallies: the same board as counting every bet, open bets marked on top, finished ones never twice', () => {
    const rules = { instruments: 'stocks' as const, min_closed_bets: 2, scoring: 'skill' as const };
    const bets = [
      bet({ user_id: 1, percentage_gain: 5, benchmark_entry: 100, benchmark_exit: 101 }),
      bet({ user_id: 1, percentage_gain: -2, benchmark_entry: 100, benchmark_exit: 99 }),
      bet({ user_id: 1, ticker: 'MSFT', status: 'OPEN', closed_at: null, percentage_gain: null, benchmark_entry: 100, benchmark_exit: null }),
      bet({ user_id: 2, percentage_gain: 8, benchmark_entry: 100, benchmark_exit: 100 }),
      bet({ user_id: 2, status: 'CANCELLED', percentage_gain: 0 }),
      bet({ user_id: 2, ticker: 'BTC-USD', percentage_gain: 40 }),
      // Closed after the end: open at the end, so marked.
      bet({ user_id: 2, ticker: 'MSFT', closed_at: end + 10, percentage_gain: 1, benchmark_entry: 100 }),
      bet({ user_id: 3, opened_at: start - 1, percentage_gain: 9 }),
    ];
    const marks = new Map([
      ['MSFT', 110],
      ['SPY', 103],
    ]);
    const counted = computeBoard(rules, league, members, bets, end, marks);
    const tallies = members.map((m) => {
      const t = { ...EMPTY_TALLY };
      for (const b of bets) {
        if (b.user_id !== m.user_id || b.opened_at < start || !countsInstrument(rules.instruments, b.ticker)) continue;
        if (b.closed_at === null || b.closed_at > end) continue;
        const d = tallyDelta(b)!;
        for (const k of Object.keys(t) as Array<keyof typeof t>) t[k] += d[k];
      }
      return { ...m, ...t };
    });
    // The open ones as the board's query reads them (open at the end, in the window), plus a finished one it must not count again.
    const open = bets.filter((b) => b.opened_at >= start && (b.closed_at === null || b.closed_at > end));
    assert.deepEqual(boardFromTallies(rules, league, tallies, [...open, bets[0]], end, marks), counted);
    assert.deepEqual(
      counted.map((r) => [r.user_id, r.trades, r.marked, r.cancels]),
      [
        [2, 2, 1, 1],
        [1, 3, 1, 0],
        [3, 0, 0, 0],
        [4, 0, 0, 0],
      ],
    );
  });
  test('standing texts name the rank or say unranked', () => {
    assert.match(
      standingText('Club', { rank: 2, user_id: 1, score: 3.5, trades: 4, marked: 0, cancels: 0, cancel_rate: 0, left: false }, 5, false),
      /#2 of 5, score 3\.50/,
    );
    assert.match(standingText('Club', undefined, 5, true), /Club has ended\. You are unranked/);
  });
});

describe('the proof of a final board', () => {
  // One member's record: a closed bet and an open one inside the window, an open one after the end.
  const userId = 7;
  const events: Array<Omit<RecordEvent, 'seq' | 'user_id'>> = [
    {
      kind: 'opened',
      at: '2026-04-02T00:00:00.000Z',
      bet_id: 1,
      ticker: 'AAPL',
      direction: 'LONG',
      status: 'OPEN',
      entry_price: 100,
      exit_price: null,
      percentage_gain: null,
      target_date: null,
    },
    {
      kind: 'closed',
      at: '2026-04-03T00:00:00.000Z',
      bet_id: 1,
      ticker: 'AAPL',
      direction: 'LONG',
      status: 'CLOSED',
      entry_price: 100,
      exit_price: 105,
      percentage_gain: 5,
      target_date: null,
    },
    {
      kind: 'opened',
      at: '2026-04-04T00:00:00.000Z',
      bet_id: 2,
      ticker: 'MSFT',
      direction: 'SHORT',
      status: 'OPEN',
      entry_price: 200,
      exit_price: null,
      percentage_gain: null,
      target_date: null,
    },
    {
      kind: 'closed',
      at: '2026-04-09T00:00:00.000Z',
      bet_id: 2,
      ticker: 'MSFT',
      direction: 'SHORT',
      status: 'CLOSED',
      entry_price: 200,
      exit_price: 100,
      percentage_gain: 50,
      target_date: null,
    },
  ];
  let prev = GENESIS;
  const entries = events.map((e, i) => {
    const event = { ...e, user_id: userId, seq: i + 1 } as RecordEvent;
    const enc = encodeEntry(prev, event);
    const entry = { seq: i + 1, prev_hash: prev, hash: enc.hash, event };
    prev = enc.hash;
    return entry;
  });
  const record: UserRecord = { user_id: userId, entries, bets: [], proof: null };
  const rules = { instruments: 'all' as const, min_closed_bets: 1, scoring: 'gain' as const };
  const rows = computeBoard(rules, league, [{ user_id: userId, left_at: null }], betsAtHead(record, 3), end, new Map([['MSFT', 190]]));
  const doc: LeagueBoardDocument = {
    league: { id: 3, starts_at: new Date(start).toISOString(), ends_at: new Date(end).toISOString(), ...rules },
    settled_at: new Date(end + 1000).toISOString(),
    board: rows.map(({ user_id, ...r }) => ({ user_id, ...r })),
    marks: { MSFT: 190 },
    heads: [{ user_id: userId, seq: 3, hash: entries[2].hash }],
  };
  const boardHash = boardHashOf(encodeBoardDocument(doc));
  const leaves = [
    leafHash({ user_id: 1, seq: 4, hash: 'a'.repeat(64) }),
    leafHash({ user_id: 2, seq: 1, hash: 'b'.repeat(64) }),
    leagueLeafHash(3, boardHash),
  ];
  const root = merkleRoot(leaves);
  const proof: LeagueProof = {
    kind: 'league-board',
    document: doc,
    board_hash: boardHash,
    proof: { date: '2026-04-08', root, tree_size: 3, leaf_index: 2, path: inclusionProof(leaves, 2) },
  };
  const records = new Map([[userId, record]]);

  test('the board recounted from the record as of the head: the bet closed after the end is marked', () => {
    assert.equal(rows[0].trades, 2);
    assert.equal(rows[0].marked, 1);
    assert.equal(rows[0].score, 5 + 5);
  });
  test('an untouched proof verifies against the published root and the member record', () => {
    assert.deepEqual(verifyLeagueProof(proof, { publishedRoot: root, records }), []);
  });
  test('a changed score, a changed root or a head outside the chain are reported', () => {
    const edited = structuredClone(proof);
    edited.document.board[0].score = 99;
    assert.match(verifyLeagueProof(edited, { records }).join('\n'), /does not hash to board_hash/);
    edited.board_hash = boardHashOf(encodeBoardDocument(edited.document));
    assert.match(verifyLeagueProof(edited, { records }).join('\n'), /the proof does not lead to the root[\s\S]*score 99 but the record gives 10/);
    assert.match(verifyLeagueProof(proof, { publishedRoot: 'c'.repeat(64) }).join('\n'), /differs from the published one/);
    const wrongHead = structuredClone(proof);
    wrongHead.document.heads[0].hash = 'd'.repeat(64);
    assert.match(verifyLeagueProof(wrongHead, { records }).join('\n'), /not in the member's record/);
  });
  test("a member's entry of a kind the recount does not know is reported, and that member is not recounted", () => {
    const odd = structuredClone(record);
    odd.entries[1].event.kind = 'amended' as RecordEvent['kind'];
    assert.match(
      verifyLeagueProof(proof, { records: new Map([[userId, odd]]) }).join('\n'),
      /member 7: not recounted: entry 2 is of kind "amended", which this verifier does not know/,
    );
  });
  test('a league leaf cannot pass for a user leaf', () => {
    assert.notEqual(leagueLeafHash(1, 'a'.repeat(64)), leafHash({ user_id: 1, seq: 1, hash: 'a'.repeat(64) }));
  });
});

describe('the league limit', () => {
  test('LEAGUE_LIMIT: 5 by default, validated', () => {
    assert.equal(loadConfig({}).leagueLimit, 5);
    assert.equal(loadConfig({ LEAGUE_LIMIT: '12' }).leagueLimit, 12);
    assert.throws(() => loadConfig({ LEAGUE_LIMIT: 'many' }), ConfigError);
    assert.throws(() => loadConfig({ LEAGUE_LIMIT: '-1' }), ConfigError);
  });
  test("a plan's extra_leagues, from our own plan data, count only while the subscription is paid up", () => {
    const extras = parseLeagueExtras({ price_plus: 5, price_pro: '20' });
    assert.equal(extraLeaguesOf({ pay_price_id: 'price_plus', pay_subscription_status: 'active' }, extras), 5);
    assert.equal(extraLeaguesOf({ pay_price_id: 'price_pro', pay_subscription_status: 'trialing' }, extras), 20);
    assert.equal(extraLeaguesOf({ pay_price_id: 'price_pro', pay_subscription_status: 'past_due' }, extras), 0);
    assert.equal(extraLeaguesOf({ pay_price_id: 'other', pay_subscription_status: 'active' }, extras), 0);
    assert.equal(extraLeaguesOf({ pay_price_id: null, pay_subscription_status: null }, extras), 0);
    assert.throws(() => parseLeagueExtras({ price_plus: -1 }), /non-negative integer/);
    assert.throws(() => parseLeagueExtras(['x']), /map price ids/);
    assert.equal(parseLeagueExtras(undefined).size, 0);
    assert.ok(loadConfig({}).leagueExtras.size >= 1, 'the shipped plans.json lists extra_leagues');
  });
});
