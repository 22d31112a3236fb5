// Price alerts (docs/alerts.md): the caller's list and capacity count, and the
// trigger engine's live rules by ticker and its one-time firing.
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { PriceAlertsTable } from '../db/tables.js';
import type { Selectable } from 'kysely';

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
