import { type SelectQueryBuilder, sql } from 'kysely';
import { type Db, dialectOf } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { isPossibleId } from '../domain/ids.js';
import type { Database, RecordDayLeavesTable, RecordDaysTable, RecordEntriesTable } from '../db/tables.js';

// Every bet event appends an entry: both statements are prepared (src/db/prepared.ts).
// The limit is written into the SQL: SQLite runs `limit 1` in half the time of `limit ?`.
const lastEntryQuery = prepared((db, p: { userId: number }) =>
  db.selectFrom('record_entries').select(['seq', 'hash', 'at']).where('user_id', '=', p.userId).orderBy('seq', 'desc').limit(sql.lit(1)),
);

export async function lastEntry(db: Db, userId: number): Promise<LastEntry | undefined> {
  return (await lastEntryQuery(db, { userId }))[0];
}

/** A chain's last entry: what the next one is built on. */
export interface LastEntry {
  seq: number;
  hash: string;
  at: number;
}

/** A user's chain head beside their row, in one statement with the row's read (a lateral join: one index seek). */
export function withChainHead<O>(qb: SelectQueryBuilder<Database, 'users', O>) {
  return qb
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('record_entries')
          .select(['record_entries.seq', 'record_entries.hash', 'record_entries.at'])
          .whereRef('record_entries.user_id', '=', 'users.id')
          .orderBy('record_entries.seq', 'desc')
          .limit(sql.lit(1))
          .as('head'),
      (join) => join.onTrue(),
    )
    .select(['head.seq as head_seq', 'head.hash as head_hash', 'head.at as head_at']);
}

/** The head read by withChainHead; undefined when there is no entry yet. */
export function chainHeadOf(row: { head_seq: number | null; head_hash: string | null; head_at: number | null }): LastEntry | undefined {
  return row.head_seq === null ? undefined : { seq: row.head_seq, hash: row.head_hash!, at: row.head_at! };
}

// The users row lock is FOR NO KEY UPDATE, as DatabaseHandle.lock takes it (src/db/database.ts ROW_LOCKS); only the users row is locked.
const lockedOwnerHeadQuery = prepared((db, p: { userId: number }) =>
  withChainHead(db.selectFrom('users').where('users.id', '=', p.userId)).forNoKeyUpdate('users'),
);

/**
 * Holds the owner's row lock until trx ends and reads their chain head: one
 * statement on PostgreSQL. Its snapshot is taken before the lock is granted,
 * so an entry committed by the transaction it waited for may be missing from
 * the head read: the entry built on it is inserted with insertEntryIfNext,
 * which refuses it then, and the caller reads the head again under the lock
 * it now holds. On SQLite the immediate transaction already holds the write
 * lock: the head is read alone, and is the latest.
 */
export async function lockOwnerReadingHead(db: Db, userId: number): Promise<LastEntry | undefined> {
  if (dialectOf(db) !== 'postgres') return lastEntry(db, userId);
  const [row] = await lockedOwnerHeadQuery(db, { userId });
  return row && chainHeadOf(row);
}

/** An entry's columns, each named (a prepared statement's values are slots by name). */
const entryValues = (e: RecordEntriesTable): RecordEntriesTable => ({
  user_id: e.user_id,
  seq: e.seq,
  bet_id: e.bet_id,
  kind: e.kind,
  at: e.at,
  event: e.event,
  prev_hash: e.prev_hash,
  hash: e.hash,
});

const insertEntryQuery = prepared((db, e: RecordEntriesTable) => db.insertInto('record_entries').values(entryValues(e)));

export async function insertEntry(db: Db, entry: RecordEntriesTable): Promise<void> {
  await insertEntryQuery(db, entry);
}

const insertEntryIfNextQuery = prepared((db, e: RecordEntriesTable) =>
  db
    .insertInto('record_entries')
    .values(entryValues(e))
    .onConflict((oc) => oc.columns(['user_id', 'seq']).doNothing())
    .returning('seq'),
);

/**
 * Appends an entry built on a head that may be out of date (lockOwnerReadingHead):
 * false, with nothing written, when its sequence number is already taken.
 * Any other constraint still fails the statement.
 */
export async function insertEntryIfNext(db: Db, entry: RecordEntriesTable): Promise<boolean> {
  return (await insertEntryIfNextQuery(db, entry)).length > 0;
}

/** The part of an entry a record sends: the event as stored, the text its hash covers. */
export type EntryText = Pick<RecordEntriesTable, 'seq' | 'prev_hash' | 'hash' | 'event'>;

/**
 * Up to `limit` entries of a user's chain after `afterSeq` up to `lastSeq`, in
 * order: a long chain is read and sent a slice at a time (a range of the
 * primary key, user_id and seq).
 */
export async function entrySlice(db: Db, userId: number, afterSeq: number, lastSeq: number, limit: number): Promise<EntryText[]> {
  return db
    .selectFrom('record_entries')
    .select(['seq', 'prev_hash', 'hash', 'event'])
    .where('user_id', '=', userId)
    .where('seq', '>', afterSeq)
    .where('seq', '<=', lastSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/**
 * Chain heads as of an instant (entries strictly before it) of the next
 * `limit` users after `afterUserId`, in user order: a publication reads every
 * user's head a slice at a time, each slice one short statement walking the
 * primary key (user_id, seq).
 */
export async function headsBefore(db: Db, before: number, afterUserId: number, limit: number) {
  const latest = db
    .selectFrom('record_entries')
    .select(['user_id'])
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('at', '<', before)
    .where('user_id', '>', afterUserId)
    .groupBy('user_id')
    .orderBy('user_id')
    .limit(limit)
    .as('latest');
  return db
    .selectFrom(latest)
    .innerJoin('record_entries as e', (j) => j.onRef('e.user_id', '=', 'latest.user_id').onRef('e.seq', '=', 'latest.seq'))
    .select(['e.user_id', 'e.seq', 'e.hash'])
    .orderBy('e.user_id')
    .execute();
}

export async function findDay(db: Db, day: string): Promise<RecordDaysTable | undefined> {
  return db.selectFrom('record_days').selectAll().where('day', '=', day).executeTakeFirst();
}

export async function latestDay(db: Db): Promise<RecordDaysTable | undefined> {
  return db.selectFrom('record_days').selectAll().orderBy('day', 'desc').limit(1).executeTakeFirst();
}

/**
 * Publishes a day once: the first writer wins, and every writer computes the
 * same tree. The leaves go in `chunk` rows a statement, `between` awaited
 * after each (the publication lets the event loop run there).
 */
export async function insertDay(
  db: Db,
  day: RecordDaysTable,
  leaves: RecordDayLeavesTable[],
  o: { chunk?: number; between?: () => Promise<void> } = {},
): Promise<boolean> {
  const chunk = o.chunk ?? 500;
  const r = await db
    .insertInto('record_days')
    .values(day)
    .onConflict((oc) => oc.column('day').doNothing())
    .executeTakeFirst();
  if (Number(r.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  for (let i = 0; i < leaves.length; i += chunk) {
    await db
      .insertInto('record_day_leaves')
      .values(leaves.slice(i, i + chunk))
      .execute();
    if (o.between && i + chunk < leaves.length) await o.between();
  }
  return true;
}

/** A day's leaves after index `after`, in tree order, at most `limit` (a seek on the primary key). */
export async function dayLeavesAfter(db: Db, day: string, after: number, limit: number): Promise<RecordDayLeavesTable[]> {
  return db.selectFrom('record_day_leaves').selectAll().where('day', '=', day).where('idx', '>', after).orderBy('idx').limit(limit).execute();
}

export async function latestLeafOf(db: Db, userId: number) {
  return db.selectFrom('record_day_leaves').selectAll().where('user_id', '=', userId).orderBy('day', 'desc').limit(1).executeTakeFirst();
}

/** A user's id exists (deleted accounts included: the record names users by id). */
export async function userExists(db: Db, userId: number): Promise<boolean> {
  if (!isPossibleId(userId)) return false;
  return (await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
}

/** The fields of a user's bets that the record commits to. */
export async function userBetStates(db: Db, userId: number) {
  return db
    .selectFrom('bets')
    .select([
      'id',
      'ticker',
      'direction',
      'status',
      'entry_price',
      'exit_price',
      'percentage_gain',
      'target_date',
      'committed_price',
      'benchmark_committed',
      'ranked_gain',
    ])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}
