// Price alerts (docs/alerts.md): the caller's list and capacity count, and the
// trigger engine's live rules by ticker and its one-time firing.
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { PriceAlertsTable } from '../db/tables.js';
import { type Selectable, sql } from 'kysely';

export type AlertRow = Selectable<PriceAlertsTable>;

export async function insertAlert(
  db: Db,
  a: Pick<AlertRow, 'user_id' | 'ticker' | 'kind' | 'value' | 'created_at' | 'starts_at'>,
): Promise<AlertRow> {
  return db
    .insertInto('price_alerts')
    .values({ ...a, fired_at: null, fired_price: null, fired_change_percent: null, checked_until: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The user's alerts, newest first. */
export function listAlertsOf(db: Db, userId: number, limit: number, offset: number): Promise<AlertRow[]> {
  return db.selectFrom('price_alerts').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

/** All of the user's alerts and the live ones (those count against the capacity). */
export async function countAlertsOf(db: Db, userId: number): Promise<{ total: number; active: number }> {
  const row = await db
    .selectFrom('price_alerts')
    .select((eb) => [eb.fn.countAll<number>().as('total'), eb.fn.count<number>('id').filterWhere('fired_at', 'is', null).as('active')])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), active: Number(row.active) };
}

/** Removes the user's alert; false when there is none of that id that is theirs. */
export async function deleteAlertOf(db: Db, id: number, userId: number): Promise<boolean> {
  const r = await db.deleteFrom('price_alerts').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Tickers with at least one live alert, distinct. */
export async function liveAlertTickers(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('price_alerts').select('ticker').distinct().where('fired_at', 'is', null).execute();
  return rows.map((r) => r.ticker);
}

/** The live alerts on a ticker, set up to `until`, earliest first. */
export async function liveAlertsOn(db: Db, ticker: string, until: number): Promise<AlertRow[]> {
  return (await liveOnQuery(db, { ticker, until })) as AlertRow[];
}

// Compiled once: the trigger engine asks for each watched instrument every quote interval.
const liveOnQuery = prepared((db, p: { ticker: string; until: number }) =>
  db
    .selectFrom('price_alerts')
    .selectAll()
    .where('ticker', '=', p.ticker)
    .where('fired_at', 'is', null)
    .where('starts_at', '<=', p.until)
    .orderBy('starts_at')
    .orderBy('id'),
);

/**
 * What may meet one instrument's live alerts (set up to `until`) in a span of published
 * quotes: the span's lowest and highest price and its first and last instants, with the
 * lowest `above` level, the highest `below` level and the smallest `move` among the alerts,
 * and their oldest mark (checked_until, or starts_at before the first).
 */
export interface AlertReach {
  ticker: string;
  lo: number;
  hi: number;
  firstAt: number;
  lastAt: number;
  minAbove: number | null;
  maxBelow: number | null;
  minMove: number | null;
  oldestMark: number;
}

// Compiled once: the trigger engine asks every quote interval.
const reachQuery = prepared((db, p: { from: number; until: number }) =>
  db
    .selectFrom((eb) =>
      eb
        .selectFrom('quotes')
        .select((q) => [
          'ticker',
          q.fn.min('price').as('lo'),
          q.fn.max('price').as('hi'),
          q.fn.min('published_at').as('first_at'),
          q.fn.max('published_at').as('last_at'),
        ])
        .where('published_at', '>=', p.from)
        .where('published_at', '<=', p.until)
        .groupBy('ticker')
        .as('q'),
    )
    .innerJoin(
      (eb) =>
        eb
          .selectFrom('price_alerts')
          .select([
            'ticker',
            sql<number | null>`min(case when kind = 'above' then value end)`.as('min_above'),
            sql<number | null>`max(case when kind = 'below' then value end)`.as('max_below'),
            sql<number | null>`min(case when kind = 'move' then value end)`.as('min_move'),
            sql<number>`min(coalesce(checked_until, starts_at))`.as('oldest_mark'),
          ])
          .where('fired_at', 'is', null)
          .where('starts_at', '<=', p.until)
          .groupBy('ticker')
          .as('a'),
      (join) => join.onRef('a.ticker', '=', 'q.ticker'),
    )
    .select(['q.ticker', 'q.lo', 'q.hi', 'q.first_at', 'q.last_at', 'a.min_above', 'a.max_below', 'a.min_move', 'a.oldest_mark'])
    .orderBy('q.ticker'),
);

const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** Each instrument with a live alert and a quote published from `from` to `until` (both inclusive): one statement for all. */
export async function alertReach(db: Db, from: number, until: number): Promise<AlertReach[]> {
  const rows = await reachQuery(db, { from, until });
  return rows.map((r) => ({
    ticker: r.ticker,
    lo: Number(r.lo),
    hi: Number(r.hi),
    firstAt: Number(r.first_at),
    lastAt: Number(r.last_at),
    minAbove: orNull(r.min_above),
    maxBelow: orNull(r.max_below),
    minMove: orNull(r.min_move),
    oldestMark: Number(r.oldest_mark),
  }));
}

/**
 * Where the evaluation of every live alert set up to `until` may start: the earliest starting
 * instant of one never evaluated, and the earliest mark, less `overlap`, of one evaluated before.
 * Null when none is live.
 */
export async function earliestAlertResume(db: Db, until: number, overlap: number): Promise<number | null> {
  const row = await db
    .selectFrom('price_alerts')
    .select([
      sql<number | null>`min(case when checked_until is null then starts_at end)`.as('unchecked'),
      sql<number | null>`min(checked_until)`.as('checked'),
    ])
    .where('fired_at', 'is', null)
    .where('starts_at', '<=', until)
    .executeTakeFirstOrThrow();
  const unchecked = orNull(row.unchecked);
  const checked = orNull(row.checked);
  const resumed = checked === null ? null : checked - overlap;
  if (unchecked === null || resumed === null) return unchecked ?? resumed;
  return Math.min(unchecked, resumed);
}

/**
 * Records that every live alert on `tickers` set up to `until` was evaluated up to `until`, for
 * those whose mark is at or before `staleFrom` (never moves a mark back): the instruments a
 * pass found nothing to meet on.
 */
export async function markTickersChecked(db: Db, tickers: string[], until: number, staleFrom: number): Promise<void> {
  for (let i = 0; i < tickers.length; i += 500) {
    await db
      .updateTable('price_alerts')
      .set({ checked_until: until })
      .where('ticker', 'in', tickers.slice(i, i + 500))
      .where('fired_at', 'is', null)
      .where('starts_at', '<=', until)
      .where((eb) => eb.or([eb('checked_until', 'is', null), eb('checked_until', '<=', staleFrom)]))
      .execute();
  }
}

/**
 * Fires an alert at a quote, once: a conditional update, so a second
 * evaluation (another instance, an overlapping pass) changes nothing and
 * learns it lost. False when it had fired already or was removed.
 */
export async function claimFiring(db: Db, id: number, fired: { at: number; price: number; changePercent: number | null }): Promise<boolean> {
  const r = await db
    .updateTable('price_alerts')
    .set({ fired_at: fired.at, fired_price: fired.price, fired_change_percent: fired.changePercent })
    .where('id', '=', id)
    .where('fired_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Records that the live alerts `ids` were evaluated up to `at` without firing (never moves the mark back). */
export async function markChecked(db: Db, ids: number[], at: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('price_alerts')
      .set({ checked_until: at })
      .where('id', 'in', ids.slice(i, i + 500))
      .where('fired_at', 'is', null)
      .where((eb) => eb.or([eb('checked_until', 'is', null), eb('checked_until', '<', at)]))
      .execute();
  }
}

/** A deleted account's alerts go with it: nobody is left to tell. */
export async function deleteAlertsOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('price_alerts').where('user_id', '=', userId).execute();
}
