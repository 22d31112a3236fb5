// The price alerts' watcher for the trigger engine (docs/alerts.md, issue 37):
// each live alert fires once, at the first published quote at or after the
// quote in force when it was set that meets it, with that quote's price and
// instant; its notice is written in the firing's transaction (in the app, and
// to the outbox for a linked chat and for email per the user's settings).
import type { AppContext } from '../context.js';
import type { Evaluation, QuoteWatcher } from '../jobs/price-triggers.js';
import { yieldToLoop } from '../lib/yield.js';
import type { Db } from '../db/database.js';
import { type AlertRule, firedText, readQuote } from '../domain/alerts.js';
import { dailyChangeBase, stockChangeBase } from '../domain/instruments.js';
import { isCryptoTicker } from '../domain/market-calendar.js';
import {
  type AlertReach,
  type AlertRow,
  alertReach,
  claimFiring,
  earliestAlertResume,
  liveAlertsOn,
  liveAlertTickers,
  markChecked,
  markTickersChecked,
} from '../repositories/alerts.js';
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

/**
 * The trigger engine's watcher of price alerts (src/jobs/price-triggers.ts). Each pass
 * reads, in one statement, what may meet each instrument's live alerts in the quotes
 * published since a little before the instant it last evaluated them all up to (from the
 * earliest live alert's mark, on its first pass): the span's lowest and highest price
 * against the alerts' nearest levels and smallest move. Only the instruments where a
 * quote of the span may meet an alert are evaluated quote by quote (evaluateAlerts); the
 * others' alerts have their marks moved, in one statement, once they are a minute behind.
 * A pass's cost follows the instruments near an alert, not every live alert.
 */
export function priceAlertsWatcher(ctx: AlertDeps): QuoteWatcher {
  // One for the watcher's life: every pass and every stock share the minutes' bases.
  const stockBase = stockChangeBases(ctx.config.marketCalendar);
  // Up to when this instance evaluated every live alert; null before its first pass.
  let checked: number | null = null;
  // Instruments whose evaluation failed or stalled: evaluated again next pass, whatever their span.
  let again = new Set<string>();
  return {
    name: 'price_alerts',
    liveTickers: () => liveAlertTickers(ctx.db),
    async evaluate(tickers, until, signal): Promise<Evaluation> {
      if (tickers.length === 0) {
        // Nothing live: the next alert's span starts at its own start, not at this instance's last pass.
        checked = null;
        again = new Set();
        return { fired: 0, failures: [] };
      }
      const from = checked === null ? await earliestAlertResume(ctx.db, until, RESUME_OVERLAP_MS) : checked - RESUME_OVERLAP_MS;
      if (from === null) {
        checked = until;
        return { fired: 0, failures: [] };
      }
      const reach = await alertReach(ctx.db, from, until);
      const due = new Set(again);
      const quiet: AlertReach[] = [];
      for (const r of reach) {
        if (due.has(r.ticker) || (await mayMeet(ctx, r, stockBase))) due.add(r.ticker);
        else quiet.push(r);
      }
      let fired = 0;
      const failures: Evaluation['failures'] = [];
      const next = new Set<string>();
      let whole = true;
      for (const [i, ticker] of [...due].sort().entries()) {
        if (signal.aborted) {
          whole = false;
          break;
        }
        // A ticker's alerts at a time: SQLite's statements never let the loop run otherwise.
        if (i > 0) await yieldToLoop();
        try {
          const done = await evaluateAlertsOn(ctx, ticker, until, stockBase);
          fired += done.fired;
          if (done.stalled) next.add(ticker);
        } catch (err) {
          failures.push({ ticker, err });
          next.add(ticker);
        }
      }
      if (!whole) return { fired, failures };
      const stale = quiet.filter((r) => r.oldestMark <= until - MARK_EVERY_MS).map((r) => r.ticker);
      if (stale.length > 0) await markTickersChecked(ctx.db, stale, until, until - MARK_EVERY_MS);
      again = next;
      checked = until;
      return { fired, failures };
    },
  };
}

/**
 * Whether a quote of the span may meet one of the instrument's alerts: its highest price an
 * `above` level, its lowest a `below` level, or (a stock whose previous close is the same over
 * the span) its largest change from that close the smallest `move`, rounded as the alert reads
 * it. A crypto's previous close differs for each quote: its move alerts are always evaluated.
 */
async function mayMeet(ctx: AlertDeps, r: AlertReach, stockBase: (at: number) => number): Promise<boolean> {
  if (r.minAbove !== null && r.hi >= r.minAbove) return true;
  if (r.maxBelow !== null && r.lo <= r.maxBelow) return true;
  const minMove = r.minMove;
  if (minMove === null) return false;
  if (isCryptoTicker(r.ticker)) return true;
  const base = stockBase(r.firstAt);
  // The base only moves forward in time: the same at both ends, the same throughout.
  if (stockBase(r.lastAt) !== base) return true;
  const close = (await ctx.prices.marksAt([r.ticker], base)).get(r.ticker);
  if (close === undefined) return true;
  const meets = (price: number) => readQuote({ kind: 'move', value: minMove }, price, close).met;
  return meets(r.lo) || meets(r.hi);
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
  return (await evaluateAlertsOn(ctx, ticker, until, stockBase)).fired;
}

/** evaluateAlerts, saying also whether a move alert stalled at a quote whose previous close is unknown now. */
async function evaluateAlertsOn(
  ctx: AlertDeps,
  ticker: string,
  until: number,
  stockBase: (at: number) => number,
): Promise<{ fired: number; stalled: boolean }> {
  let live = await liveAlertsOn(ctx.db, ticker, until);
  if (live.length === 0) return { fired: 0, stalled: false };
  const previousClose = previousCloses(ctx, ticker, stockBase);
  const resumeAt = (a: AlertRow) => Math.max(a.starts_at, a.checked_until === null ? a.starts_at : a.checked_until - RESUME_OVERLAP_MS);
  let from = Math.min(...live.map(resumeAt));
  let fired = 0;
  let lastSeen: number | null = null;
  let stalled = false;
  while (live.length > 0) {
    const quotes = await quotesInRange(ctx.db, ticker, from, until, QUOTE_PAGE);
    if (quotes.length === 0) break;
    const waiting: AlertRow[] = [];
    // The previous close of each quote, once for every move alert (undefined: the provider could not say).
    const closes = new Map<number, number | undefined>();
    if (live.some((a) => a.kind === 'move')) for (const q of quotes) closes.set(q.at, await previousClose(q.at));
    for (const alert of live) {
      const found = firstMeeting(alert, quotes, resumeAt(alert), closes);
      if (found === 'stalled') {
        stalled = true;
        continue;
      }
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
  return { fired, stalled };
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
