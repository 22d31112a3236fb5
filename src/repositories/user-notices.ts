// The caller's notices, one model (DESIGN, GET /notifications):
// - a followed trader's bet opened or cancelled: derived when read from the
//   bets of the traders the caller follows now, from the moment each follow
//   began (no row per follower; an unfollow takes them out of the list);
// - everything else (account, settlement, league notices): rows of user_notices;
// - one read marker per user: notices at or before it are read.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Direction } from '../db/tables.js';

export interface NewUserNotice {
  userId: number;
  /** What it is about, as a word: 'account_password_changed', 'league_started', … */
  kind: string;
  /** Shown as is in the app: a sentence, with no raw URL (the link carries the address). */
  text: string;
  /** A path of the web app ('bet/12', 'leagues/3'; a leading '/' is dropped), never a host. */
  link?: string | null;
}

const KIND = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Stores a notice for one user; call it inside the transaction of what it
 * tells about. Throws on a malformed notice (a programming error, not input).
 */
export async function addUserNotice(db: Db, notice: NewUserNotice, now: number): Promise<void> {
  if (!KIND.test(notice.kind)) throw new Error(`notice kind must be a lower-case word: ${notice.kind}`);
  if (notice.text.length === 0 || notice.text.length > 1000) throw new Error('notice text must have 1 to 1000 characters');
  if (/\bhttps?:\/\//i.test(notice.text)) throw new Error('notice text must not carry a URL: pass the link apart');
  const link = notice.link ? notice.link.replace(/^\/+/, '') : null;
  if (link !== null && (link.length > 500 || /^[a-z][a-z0-9+.-]*:/i.test(link))) throw new Error('notice link must be a path of the web app');
  await db.insertInto('user_notices').values({ user_id: notice.userId, kind: notice.kind, text: notice.text, link, created_at: now }).execute();
}

/** One notice as read: a derived bet event ('opened'/'cancelled') or a stored row ('stored'). */
export interface NoticeRecord {
  source: 'opened' | 'cancelled' | 'stored';
  /** The bet's id for a derived notice, the row's id for a stored one. */
  ref_id: number;
  at: number;
  kind: string;
  /** Derived notices: the trader and the bet. */
  actor: string | null;
  ticker: string | null;
  direction: Direction | null;
  entry_price: number | null;
  /** Stored notices: their text and link. */
  text: string | null;
  link: string | null;
}

/** Every notice of a user, as one union (not yet ordered). */
function noticesOf(db: Db, userId: number) {
  const nullText = sql<string | null>`cast(null as varchar(1000))`;
  const derived = (source: 'opened' | 'cancelled') => {
    const at = source === 'opened' ? 'b.opened_at' : 'b.closed_at';
    let q = db
      .selectFrom('follows as f')
      .innerJoin('bets as b', 'b.user_id', 'f.followed_id')
      .innerJoin('users as u', 'u.id', 'b.user_id')
      .select([
        sql<'opened' | 'cancelled' | 'stored'>`cast(${source} as varchar(16))`.as('source'),
        sql<number>`b.id`.as('ref_id'),
        sql<number>`${sql.ref(at)}`.as('at'),
        sql<string>`cast(${source === 'opened' ? 'bet_opened' : 'bet_cancelled'} as varchar(64))`.as('kind'),
        sql<string | null>`u.username`.as('actor'),
        sql<string | null>`b.ticker`.as('ticker'),
        sql<Direction | null>`b.direction`.as('direction'),
        sql<number | null>`b.entry_price`.as('entry_price'),
        nullText.as('text'),
        sql<string | null>`cast(null as varchar(500))`.as('link'),
      ])
      .where('f.follower_id', '=', userId);
    q =
      source === 'opened'
        ? q.whereRef('b.opened_at', '>=', 'f.created_at')
        : q.where('b.close_reason', '=', 'cancel').whereRef('b.closed_at', '>=', 'f.created_at');
    return q;
  };
  const stored = db
    .selectFrom('user_notices as n')
    .select([
      sql<'opened' | 'cancelled' | 'stored'>`cast('stored' as varchar(16))`.as('source'),
      sql<number>`n.id`.as('ref_id'),
      sql<number>`n.created_at`.as('at'),
      sql<string>`n.kind`.as('kind'),
      sql<string | null>`cast(null as varchar(30))`.as('actor'),
      sql<string | null>`cast(null as varchar(15))`.as('ticker'),
      sql<Direction | null>`cast(null as varchar(5))`.as('direction'),
      sql<number | null>`cast(null as double precision)`.as('entry_price'),
      sql<string | null>`n.text`.as('text'),
      sql<string | null>`n.link`.as('link'),
    ])
    .where('n.user_id', '=', userId);
  return derived('opened').unionAll(derived('cancelled')).unionAll(stored);
}

/** A page of a user's notices, newest first. */
export async function listUserNotices(db: Db, userId: number, limit: number, offset: number): Promise<NoticeRecord[]> {
  const rows = await db
    .selectFrom(noticesOf(db, userId).as('n'))
    .selectAll()
    .orderBy('at', 'desc')
    .orderBy('source', 'desc')
    .orderBy('ref_id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({
    ...r,
    ref_id: Number(r.ref_id),
    at: Number(r.at),
    entry_price: r.entry_price === null ? null : Number(r.entry_price),
  }));
}

/** A user's notices after `after` (all of them when null): followed traders' bet events since `after` too. */
export async function countUserNoticesAfter(db: Db, userId: number, after: number | null): Promise<number> {
  let q = db.selectFrom(noticesOf(db, userId).as('n')).select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (after !== null) q = q.where('at', '>', after);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findReadMarker(db: Db, userId: number): Promise<number | null> {
  const row = await db.selectFrom('notice_reads').select('read_until').where('user_id', '=', userId).executeTakeFirst();
  return row ? Number(row.read_until) : null;
}

/** Moves the read marker forward to `until` (never back). */
export async function advanceReadMarker(db: Db, userId: number, until: number): Promise<void> {
  await db
    .insertInto('notice_reads')
    .values({ user_id: userId, read_until: until })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        read_until: sql<number>`case when excluded.read_until > notice_reads.read_until then excluded.read_until else notice_reads.read_until end`,
      }),
    )
    .execute();
}

/** A user's followed traders' bet events in (after, until], oldest first: what a digest lists. */
export async function listFollowedBetEvents(db: Db, userId: number, after: number, until: number, limit: number): Promise<NoticeRecord[]> {
  const rows = await db
    .selectFrom(noticesOf(db, userId).as('n'))
    .selectAll()
    .where('source', '!=', 'stored')
    .where('at', '>', after)
    .where('at', '<=', until)
    .orderBy('at')
    .orderBy('ref_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, ref_id: Number(r.ref_id), at: Number(r.at), entry_price: r.entry_price === null ? null : Number(r.entry_price) }));
}

export async function countFollowedBetEvents(db: Db, userId: number, after: number, until: number): Promise<number> {
  const row = await db
    .selectFrom(noticesOf(db, userId).as('n'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('source', '!=', 'stored')
    .where('at', '>', after)
    .where('at', '<=', until)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
