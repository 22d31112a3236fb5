// The bet lifecycle: open, close, cancel, automatic settlement; and the
// caller's portfolio, history and the leaderboard. Every state change runs in
// one transaction with the betChanged event's handlers (src/services/wiring.ts).
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';
import { capacitiesOf } from '../domain/accounts.js';
import {
  commitDue,
  committedInstant,
  isCancelable,
  percentageGain,
  rankedGain,
  rankState,
  settlementDue,
  targetDateProblem,
} from '../domain/bets.js';
import { type ExitReason, exitLevelsProblem, type Quote } from '../domain/exits.js';
import { benchmarkOf } from '../domain/rankings.js';
import { recordCloseReason } from '../domain/record.js';
import { badRequest, cancelWindowExpired, internal, limitReached, notFound } from '../errors.js';
import {
  commitOpenBet,
  countOpenBets,
  findBetById,
  finishOpenBetLockingOwner,
  finishedWithTheses,
  insertBetWithinCapacity,
  isStoredView,
  listFinishedBets,
  listOpenBets,
} from '../repositories/bets.js';
import { findBetPage } from '../repositories/bet-pages.js';
import { saveExitRule } from '../repositories/exit-rules.js';
import { lockPlanHolder } from '../repositories/users.js';
import type { BetDetail, CancelBetResponse, CloseBetResponse, OpenBetRequest, OpenBetResponse, PortfolioBet } from '../schemas/bets.js';
import { finishedView, iso, type StatusBet, toBetView, toPortfolioBet } from './bet-views.js';
import { benchmarkPrice } from './benchmarks.js';
import type { BetEvent } from './events.js';
import { priceOrUnavailable, tickerOrBadRequest } from './price-requests.js';
import { prepareThesis, storeThesis, type ThesisDeps, withThesisJson, withThesisRow } from './theses.js';

/** What the bet lifecycle uses of the context: a service built without Fastify passes these. */
export type BetDeps = Pick<AppContext, 'config' | 'database' | 'db' | 'clock' | 'prices' | 'events'> & ThesisDeps;

export const LEADERBOARD_SIZE = 100;

/** A public view of one bet with its owner; 404 for a missing bet or a deleted owner. */
export async function betDetail(ctx: BetDeps, betId: number): Promise<BetDetail> {
  const page = await findBetPage(ctx.db, betId);
  if (!page) throw notFound('Bet not found');
  const { bet, owner } = page;
  const mark = bet.status === 'OPEN' ? (await ctx.prices.marks([bet.ticker])).get(bet.ticker) : undefined;
  // The view with the detail's fields set on it, not copied into a literal by
  // spread (see addThesis in ./theses.ts for why).
  const detail = toBetView(bet, mark, ctx.clock.now()) as BetDetail;
  detail.target_date = bet.target_date;
  detail.user = { id: owner.id, username: owner.username };
  detail.committed_at = iso(committedInstant(bet.opened_at));
  detail.committed_price = bet.committed_price;
  detail.ranked_gain = bet.ranked_gain;
  detail.ranked = rankState(bet);
  detail.unranked_reason = bet.unranked_reason;
  detail.close_reason = recordCloseReason(bet.close_reason);
  // Shared by every caller (a public, cached answer): the thesis as others see it.
  return withThesisRow(ctx, detail, page.thesis, null);
}

export interface BetSource {
  betId: number;
  kind: 'tail' | 'fade';
}

/** What an opening answers, and what a chat that opened it by a button is told. */
export const openedMessage = (bet: Pick<BetRow, 'direction' | 'ticker' | 'entry_price'>) =>
  `Opened ${bet.direction} ${bet.ticker} at ${bet.entry_price}`;

export async function openBet(
  ctx: BetDeps,
  userId: number,
  req: OpenBetRequest,
  source?: BetSource,
  button?: BetEvent['button'],
): Promise<OpenBetResponse> {
  const ticker = tickerOrBadRequest(req.ticker);
  // The thesis (docs/theses.md) is checked and salted before the price is fetched: a bad one costs no quote.
  const thesis = prepareThesis(req.thesis);
  const targetDate = req.target_date ?? null;
  if (targetDate !== null) {
    const problem = targetDateProblem(targetDate, ctx.clock.now());
    if (problem) throw badRequest(problem);
  }
  // Exit levels are optional (a SPEC client sends none and gets SPEC's behaviour); the schema holds their bounds.
  const levels = { stop_loss: req.stop_loss ?? null, take_profit: req.take_profit ?? null };
  const levelsProblem = exitLevelsProblem(req.direction, levels);
  if (levelsProblem) throw badRequest(levelsProblem);
  // The benchmark's price (for alpha) is fetched beside the entry price, before the transaction; null on failure.
  const [entryPrice, benchmarkEntry] = await Promise.all([priceOrUnavailable(ctx, ticker), benchmarkPrice(ctx, ticker)]);
  return ctx.database.transaction(async (trx) => {
    // The user row lock serialises this user's opens, so the capacity check in the insert stays true until commit.
    // On PostgreSQL the same statement reads the chain head the record handler builds the opening's entry on.
    const opener = await lockPlanHolder(trx, userId, { chainHead: true });
    if (!opener) throw notFound('User not found');
    // A tail or fade copies an open bet: re-read it here, so one closed since the caller looked is refused.
    if (source && (await findBetById(trx, source.betId))?.status !== 'OPEN') throw badRequest('Bet is not open');
    const capacity = capacitiesOf(ctx.config.capacities, opener).bet_capacity;
    const now = ctx.clock.now();
    const bet = await insertBetWithinCapacity(
      trx,
      {
        user_id: userId,
        ticker,
        direction: req.direction,
        status: 'OPEN',
        entry_price: entryPrice,
        target_date: targetDate,
        settle_at: targetDate === null ? null : ctx.config.marketCalendar.settlementTime(ticker, targetDate),
        opened_at: now,
        last_event_at: now,
        source_bet_id: source?.betId ?? null,
        source_kind: source?.kind ?? null,
        benchmark_entry: benchmarkEntry,
      },
      capacity,
    );
    if (!bet) {
      const open = await countOpenBets(trx, userId);
      throw limitReached(`You have ${open} open bets and your plan allows ${capacity}; close one or upgrade your plan`, capacity);
    }
    if (thesis) await storeThesis(trx, bet, thesis, now);
    // Set at the opening instant: the quotes after it (the entry's own quote aside) are checked against the levels.
    if (levels.stop_loss !== null || levels.take_profit !== null) await saveExitRule(trx, { bet_id: bet.id, ticker, ...levels, set_at: now });
    await ctx.events.emit(trx, 'betChanged', {
      kind: 'opened',
      bet,
      at: now,
      ownerLocked: true,
      ownerHead: opener.chain,
      ownerName: opener.username,
      button,
      thesisHash: thesis?.hash,
    });
    return { message: openedMessage(bet), bet_id: bet.id, entry_price: entryPrice };
  });
}

/** The prices a bet ends at, fetched before its transaction: the bet's own and the benchmark's (null when unavailable). */
export interface ExitPrices {
  price: number;
  benchmark: number | null;
}

/**
 * The quotes a bet's instants that have come need, fetched before its
 * transaction (docs/rankings.md): its committed prices, once its cancel window
 * has ended, and its settlement price, once its settlement instant has come;
 * each the first quote published at or after its instant.
 */
interface DueQuotes {
  commit?: ExitPrices;
  settle?: ExitPrices & { at: number };
}

/** The benchmark's first quote at or after `at`, or null when it cannot be had (the bet then has no alpha there). */
async function benchmarkQuoteAtOrAfter(ctx: BetDeps, ticker: string, at: number): Promise<number | null> {
  try {
    return (await ctx.prices.quoteAtOrAfter(benchmarkOf(ticker), at)).price;
  } catch {
    return null;
  }
}

/** Throws like PriceService.current when the bet's own quote cannot be had. */
async function dueQuotes(ctx: BetDeps, bet: BetRow, now: number): Promise<DueQuotes> {
  const due: DueQuotes = {};
  if (bet.status !== 'OPEN') return due;
  if (commitDue(bet, now)) {
    const at = committedInstant(bet.opened_at);
    const [quote, benchmark] = await Promise.all([ctx.prices.quoteAtOrAfter(bet.ticker, at), benchmarkQuoteAtOrAfter(ctx, bet.ticker, at)]);
    due.commit = { price: quote.price, benchmark };
  }
  if (settlementDue(bet, now)) {
    // A same-day target opened after that day's close is due at once: at its opening, never before it.
    const at = Math.max(bet.settle_at!, bet.opened_at);
    const [quote, benchmark] = await Promise.all([ctx.prices.quoteAtOrAfter(bet.ticker, at), benchmarkQuoteAtOrAfter(ctx, bet.ticker, at)]);
    due.settle = { price: quote.price, benchmark, at };
  }
  return due;
}

/** What applying a bet's due instants did. */
export interface CaughtUp {
  /** The bet after; undefined when it is gone or another instance holds it (skipLocked). */
  bet: BetRow | undefined;
  committed: boolean;
  settled: boolean;
}

/**
 * Records inside trx what the bet's instants that have come decided: its
 * committed prices, then its settlement at its own instant. The commit is
 * applied to the bet answered even when another instance recorded it first
 * (both read the same first quote).
 */
async function applyDue(ctx: BetDeps, trx: Db, bet: BetRow, due: DueQuotes, now: number): Promise<CaughtUp> {
  let row = bet;
  let committed = false;
  if (due.commit && row.committed_price === null) {
    const done = await commitOpenBet(trx, bet.id, due.commit.price, due.commit.benchmark);
    if (done) await ctx.events.emit(trx, 'betCommitted', { bet: done, at: now });
    committed = done !== undefined;
    row = done ?? { ...row, committed_price: due.commit.price, benchmark_committed: due.commit.benchmark };
  }
  if (!due.settle) return { bet: row, committed, settled: false };
  const settled = await closeAt(ctx, trx, row, due.settle, 'settlement', due.settle.at, now);
  return { bet: settled ?? row, committed, settled: settled !== undefined };
}

/**
 * Brings one bet up to `now`: commits it and settles it at their instants
 * when those have come. With skipLocked (the jobs) a bet another instance
 * holds is left to it.
 */
export async function catchUp(ctx: BetDeps, bet: BetRow, now: number, opts: { skipLocked?: boolean } = {}): Promise<CaughtUp> {
  const due = await dueQuotes(ctx, bet, now);
  if (!due.commit && !due.settle) return { bet, committed: false, settled: false };
  return ctx.database.transaction(async (trx) => {
    const locked = await ctx.database.lock(trx, 'bets', bet.id, opts);
    if (locked?.status !== 'OPEN') return { bet: locked, committed: false, settled: false };
    return applyDue(ctx, trx, locked, due, now);
  });
}

/**
 * Ends an OPEN bet at a price (user close or settlement) inside trx: records
 * exit price, gain, the exit instant `exitAt` (a settlement's is its due
 * instant, whenever it runs), the ranked gain and the benchmark's exit price,
 * emits the event (whose handlers add to the leaderboard). Undefined when the
 * bet is no longer OPEN.
 */
async function closeAt(
  ctx: BetDeps,
  trx: Db,
  bet: BetRow,
  { price, benchmark }: ExitPrices,
  reason: 'user' | 'settlement' | ExitReason,
  exitAt: number,
  now: number,
): Promise<BetRow | undefined> {
  const gain = percentageGain(bet.direction, bet.entry_price, price);
  const exit = { status: 'CLOSED', exit_price: price, percentage_gain: gain, closed_at: exitAt, close_reason: reason } as const;
  // On PostgreSQL the update also takes the owner's row lock and reads their chain head, for the record handler.
  const finished = await finishOpenBetLockingOwner(trx, bet, {
    ...exit,
    benchmark_exit: benchmark,
    ranked_gain: exitAt >= committedInstant(bet.opened_at) ? rankedGain(bet, price) : null,
    view_json: finishedView({ ...bet, ...exit }),
  });
  if (!finished) return undefined;
  const { bet: closed, chain } = finished;
  // An exit rule's close is a close (SPEC's CLOSED, on the leaderboard); only the settlement is 'settled'.
  const kind = reason === 'settlement' ? 'settled' : 'closed';
  await ctx.events.emit(trx, 'betChanged', { kind, bet: closed, at: now, ...(chain ? { ownerLocked: true, ownerHead: chain } : {}) });
  return closed;
}

/**
 * Closes an OPEN bet for an exit rule at a published quote: its price, dated
 * its instant, through the same steps as a close by its owner (the commit due
 * by that instant first, then closeAt, so one before the committed instant is
 * not ranked). `stillMeets` re-checks the rule under the bet's lock, so a rule
 * changed or removed since it was read does not fire. A bet another instance
 * holds is left to it (skipLocked): the rule fires once. Undefined when nothing
 * was closed. The quote is before the bet's settlement instant (the caller's
 * check), so no settlement is due at it.
 */
export async function closeAtQuote(
  ctx: BetDeps,
  bet: BetRow,
  reason: ExitReason,
  quote: Quote,
  stillMeets: (trx: Db, bet: BetRow) => Promise<boolean>,
): Promise<BetRow | undefined> {
  const [due, benchmark] = await Promise.all([dueQuotes(ctx, bet, quote.at), benchmarkQuoteAtOrAfter(ctx, bet.ticker, quote.at)]);
  const now = ctx.clock.now();
  return ctx.database.transaction(async (trx) => {
    const locked = await ctx.database.lock(trx, 'bets', bet.id, { skipLocked: true });
    if (locked?.status !== 'OPEN' || !(await stillMeets(trx, locked))) return undefined;
    const row = (await applyDue(ctx, trx, locked, due, now)).bet ?? locked;
    return closeAt(ctx, trx, row, { price: quote.price, benchmark }, reason, quote.at, now);
  });
}

/** A bet whose settlement instant has passed is settled at it first (when its price can be had); the caller then answers it is not open. */
async function settleFirst(ctx: BetDeps, bet: BetRow, now: number): Promise<void> {
  try {
    await catchUp(ctx, bet, now);
  } catch {
    // The settlement job settles it at the same instant's quote once the provider answers.
  }
}

export async function closeBet(ctx: BetDeps, userId: number, betId: number): Promise<CloseBetResponse> {
  // Read outside the transaction (the ticker decides the price to fetch); the update below decides whether it is still OPEN.
  const bet = await findBetById(ctx.db, betId);
  // SPEC: a missing bet and another user's bet are both 400 here, with one message.
  if (!bet || bet.user_id !== userId) throw badRequest('Bet not found');
  if (bet.status !== 'OPEN') throw badRequest('Bet is not open');
  const now = ctx.clock.now();
  // Past its settlement instant a bet is settled at that instant's quote: no later price can be had by closing.
  if (settlementDue(bet, now)) {
    await settleFirst(ctx, bet, now);
    throw badRequest('Bet is not open');
  }
  let due: DueQuotes;
  let exit: ExitPrices;
  try {
    // The commit's quote first: the exit's quote, published at or after it, is never an earlier one.
    due = await dueQuotes(ctx, bet, now);
    const benchmark = benchmarkPrice(ctx, bet.ticker); // never rejects
    exit = { price: await ctx.prices.current(bet.ticker), benchmark: await benchmark };
  } catch {
    throw internal('Could not fetch the current price; the bet stays open, try again');
  }
  const closed = await ctx.database.transaction(async (trx) =>
    closeAt(ctx, trx, (await applyDue(ctx, trx, bet, due, now)).bet ?? bet, exit, 'user', now, now),
  );
  if (!closed) throw badRequest('Bet is not open');
  return {
    message: `Closed ${closed.direction} ${closed.ticker}`,
    ticker: closed.ticker,
    gain_percent: closed.percentage_gain ?? 0,
    exit_price: exit.price,
  };
}

export async function cancelBet(ctx: BetDeps, userId: number, betId: number): Promise<CancelBetResponse> {
  const now = ctx.clock.now();
  const outcome = await ctx.database.transaction(async (trx) => {
    const bet = await ctx.database.lock(trx, 'bets', betId);
    if (!bet || bet.user_id !== userId) throw notFound('Bet not found');
    if (bet.status !== 'OPEN') throw badRequest('Bet is not open');
    // Settled at its instant first, outside this transaction (its quote may have to be fetched).
    if (settlementDue(bet, now)) return { due: bet, cancelled: undefined };
    if (!isCancelable(bet.opened_at, now)) {
      throw cancelWindowExpired('Bets can be cancelled within 5 minutes of opening; close this bet instead');
    }
    const exit = { status: 'CANCELLED', exit_price: bet.entry_price, percentage_gain: 0, closed_at: now, close_reason: 'cancel' } as const;
    const finished = await finishOpenBetLockingOwner(trx, bet, { ...exit, view_json: finishedView({ ...bet, ...exit }) });
    if (!finished) throw badRequest('Bet is not open');
    const { bet: cancelled, chain } = finished;
    await ctx.events.emit(trx, 'betChanged', {
      kind: 'cancelled',
      bet: cancelled,
      at: now,
      ...(chain ? { ownerLocked: true, ownerHead: chain } : {}),
    });
    return { due: undefined, cancelled };
  });
  const { due, cancelled } = outcome;
  if (due || !cancelled) {
    if (due) await settleFirst(ctx, due, now);
    throw badRequest('Bet is not open');
  }
  return { message: `Cancelled ${cancelled.direction} ${cancelled.ticker}`, bet_id: cancelled.id };
}

export async function portfolio(ctx: BetDeps, userId: number): Promise<PortfolioBet[]> {
  const rows = await listOpenBets(ctx.db, userId);
  const marks = await ctx.prices.marks(rows.map((r) => r.ticker));
  const now = ctx.clock.now();
  return rows.map((r) => toPortfolioBet(r, marks.get(r.ticker), now));
}

/**
 * The user's finished bets, newest exit first, as the JSON text of an array,
 * with their theses as `viewerId` may see them (the owner: /history; null: a
 * public profile): each bet's stored view as it is, its thesis fields added
 * at its end for a bet that has one.
 */
export async function historyJson(ctx: BetDeps, userId: number, limit: number, offset: number, viewerId: number | null = userId): Promise<string> {
  const page = await listFinishedBets(ctx.db, userId, limit, offset);
  const withThesis = page.filter((v) => v !== null && !isStoredView(v)).map(Number);
  const theses = await finishedWithTheses(ctx.db, withThesis);
  const items = page.map((v) => {
    if (v !== null && isStoredView(v)) return v;
    const bet = v === null ? undefined : theses.get(Number(v));
    if (!bet?.view_json) throw new Error(`a finished bet of user ${userId} has no stored view (migration 0040)`);
    return withThesisJson(ctx, bet.view_json, bet, viewerId);
  });
  return `[${items.join(',')}]`;
}

/** historyJson's bets as objects: a public profile, whose answer is serialized once for every reader. */
export async function history(ctx: BetDeps, userId: number, limit: number, offset: number, viewerId: number | null = userId): Promise<StatusBet[]> {
  return JSON.parse(await historyJson(ctx, userId, limit, offset, viewerId)) as StatusBet[];
}
