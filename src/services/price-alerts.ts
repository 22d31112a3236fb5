// The price alerts' watcher for the trigger engine (docs/alerts.md, issue 37):
// each live alert fires once, at the first published quote at or after the
// quote in force when it was set that meets it, with that quote's price and
// instant; its notice is written in the firing's transaction (in the app, and
// to the outbox for a linked chat and for email per the user's settings).
import type { AppContext } from '../context.js';
import type { QuoteWatcher } from '../jobs/price-triggers.js';
import type { Db } from '../db/database.js';
import { type AlertRule, firedText, readQuote } from '../domain/alerts.js';
import { dailyChangeBase, stockChangeBase } from '../domain/instruments.js';
import { isCryptoTicker } from '../domain/market-calendar.js';
import { type AlertRow, claimFiring, liveAlertsOn, liveAlertTickers, markChecked } from '../repositories/alerts.js';
import { findLinkOfUser } from '../repositories/chat-links.js';
import { emailNoticeAddress } from '../repositories/notice-settings.js';
import { enqueueMail, enqueueNotification } from '../repositories/notifications.js';
import { enqueuePush } from '../repositories/push.js';
import { quotesInRange, type StoredQuote } from '../repositories/quotes.js';
import { addUserNotice } from '../repositories/user-notices.js';

/** What the alerts' watcher uses of the context. */
export type AlertDeps = Pick<AppContext, 'chatTransport' | 'clock' | 'config' | 'database' | 'db' | 'prices'>;

/** Quotes read per query while evaluating one ticker. */
const QUOTE_PAGE = 1000;
/**
 * A pass resumes this far before the last quote it evaluated: a quote of an
 * instant just before that mark written late (another instance publishing)
 * is still seen. Evaluating a quote twice is harmless: the rule is pure and
 * firing is once.
 */
const RESUME_OVERLAP_MS = 60_000;
/**
 * An alert's mark moves once it is this far behind the last quote evaluated,
 * not every pass: a pass re-reads at most this much more of the quotes (a few
 * dozen rows) instead of writing every live alert's row each quote interval.
 */
const MARK_EVERY_MS = 60_000;

/** The web app's page of the caller's alerts, where every alert notice links. */
const ALERTS_PAGE = 'alerts';

export function priceAlertsWatcher(ctx: AlertDeps): QuoteWatcher {
  // One for the watcher's life: every pass and every stock share the minutes' bases.
  const stockBase = stockChangeBases(ctx.config.marketCalendar);
  return {
    name: 'price_alerts',
    liveTickers: () => liveAlertTickers(ctx.db),
    evaluate: (ticker, until) => evaluateAlerts(ctx, ticker, until, stockBase),
  };
}

/** Minutes of stock change bases kept: a day's. */
const BASE_MINUTES = 1_440;

/**
 * A stock's change base (dailyChangeBase: the close before the New York date of
 * its market time) by minute: the same for every stock, and it changes only on
 * a minute's edge (midnight, a session's open or close), so it is worked out
 * once a minute for all the watched stocks (the calendar's date arithmetic costs
 * far more than the comparison it serves). Crypto's is a day before the quote.
 */
export function stockChangeBases(calendar: AlertDeps['config']['marketCalendar']): (at: number) => number {
  const byMinute = new Map<number, number>();
  return (at) => {
    const minute = Math.floor(at / 60_000);
    let base = byMinute.get(minute);
    if (base === undefined) {
      base = stockChangeBase(calendar, calendar.marketTime(at));
      if (byMinute.size >= BASE_MINUTES) byMinute.delete(byMinute.keys().next().value as number);
      byMinute.set(minute, base);
    }
    return base;
  };
}

/**
 * The previous close a quote's daily change is measured from, as the
 * instrument directory measures it (dailyChangeBase): the provider's price at
 * the previous session's close (crypto: 24 hours before), kept per instant
 * for the pass. Undefined when the provider could not say (down): unknown, not "none".
 */
function previousCloses(ctx: AlertDeps, ticker: string, stockBase: (at: number) => number) {
  const known = new Map<number, number | undefined>();
  const crypto = isCryptoTicker(ticker);
  return async (at: number): Promise<number | undefined> => {
    const base = crypto ? dailyChangeBase(ctx.config.marketCalendar, ticker, at) : stockBase(at);
    if (!known.has(base)) known.set(base, (await ctx.prices.marksAt([ticker], base)).get(ticker));
    return known.get(base);
  };
}

export async function evaluateAlerts(
  ctx: AlertDeps,
  ticker: string,
  until: number,
  stockBase = stockChangeBases(ctx.config.marketCalendar),
): Promise<number> {
  let live = await liveAlertsOn(ctx.db, ticker, until);
  if (live.length === 0) return 0;
  const previousClose = previousCloses(ctx, ticker, stockBase);
  const resumeAt = (a: AlertRow) => Math.max(a.starts_at, a.checked_until === null ? a.starts_at : a.checked_until - RESUME_OVERLAP_MS);
  let from = Math.min(...live.map(resumeAt));
  let fired = 0;
  let lastSeen: number | null = null;
  while (live.length > 0) {
    const quotes = await quotesInRange(ctx.db, ticker, from, until, QUOTE_PAGE);
    if (quotes.length === 0) break;
    const waiting: AlertRow[] = [];
    // The previous close of each quote, once for every move alert (undefined: the provider could not say).
    const closes = new Map<number, number | undefined>();
    if (live.some((a) => a.kind === 'move')) for (const q of quotes) closes.set(q.at, await previousClose(q.at));
    for (const alert of live) {
      const found = firstMeeting(alert, quotes, resumeAt(alert), closes);
      if (found === 'stalled') continue;
      if (found === null) waiting.push(alert);
      else if (await fire(ctx, alert, found)) fired++;
    }
    live = waiting;
    lastSeen = quotes.at(-1)!.at;
    if (quotes.length < QUOTE_PAGE) break;
    from = lastSeen + 1;
  }
  // The alerts still live were evaluated up to the last quote: the next pass starts near it.
  // A stalled one keeps its mark, so the quote it could not read is read again.
  if (lastSeen !== null && live.length > 0) {
    const seen = lastSeen;
    const ids = live.filter((a) => a.checked_until === null || a.checked_until <= seen - MARK_EVERY_MS).map((a) => a.id);
    if (ids.length > 0) await markChecked(ctx.db, ids, seen);
  }
  return fired;
}

interface Hit {
  quote: StoredQuote;
  changePercent: number | null;
}

/**
 * The first quote from `from` on that meets the alert; null when none does;
 * 'stalled' when a move alert meets a quote whose previous close the provider
 * cannot give now: it stops there (never skipping a quote that may have met
 * it) and a later pass goes on from it.
 */
function firstMeeting(alert: AlertRow, quotes: StoredQuote[], from: number, closes: ReadonlyMap<number, number | undefined>): Hit | null | 'stalled' {
  const rule: AlertRule = { kind: alert.kind, value: alert.value };
  for (const quote of quotes) {
    if (quote.at < from) continue;
    let close: number | null = null;
    if (rule.kind === 'move') {
      const known = closes.get(quote.at);
      if (known === undefined) return 'stalled';
      close = known;
    }
    const reading = readQuote(rule, quote.price, close);
    if (reading.met) return { quote, changePercent: reading.changePercent };
  }
  return null;
}

/** Fires one alert and writes its notices, in one transaction; false when another evaluation fired it first (or it was removed). */
async function fire(ctx: AlertDeps, alert: AlertRow, hit: Hit): Promise<boolean> {
  return ctx.database.transaction(async (trx) => {
    const fired = { at: hit.quote.at, price: hit.quote.price, changePercent: hit.changePercent };
    if (!(await claimFiring(trx, alert.id, fired))) return false;
    await tellOwner(ctx, trx, alert, firedText(alert.ticker, { kind: alert.kind, value: alert.value }, fired));
    return true;
  });
}

/** In the app always; to a linked chat; to the devices that chose price alerts; by email when the user wants each notice by email. */
async function tellOwner(ctx: AlertDeps, trx: Db, alert: AlertRow, text: string): Promise<void> {
  const now = ctx.clock.now();
  const userId = alert.user_id;
  await addUserNotice(trx, { userId, kind: 'price_alert', text, link: ALERTS_PAGE }, now);
  const withAddress = `${text}\n${ctx.config.webUrl}${ALERTS_PAGE}`;
  await enqueuePush(trx, { userId }, { kind: 'price_alert', text: withAddress, betId: null }, now);
  const link = await findLinkOfUser(trx, userId, ctx.chatTransport.name);
  if (link) {
    await enqueueNotification(
      trx,
      { user_id: userId, transport: link.transport, chat_id: link.chat_id, kind: 'price_alert', text: withAddress, bet_id: null },
      now,
    );
  }
  const to = await emailNoticeAddress(trx, userId, 'each');
  if (to) await enqueueMail(trx, { userId, to, kind: 'price_alert', text: withAddress }, now);
}
