// Queries on bets and the leaderboard aggregate. Each takes the database or
// the caller's transaction first.
import { sql } from 'kysely';
import { BET_COLUMNS, BET_VIEW_COLUMNS, type BetViewRow } from '../db/bet-columns.js';
import { type Db, dialectOf } from '../db/database.js';
import { type BoundIds, boundIds, boundIdsContain } from '../db/id-list.js';
import type { BetRow, BetStatus, NewBet } from '../db/tables.js';
import { prepared } from '../db/prepared.js';
import { isPossibleId } from '../domain/ids.js';
import { type LastEntry, chainHeadOf } from './record.js';

// The write path's statements are prepared (src/db/prepared.ts): built once, run with each call's values.
/**
 * Inserts an OPEN bet only while its owner holds fewer open bets than
 * `capacity`: the capacity check and the insert are one statement. The caller
 * holds the owner's row lock (PostgreSQL) or the write lock (SQLite), so the
 * count cannot change before commit.
 */
const insertWithinCapacityQuery = prepared((db, b: Omit<NewBet, 'id'> & { capacity: number }) =>
  db
    .insertInto('bets')
    .columns([...BET_COLUMNS])
    .expression(
      db
        .selectNoFrom((eb) => BET_COLUMNS.map((column) => eb.val(b[column]).as(column)))
        .where(
          (eb) =>
            eb
              .selectFrom('bets')
              .select((c) => c.fn.countAll<number>().as('n'))
              .where('bets.user_id', '=', b.user_id)
              .where('bets.status', '=', sql.lit('OPEN')),
          '<',
          b.capacity,
        ),
    )
    .returningAll(),
);

/** The columns an opening leaves empty: a new bet has no exit yet. */
const NOT_ENDED = {
  exit_price: null,
  percentage_gain: null,
  closed_at: null,
  close_reason: null,
  benchmark_exit: null,
  committed_price: null,
  benchmark_committed: null,
  ranked_gain: null,
  unranked_reason: null,
  history_pos: null,
  view_json: null,
} as const;

/** The new OPEN bet, or undefined when its owner already holds `capacity` open bets (nothing inserted). */
export async function insertBetWithinCapacity(db: Db, bet: Omit<NewBet, 'id'>, capacity: number): Promise<BetRow | undefined> {
  const [row] = await insertWithinCapacityQuery(db, {
    ...NOT_ENDED,
    target_date: null,
    settle_at: null,
    source_bet_id: null,
    source_kind: null,
    benchmark_entry: null,
    ...definedOnly(bet),
    capacity,
  });
  return row;
}

export async function countOpenBets(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('bets')
    .select((c) => c.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('status', '=', sql.lit('OPEN'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Drops keys whose value is undefined, so the defaults before them stand. */
function definedOnly<T extends object>(values: T): T {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as T;
}

const betByIdQuery = prepared((db, p: { id: number }) => db.selectFrom('bets').selectAll().where('id', '=', p.id));

export async function findBetById(db: Db, id: number): Promise<BetRow | undefined> {
  if (!isPossibleId(id)) return undefined;
  return (await betByIdQuery(db, { id }))[0];
}

// An opening's capacity check in one statement: the user's plan extras and their open bets.
export interface BetExit {
  status: Exclude<BetStatus, 'OPEN'>;
  exit_price: number;
  percentage_gain: number;
  closed_at: number;
  close_reason: 'user' | 'settlement' | 'cancel' | 'stop_loss' | 'take_profit';
  benchmark_exit?: number | null;
  /** Committed price to exit (docs/rankings.md); null for a bet that finished before its committed instant. */
  ranked_gain?: number | null;
  /** The finished bet's view as stored (finishedView, src/schemas/finished-bet-view.ts). */
  view_json: string;
}

/** The columns an exit sets. */
const exitValues = (p: BetExit) => ({
  status: p.status,
  exit_price: p.exit_price,
  percentage_gain: p.percentage_gain,
  closed_at: p.closed_at,
  close_reason: p.close_reason,
  benchmark_exit: p.benchmark_exit,
  ranked_gain: p.ranked_gain,
  last_event_at: p.closed_at,
  view_json: p.view_json,
});

const finishOpenQuery = prepared((db, p: BetExit & { id: number }) =>
  db.updateTable('bets').set(exitValues(p)).where('id', '=', p.id).where('status', '=', 'OPEN').returningAll(),
);

/**
 * PostgreSQL: the update, then its owner's row lock with their chain head
 * read (as lockOwnerReadingHead), in one statement. The lock is taken on the
 * rows the join gives, so after the bet's row, as the record handler would
 * take it, and only when the bet was still OPEN.
 */
const finishOpenLockingOwnerQuery = prepared((db, p: BetExit & { id: number; userId: number }) =>
  db
    .with('b', (w) => w.updateTable('bets').set(exitValues(p)).where('id', '=', p.id).where('status', '=', 'OPEN').returningAll())
    .selectFrom('b')
    .innerJoin('users', 'users.id', 'b.user_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('record_entries')
          .select(['record_entries.seq', 'record_entries.hash', 'record_entries.at'])
          .whereRef('record_entries.user_id', '=', 'b.user_id')
          .orderBy('record_entries.seq', 'desc')
          .limit(sql.lit(1))
          .as('head'),
      (join) => join.onTrue(),
    )
    .selectAll('b')
    .select(['head.seq as head_seq', 'head.hash as head_hash', 'head.at as head_at'])
    .where('users.id', '=', p.userId)
    .forNoKeyUpdate('users'),
);

/** Ends a bet that is still OPEN; undefined when it no longer is (another close or cancel won). */
export async function finishOpenBet(db: Db, id: number, exit: BetExit): Promise<BetRow | undefined> {
  return (await finishOpenQuery(db, { benchmark_exit: null, ranked_gain: null, ...exit, id }))[0];
}

/**
 * finishOpenBet, and on PostgreSQL in the same statement the owner's row
 * lock and chain head the bet's record entry needs (`chain`, for the
 * betChanged event); undefined when the bet is no longer OPEN. On SQLite the
 * record handler reads the head itself.
 */
export async function finishOpenBetLockingOwner(
  db: Db,
  bet: Pick<BetRow, 'id' | 'user_id'>,
  exit: BetExit,
): Promise<{ bet: BetRow; chain?: { head: LastEntry | undefined } } | undefined> {
  if (dialectOf(db) !== 'postgres') {
    const row = await finishOpenBet(db, bet.id, exit);
    return row && { bet: row };
  }
  const [row] = await finishOpenLockingOwnerQuery(db, { benchmark_exit: null, ranked_gain: null, ...exit, id: bet.id, userId: bet.user_id });
  if (!row) return undefined;
  const { head_seq, head_hash, head_at, ...finished } = row;
  return { bet: finished, chain: { head: chainHeadOf({ head_seq, head_hash, head_at }) } };
}

const commitQuery = prepared((db, p: { id: number; price: number; benchmark: number | null }) =>
  db
    .updateTable('bets')
    .set({ committed_price: p.price, benchmark_committed: p.benchmark })
    .where('id', '=', p.id)
    .where('status', '=', 'OPEN')
    .where('committed_price', 'is', null)
    .where('unranked_reason', 'is', null)
    .returningAll(),
);

/** Records an OPEN bet's committed prices once; undefined when it is no longer OPEN or already committed. */
export async function commitOpenBet(db: Db, id: number, price: number, benchmark: number | null): Promise<BetRow | undefined> {
  return (await commitQuery(db, { id, price, benchmark }))[0];
}

/**
 * OPEN bets whose committed instant (opened_at + the cancel window) is at or
 * before `openedBy + window`, not yet committed and not unranked, by id after
 * `afterId`: a range of the partial index bets_uncommitted_idx (status,
 * opened_at; migration 0037), which holds only bets not committed.
 */
export async function listUncommittedBets(db: Db, openedBy: number, afterId: number, limit: number): Promise<BetRow[]> {
  return db
    .selectFrom('bets')
    .selectAll()
    .where('status', '=', 'OPEN')
    .where('committed_price', 'is', null)
    .where('unranked_reason', 'is', null)
    .where('opened_at', '<=', openedBy)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** What the portfolio shows of an open bet. */
export type OpenBetView = Pick<BetRow, 'id' | 'ticker' | 'direction' | 'entry_price' | 'target_date' | 'opened_at'>;

/**
 * A user's OPEN bets, the latest opened first: one range of
 * bets_user_open_idx (migration 0039), which holds these columns in this
 * order. The status is a literal, as in the index's condition, which a bound
 * value would not match.
 */
const openBetsQuery = prepared((db, p: { userId: number }) =>
  db
    .selectFrom('bets')
    .select(['id', 'ticker', 'direction', 'entry_price', 'target_date', 'opened_at'])
    .where('user_id', '=', p.userId)
    .where('status', '=', sql.lit('OPEN'))
    .orderBy('opened_at', 'desc')
    .orderBy('id', 'desc'),
);

/** A user's OPEN bets, the latest opened first. */
export async function listOpenBets(db: Db, userId: number): Promise<OpenBetView[]> {
  return openBetsQuery(db, { userId });
}

/** The size of a user's history: its largest position (an index seek on bets_user_history_idx). */
function historySizeOf(db: Db, userId: number) {
  return db
    .selectFrom('bets')
    .select((eb) => eb.fn.coalesce(eb.fn.max('history_pos'), eb.lit(0)).as('n'))
    .where('user_id', '=', userId)
    .where('history_pos', 'is not', null);
}

/**
 * CLOSED and CANCELLED bets (exactly those with an exit time), newest exit
 * first, one value a row: the bet's stored view (JSON text, migration 0040),
 * or for a bet with a thesis its id as text, whose view and thesis
 * finishedWithTheses reads. The page at any offset is a range of positions
 * (migration 0033), one seek on bets_user_history_idx whatever the depth,
 * never a walk over the newer entries it skips. One value a row because
 * SQLite hands each value over one by one: a page read as the view's ten
 * columns cost three to four times as much, and as the view with the
 * thesis's columns (null on most rows) twice (docs/performance.md).
 */
const finishedPageQuery = prepared((db, p: { userId: number; from: number; to: number }) => {
  const size = historySizeOf(db, p.userId);
  return db
    .selectFrom('bets')
    .leftJoin('bet_theses as t', 't.bet_id', 'bets.id')
    .select(sql<string | null>`case when t.bet_id is null then bets.view_json else cast(bets.id as text) end`.as('v'))
    .where('bets.user_id', '=', p.userId)
    .where('bets.history_pos', '>', sql<number>`(${size}) - ${p.to}`)
    .where('bets.history_pos', '<=', sql<number>`(${size}) - ${p.from}`)
    .orderBy('bets.history_pos', 'desc');
});

/** A page of finished bets, as finishedPageQuery gives each: its view, or (a bet with a thesis) its id as text. */
export async function listFinishedBets(db: Db, userId: number, limit: number, offset: number): Promise<Array<string | null>> {
  return (await finishedPageQuery(db, { userId, from: offset, to: offset + limit })).map((r) => r.v);
}

/** Whether an entry of listFinishedBets is a view (JSON text of an object) rather than the id of a bet with a thesis. */
export function isStoredView(entry: string): boolean {
  return entry.charCodeAt(0) === 0x7b; // {
}

const withThesesQuery = prepared((db, v: { ids: BoundIds }) =>
  db
    .selectFrom('bets')
    .innerJoin('bet_theses as t', 't.bet_id', 'bets.id')
    .select(['bets.id', 'bets.view_json', 't.user_id', 't.text', 't.salt', 't.hidden_at', 't.counted_reports'])
    .where(boundIdsContain(db, 'bets.id', v.ids)),
);

/** A finished bet with a thesis as a page of history shows it: its stored view and its thesis. */
export interface FinishedWithThesis {
  view_json: string | null;
  user_id: number;
  text: string;
  salt: string;
  hidden_at: number | null;
  counted_reports: number;
}

/** The stored views and theses of these bets (those with a thesis), by id: one statement whatever their number. */
export async function finishedWithTheses(db: Db, ids: readonly number[]): Promise<Map<number, FinishedWithThesis>> {
  const out = new Map<number, FinishedWithThesis>();
  if (ids.length === 0) return out;
  const rows = await withThesesQuery(db, { ids: boundIds(db, ids) });
  for (const { id, ...r } of rows) out.set(Number(id), { ...r, counted_reports: Number(r.counted_reports) });
  return out;
}

export async function countFinishedBets(db: Db, userId: number): Promise<number> {
  return Number((await historySizeOf(db, userId).executeTakeFirstOrThrow()).n);
}

/** The user's finished bets that exited after (exit, id): none, nearly always. */
function laterExits(db: Db, p: { userId: number; exit: number; id: number }) {
  return db
    .selectFrom('bets')
    .select('id')
    .where('user_id', '=', p.userId)
    .where('history_pos', 'is not', null)
    .where((eb) => eb.or([eb('closed_at', '>', p.exit), eb.and([eb('closed_at', '=', p.exit), eb('id', '>', p.id)])]));
}

const placeOnTopQuery = prepared((db, p: { userId: number; exit: number; id: number }) =>
  db
    .updateTable('bets')
    .set((eb) => ({ history_pos: eb(historySizeOf(db, p.userId), '+', 1) }))
    .where('id', '=', p.id)
    .where((eb) => eb.not(eb.exists(laterExits(db, p))))
    .returning('history_pos'),
);

const moveUpLaterExitsQuery = prepared((db, p: { userId: number; exit: number; id: number }) =>
  db
    .updateTable('bets')
    .set((eb) => ({ history_pos: eb('history_pos', '+', 1) }))
    .where('id', 'in', laterExits(db, p))
    .returning('history_pos'),
);

type HistoryBet = Pick<BetRow, 'id' | 'user_id' | 'closed_at'>;

function placeParams(bet: HistoryBet) {
  if (bet.closed_at === null) throw new Error(`bet ${bet.id} has no exit to place in its history`);
  return { userId: bet.user_id, exit: bet.closed_at, id: bet.id };
}

/**
 * Gives a bet that has just finished its place in its owner's history. Its
 * exit is nearly always the newest, and then the place is the next: one
 * statement (placeOnTopStatement, which a caller may send with others). A
 * settlement is dated at its due instant, though, which can be before a
 * close recorded first (and instances' clocks differ a little): then nothing
 * is placed on top, and placeBelowLaterExits moves the entries that exited
 * after it up one and gives it the lowest of their places. The caller holds
 * the owner's row (the record chain's lock), so places of one user are given
 * one at a time.
 */
export async function placeInHistory(db: Db, bet: HistoryBet): Promise<number> {
  const [top] = await placeOnTopQuery(db, placeParams(bet));
  return top ? Number(top.history_pos) : placeBelowLaterExits(db, bet);
}

/** The statement placing a bet on top of its owner's history: its place, or no row when a later exit exists. */
export function placeOnTopStatement(db: Db, bet: HistoryBet) {
  return placeOnTopQuery.statement(db, placeParams(bet));
}

/** The place of a bet with later exits in its owner's history (see placeInHistory). */
export async function placeBelowLaterExits(db: Db, bet: HistoryBet): Promise<number> {
  const moved = await moveUpLaterExitsQuery(db, placeParams(bet));
  const place = Math.min(...moved.map((r) => Number(r.history_pos))) - 1;
  await db.updateTable('bets').set({ history_pos: place }).where('id', '=', bet.id).execute();
  return place;
}

/**
 * Numbers every finished bet's place again from scratch, for the users named
 * (all without): for rows written straight into the table (the benchmark's
 * generated data, test fixtures), which no finishing transaction placed.
 */
export async function renumberHistory(db: Db, userIds?: readonly number[]): Promise<void> {
  if (userIds !== undefined && userIds.length === 0) return;
  const only = userIds === undefined ? sql`` : sql`and user_id in (${sql.join(userIds)})`;
  await sql`
    update bets set history_pos = ranked.pos
    from (select id, row_number() over (partition by user_id order by closed_at, id) as pos
          from bets where closed_at is not null ${only}) as ranked
    where ranked.id = bets.id
  `.execute(db);
}

/** Where a pass over the due bets has got to: the last bet it read. */
export interface DueCursor {
  settleAt: number;
  id: number;
}

/**
 * OPEN bets whose settlement time has passed, in the order of
 * bets_open_settle_idx (settlement time, then id) after a cursor. Ordered by
 * id alone, SQLite's planner walks the whole table by its key to keep that
 * order (seconds on two million bets, on the event loop).
 */
export async function listDueBets(db: Db, now: number, after: DueCursor | null, limit: number): Promise<BetRow[]> {
  let q = db.selectFrom('bets').selectAll().where('status', '=', sql.lit('OPEN')).where('settle_at', '<=', now);
  if (after) q = q.where((eb) => eb(eb.refTuple('settle_at', 'id'), '>', eb.tuple(after.settleAt, after.id)));
  return q.orderBy('settle_at').orderBy('id').limit(limit).execute();
}

const addToLeaderboardQuery = prepared((db, p: { userId: number; gain: number }) =>
  db
    .insertInto('leaderboard')
    .values({ user_id: p.userId, total_score: p.gain, total_trades: 1 })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({
        total_score: eb('leaderboard.total_score', '+', eb.ref('excluded.total_score')),
        total_trades: eb('leaderboard.total_trades', '+', 1),
      })),
    ),
);

/** Adds one CLOSED bet's gain to its owner's aggregate row. */
export async function addToLeaderboard(db: Db, userId: number, gain: number): Promise<void> {
  await addToLeaderboardQuery(db, { userId, gain });
}

/** addToLeaderboard's statement, to send with others. */
export function addToLeaderboardStatement(db: Db, userId: number, gain: number) {
  return addToLeaderboardQuery.statement(db, { userId, gain });
}

/** A page of the aggregate, in the order of leaderboard_rank_idx (never a scan of bets). */
export function leaderboardQuery(db: Db, limit: number, offset = 0) {
  return db
    .selectFrom('leaderboard')
    .innerJoin('users', 'users.id', 'leaderboard.user_id')
    .select(['users.id as id', 'users.username as username', 'leaderboard.total_score', 'leaderboard.total_trades'])
    .where('users.deleted_at', 'is', null)
    .orderBy('leaderboard.total_score', 'desc')
    .orderBy('leaderboard.total_trades', 'desc')
    .orderBy('leaderboard.user_id')
    .limit(limit)
    .offset(offset);
}

/** The distinct (ticker, instant) pairs of OPEN bets whose settlement instant has come: their quotes must be published. */
export async function listDueSettlementInstants(db: Db, now: number, limit: number): Promise<Array<{ ticker: string; at: number }>> {
  const rows = await db
    .selectFrom('bets')
    .select(['ticker', 'settle_at'])
    .distinct()
    .where('status', '=', sql.lit('OPEN'))
    .where('settle_at', '<=', now)
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ticker: r.ticker, at: Number(r.settle_at) }));
}

/** The earliest opening among OPEN bets not yet committed, and the earliest settlement instant among OPEN bets; null when none. */
export async function oldestPendingInstants(db: Db): Promise<{ opened: number | null; settle: number | null }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('bets')
        .select((c) => c.fn.min('opened_at').as('v'))
        .where('status', '=', 'OPEN')
        .where('committed_price', 'is', null)
        .where('unranked_reason', 'is', null)
        .as('opened'),
      eb
        .selectFrom('bets')
        .select((c) => c.fn.min('settle_at').as('v'))
        .where('status', '=', sql.lit('OPEN'))
        .where('settle_at', 'is not', null)
        .as('settle'),
    ])
    .executeTakeFirstOrThrow();
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return { opened: num(row.opened), settle: num(row.settle) };
}
