// What must hold in the database whatever requests raced: read straight from
// the tables, not through the API that the races exercised.
import assert from 'node:assert/strict';
import { CANCEL_WINDOW_MS, percentageGain } from '../../src/domain/bets.js';
import type { TestApp } from './app.js';

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

const TERMINAL: Record<string, { status: string; reason: string }> = {
  closed: { status: 'CLOSED', reason: 'user' },
  settled: { status: 'CLOSED', reason: 'settlement' },
  cancelled: { status: 'CANCELLED', reason: 'cancel' },
};

/**
 * No user has more OPEN bets than bet_capacity nor more follows than
 * follow_capacity; every bet ended at most once, its columns agreeing with its
 * status and its record entries; the leaderboard and the per-day aggregates
 * equal the sums over CLOSED bets, the ranked board's and the ranked day sums
 * the sums over ranked bets (ranked_gain set); each window's sums the day
 * rows from its start.
 */
type DayRowSums = { trades: number; score: number; rankedTrades: number; rankedScore: number };

/** Each user's day rows from `fromDay` on, summed. */
function sumDays(
  days: Array<{ user_id: number; day: string; trades: number; score_sum: number; ranked_trades: number; ranked_score_sum: number }>,
  fromDay: string,
): Map<number, DayRowSums> {
  const out = new Map<number, DayRowSums>();
  for (const d of days) {
    if (d.day < fromDay) continue;
    const agg = out.get(d.user_id) ?? { trades: 0, score: 0, rankedTrades: 0, rankedScore: 0 };
    out.set(d.user_id, {
      trades: agg.trades + d.trades,
      score: agg.score + d.score_sum,
      rankedTrades: agg.rankedTrades + d.ranked_trades,
      rankedScore: agg.rankedScore + d.ranked_score_sum,
    });
  }
  return out;
}

export async function assertDatabaseInvariants(t: TestApp): Promise<void> {
  const db = t.ctx.db;
  const { baseBets, baseFollows } = t.ctx.config.capacities;
  const users = await db.selectFrom('users').select(['id', 'extra_bets', 'extra_slots']).execute();
  const bets = await db
    .selectFrom('bets')
    .select([
      'id',
      'user_id',
      'direction',
      'status',
      'entry_price',
      'exit_price',
      'percentage_gain',
      'opened_at',
      'closed_at',
      'close_reason',
      'ranked_gain',
      'history_pos',
    ])
    .execute();
  const entries = await db.selectFrom('record_entries').select(['bet_id', 'kind']).execute();
  const board = await db.selectFrom('leaderboard').selectAll().execute();
  const days = await db.selectFrom('user_day_stats').select(['user_id', 'day', 'trades', 'score_sum', 'ranked_trades', 'ranked_score_sum']).execute();
  const starts = await db.selectFrom('window_starts').selectAll().execute();
  const windows = await db.selectFrom('user_window_stats').selectAll().execute();
  const rankedBoard = await db.selectFrom('ranked_leaderboard').selectAll().execute();
  const follows = await db.selectFrom('follows').select(['follower_id', 'followed_id']).execute();

  const openBy = new Map<number, number>();
  const closedBy = new Map<number, { trades: number; score: number }>();
  const rankedBy = new Map<number, { trades: number; score: number }>();
  const entriesOf = new Map<number, string[]>();
  for (const e of entries) entriesOf.set(Number(e.bet_id), [...(entriesOf.get(Number(e.bet_id)) ?? []), e.kind]);

  for (const b of bets) {
    const where = `bet ${b.id} (${b.status})`;
    if (b.status !== 'CLOSED') assert.equal(b.ranked_gain, null, `${where}: a ranked gain on a bet not CLOSED`);
    if (b.status === 'OPEN') {
      openBy.set(b.user_id, (openBy.get(b.user_id) ?? 0) + 1);
      assert.deepEqual([b.exit_price, b.percentage_gain, b.closed_at, b.close_reason], [null, null, null, null], where);
    } else if (b.status === 'CLOSED') {
      assert.ok(b.close_reason === 'user' || b.close_reason === 'settlement', `${where}: reason ${b.close_reason}`);
      assert.ok(b.exit_price !== null && b.percentage_gain !== null && b.closed_at !== null, where);
      assert.ok(close(b.percentage_gain, percentageGain(b.direction, b.entry_price, b.exit_price)), `${where}: gain ${b.percentage_gain}`);
      const agg = closedBy.get(b.user_id) ?? { trades: 0, score: 0 };
      closedBy.set(b.user_id, { trades: agg.trades + 1, score: agg.score + b.percentage_gain });
      if (b.ranked_gain !== null) {
        const r = rankedBy.get(b.user_id) ?? { trades: 0, score: 0 };
        rankedBy.set(b.user_id, { trades: r.trades + 1, score: r.score + b.ranked_gain });
      }
    } else {
      assert.equal(b.status, 'CANCELLED', where);
      assert.deepEqual([b.exit_price, b.percentage_gain, b.close_reason], [b.entry_price, 0, 'cancel'], where);
      assert.ok(b.closed_at !== null && b.closed_at - b.opened_at <= CANCEL_WINDOW_MS, `${where}: cancelled after the window`);
    }
    // Bets made through the service have their events in the record: one opening, at most one commitment, at most one end, matching the row.
    const kinds = entriesOf.get(b.id);
    if (kinds === undefined) continue;
    assert.equal(kinds.filter((k) => k === 'opened').length, 1, `${where}: record ${kinds}`);
    assert.ok(kinds.filter((k) => k === 'committed').length <= 1, `${where}: committed more than once in the record (${kinds})`);
    const ends = kinds.filter((k) => k !== 'opened' && k !== 'committed');
    assert.equal(ends.length, b.status === 'OPEN' ? 0 : 1, `${where}: ended ${ends.length} times in the record (${kinds})`);
    if (ends[0]) assert.deepEqual(TERMINAL[ends[0]], { status: b.status, reason: b.close_reason }, where);
  }

  const followsBy = new Map<number, Set<number>>();
  for (const f of follows) {
    const set = followsBy.get(f.follower_id) ?? new Set<number>();
    assert.ok(!set.has(f.followed_id), `duplicate follow ${f.follower_id} → ${f.followed_id}`);
    followsBy.set(f.follower_id, set.add(f.followed_id));
  }
  for (const u of users) {
    assert.ok((openBy.get(u.id) ?? 0) <= baseBets + u.extra_bets, `user ${u.id}: ${openBy.get(u.id)} OPEN bets over capacity`);
    const n = followsBy.get(u.id)?.size ?? 0;
    assert.ok(n <= baseFollows + u.extra_slots, `user ${u.id}: ${n} follows over capacity`);
  }

  // Each user's finished bets hold places 1..n in (exit, id) order (migration 0033), whatever order they finished in.
  const finishedBy = new Map<number, typeof bets>();
  for (const b of bets) if (b.closed_at !== null) finishedBy.set(b.user_id, [...(finishedBy.get(b.user_id) ?? []), b]);
  for (const [userId, list] of finishedBy) {
    list.sort((a, b) => Number(a.closed_at) - Number(b.closed_at) || a.id - b.id);
    assert.deepEqual(
      list.map((b) => (b.history_pos === null ? null : Number(b.history_pos))),
      list.map((_, i) => i + 1),
      `user ${userId}: history places`,
    );
  }
  for (const b of bets) if (b.closed_at === null) assert.equal(b.history_pos, null, `bet ${b.id}: a history place while OPEN`);

  const boardBy = new Map(board.map((r) => [r.user_id, r]));
  for (const [userId, agg] of closedBy) {
    const row = boardBy.get(userId);
    assert.ok(row, `user ${userId} has CLOSED bets but no leaderboard row`);
    assert.equal(row.total_trades, agg.trades, `user ${userId}: leaderboard trades`);
    assert.ok(close(row.total_score, agg.score), `user ${userId}: leaderboard score ${row.total_score} ≠ ${agg.score}`);
  }
  for (const r of board) assert.ok(r.total_trades === 0 || closedBy.has(r.user_id), `leaderboard row of user ${r.user_id} without CLOSED bets`);

  const rankedBoardBy = new Map(rankedBoard.map((r) => [Number(r.user_id), r]));
  for (const u of users) {
    const want = rankedBy.get(u.id) ?? { trades: 0, score: 0 };
    const row = rankedBoardBy.get(u.id);
    assert.equal(row?.total_trades ?? 0, want.trades, `user ${u.id}: ranked board trades`);
    assert.ok(close(row?.total_score ?? 0, want.score), `user ${u.id}: ranked board score ${row?.total_score} ≠ ${want.score}`);
  }

  const dayBy = sumDays(days, '');
  for (const u of users) {
    const want = closedBy.get(u.id) ?? { trades: 0, score: 0 };
    const wantRanked = rankedBy.get(u.id) ?? { trades: 0, score: 0 };
    const got = dayBy.get(u.id) ?? { trades: 0, score: 0, rankedTrades: 0, rankedScore: 0 };
    assert.equal(got.trades, want.trades, `user ${u.id}: day aggregates' trades`);
    assert.ok(close(got.score, want.score), `user ${u.id}: day aggregates' score ${got.score} ≠ ${want.score}`);
    assert.equal(got.rankedTrades, wantRanked.trades, `user ${u.id}: day aggregates' ranked trades`);
    assert.ok(close(got.rankedScore, wantRanked.score), `user ${u.id}: day aggregates' ranked score ${got.rankedScore} ≠ ${wantRanked.score}`);
  }

  // Every window row sums its user's day rows from the window's start (migration 0035).
  const windowBy = new Map(windows.map((w) => [`${w.period}|${w.user_id}`, w]));
  for (const { period, start_day } of starts) {
    const want = sumDays(days, start_day);
    for (const u of users) {
      const w = want.get(u.id) ?? { trades: 0, score: 0, rankedTrades: 0, rankedScore: 0 };
      const row = windowBy.get(`${period}|${u.id}`);
      const where = `user ${u.id}, window ${period}`;
      assert.equal(Number(row?.trades ?? 0), w.trades, `${where}: trades`);
      assert.ok(close(Number(row?.score_sum ?? 0), w.score), `${where}: score ${row?.score_sum} ≠ ${w.score}`);
      assert.equal(Number(row?.ranked_trades ?? 0), w.rankedTrades, `${where}: ranked trades`);
      assert.ok(close(Number(row?.ranked_score_sum ?? 0), w.rankedScore), `${where}: ranked score ${row?.ranked_score_sum} ≠ ${w.rankedScore}`);
    }
  }
}
