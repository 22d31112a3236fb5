// Price alerts as requests see them (docs/alerts.md): create within the
// caller's capacity, list, remove. The watcher that fires them is
// src/services/price-alerts.ts.
import type { AppContext } from '../context.js';
import { alertValueProblem } from '../domain/alerts.js';
import { extraAlertsOf } from '../domain/payments.js';
import { badRequest, limitReached, notFound } from '../errors.js';
import { type AlertRow, countAlertsOf, deleteAlertOf, insertAlert, listAlertsOf } from '../repositories/alerts.js';
import { findUserById } from '../repositories/users.js';
import type { Alert, AlertList, CreateAlertRequest } from '../schemas/alerts.js';
import { iso } from './bet-views.js';
import { quoteOrUnavailable, tickerOrBadRequest } from './price-requests.js';

/** What alert requests use of the context. */
export type AlertRequestDeps = Pick<AppContext, 'clock' | 'config' | 'database' | 'db' | 'prices'>;

export function toAlert(r: AlertRow): Alert {
  return {
    id: r.id,
    ticker: r.ticker,
    kind: r.kind,
    value: r.value,
    status: r.fired_at === null ? 'active' : 'fired',
    created_at: iso(r.created_at),
    fired_at: r.fired_at === null ? null : iso(r.fired_at),
    fired_price: r.fired_price,
    fired_change_percent: r.fired_change_percent,
  };
}

/** Live alerts a user may have: BASE_ALERT_CAPACITY plus the plan's extra_alerts while it is paid up. */
function capacityOf(ctx: AlertRequestDeps, user: { pay_price_id: string | null; pay_subscription_status: string | null }): number {
  return ctx.config.alertCapacity + extraAlertsOf(user, ctx.config.alertExtras);
}

/**
 * Sets an alert. It watches from the quote in force now (published, so the
 * instrument is known: 404 otherwise, 503 while the provider is down): that
 * quote counts, so an alert already met fires at the next pass, at it.
 */
export async function createAlert(ctx: AlertRequestDeps, userId: number, req: CreateAlertRequest): Promise<Alert> {
  const ticker = tickerOrBadRequest(req.ticker);
  const problem = alertValueProblem(req);
  if (problem) throw badRequest(problem);
  const quote = await quoteOrUnavailable(ctx, ticker);
  const row = await ctx.database.transaction(async (trx) => {
    // The user's row lock queues concurrent creations: the count below cannot be read twice before an insert.
    await ctx.database.lock(trx, 'users', userId);
    const user = await findUserById(trx, userId);
    if (!user) throw notFound('User not found');
    const capacity = capacityOf(ctx, user);
    if ((await countAlertsOf(trx, userId)).active >= capacity) {
      throw limitReached(`You can have at most ${capacity} active alerts on your plan`, capacity);
    }
    const now = ctx.clock.now();
    return insertAlert(trx, { user_id: userId, ticker, kind: req.kind, value: req.value, created_at: now, starts_at: Math.min(quote.at, now) });
  });
  return toAlert(row);
}

export async function listAlerts(ctx: AlertRequestDeps, userId: number, q: { limit: number; offset: number }): Promise<AlertList> {
  const [rows, counts, user] = await Promise.all([
    listAlertsOf(ctx.db, userId, q.limit, q.offset),
    countAlertsOf(ctx.db, userId),
    findUserById(ctx.db, userId),
  ]);
  if (!user) throw notFound('User not found');
  return { alerts: rows.map(toAlert), total: counts.total, active: counts.active, capacity: capacityOf(ctx, user) };
}

/** Removes one of the caller's alerts, live or fired; another user's is 404, as a missing one. */
export async function removeAlert(ctx: AlertRequestDeps, userId: number, alertId: number): Promise<{ message: string }> {
  if (!(await deleteAlertOf(ctx.db, alertId, userId))) throw notFound('Alert not found');
  return { message: 'Alert removed' };
}
