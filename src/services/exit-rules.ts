// Exit rules (issue 37, docs/exits.md): a bet's stop-loss and take-profit,
// set while it is open, and the trigger engine's watcher that closes the bet
// at the first published quote at or beyond a level.
import type { Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';
import { settlementDue } from '../domain/bets.js';
import { type ExitLevels, exitLevelsProblem, exitReached, firstCrossing, levelPrice, type Quote } from '../domain/exits.js';
import { badRequest, notFound } from '../errors.js';
import type { Evaluation, QuoteWatcher } from '../jobs/price-triggers.js';
import { yieldToLoop } from '../lib/yield.js';
import { findBetById } from '../repositories/bets.js';
import {
  earliestLiveExitRule,
  type ExitRuleRow,
  exitRuleCandidates,
  findExitRule,
  type LiveExitRule,
  liveExitTickers,
  saveExitRule,
} from '../repositories/exit-rules.js';
import { quotesBetween } from '../repositories/quotes.js';
import type { BetExits, SetExitsRequest } from '../schemas/bets.js';
import { iso } from './bet-views.js';
import { type BetDeps, closeAtQuote } from './bets.js';

export type ExitDeps = BetDeps;

const NO_LEVELS: ExitLevels = { stop_loss: null, take_profit: null };

function toExits(bet: BetRow, rule: ExitRuleRow | undefined): BetExits {
  const levels = rule ?? NO_LEVELS;
  const price = (gain: number | null) => (gain === null ? null : levelPrice(bet.direction, bet.entry_price, gain));
  return {
    bet_id: bet.id,
    stop_loss: levels.stop_loss,
    take_profit: levels.take_profit,
    stop_loss_price: price(levels.stop_loss),
    take_profit_price: price(levels.take_profit),
    set_at: rule ? iso(rule.set_at) : null,
    live: rule !== undefined && bet.status === 'OPEN',
  };
}

/** The caller's bet; another user's is answered as a missing one (404), as a cancel answers it: exits are private. */
const ownBet = (bet: BetRow | undefined, userId: number): BetRow => {
  if (!bet || bet.user_id !== userId) throw notFound('Bet not found');
  return bet;
};

/** A bet's levels, to its owner only (after it finished too: the levels that stood). */
export async function betExits(ctx: ExitDeps, userId: number, betId: number): Promise<BetExits> {
  const bet = ownBet(await findBetById(ctx.db, betId), userId);
  return toExits(bet, await findExitRule(ctx.db, bet.id));
}

/**
 * Sets, changes or removes an OPEN bet's levels: an absent field keeps its
 * level, null removes it. Under the bet's lock, so the trigger engine, which
 * re-checks the rule under the same lock, fires the old rule before the change
 * or the new one after it, never a mix. The change starts the rule afresh:
 * only quotes published after it count (a level already passed fires at the next quote).
 */
export async function setExits(ctx: ExitDeps, userId: number, betId: number, req: SetExitsRequest): Promise<BetExits> {
  return ctx.database.transaction(async (trx) => {
    const bet = ownBet(await ctx.database.lock(trx, 'bets', betId), userId);
    const now = ctx.clock.now();
    // Past its settlement instant a bet is the settlement's, at that instant's quote.
    if (bet.status !== 'OPEN' || settlementDue(bet, now)) throw badRequest('Bet is not open');
    const current = (await findExitRule(trx, bet.id)) ?? NO_LEVELS;
    const levels: ExitLevels = {
      stop_loss: req.stop_loss === undefined ? current.stop_loss : req.stop_loss,
      take_profit: req.take_profit === undefined ? current.take_profit : req.take_profit,
    };
    const problem = exitLevelsProblem(bet.direction, levels);
    if (problem) throw badRequest(problem);
    const rule = { bet_id: bet.id, ticker: bet.ticker, ...levels, set_at: now };
    await saveExitRule(trx, rule);
    return toExits(bet, levels.stop_loss === null && levels.take_profit === null ? undefined : rule);
  });
}

/**
 * How far before the last instant a watcher checked it looks again: a quote is
 * dated when its publication starts (before the provider answers, within the
 * price time-out) and can land in the table after a later pass, on another instance.
 */
export const EXIT_LOOKBACK_MS = 5 * 60_000;

/**
 * The trigger engine's watcher of exit rules (src/jobs/price-triggers.ts). Each
 * pass reads, in one statement, the live rules that a quote published since a
 * little before the instant it last evaluated every rule up to may fire (from
 * the earliest live rule's last change, on its first pass), then reads those
 * rules' instruments' quotes; each rule fires at its first crossing quote after
 * its own last change. A pass's cost follows the rules near their levels, not
 * every live rule.
 */
export function exitRulesWatcher(ctx: ExitDeps): QuoteWatcher {
  // Up to when this instance evaluated every live rule; null before its first pass.
  let checked: number | null = null;
  return {
    name: 'exit rules',
    liveTickers: () => liveExitTickers(ctx.db),
    async evaluate(tickers, until, signal): Promise<Evaluation> {
      if (tickers.length === 0) {
        // Nothing live: the next rule's span starts at its own setting, not at this instance's last pass.
        checked = null;
        return { fired: 0, failures: [] };
      }
      const from = checked === null ? await earliestLiveExitRule(ctx.db) : checked - EXIT_LOOKBACK_MS;
      if (from === null) {
        checked = until;
        return { fired: 0, failures: [] };
      }
      const byTicker = new Map<string, LiveExitRule[]>();
      for (const rule of await exitRuleCandidates(ctx.db, from, until)) {
        const list = byTicker.get(rule.ticker);
        if (list) list.push(rule);
        else byTicker.set(rule.ticker, [rule]);
      }
      let fired = 0;
      const failures: Evaluation['failures'] = [];
      let whole = true;
      for (const [i, [ticker, rules]] of [...byTicker].entries()) {
        if (signal.aborted) {
          whole = false;
          break;
        }
        if (i > 0) await yieldToLoop();
        const quotes = await quotesBetween(ctx.db, ticker, from, until);
        for (const rule of rules) {
          const crossing = firstCrossing(rule, quotes);
          if (!crossing) continue;
          try {
            const bet = await findBetById(ctx.db, rule.bet_id);
            if (bet?.status !== 'OPEN') continue;
            const closed = await closeAtQuote(ctx, bet, crossing.reason, crossing.quote, (trx, locked) =>
              stillMeets(trx, locked, crossing.reason, crossing.quote),
            );
            if (closed) fired++;
          } catch (err) {
            // The other rules still fire; the span is read again from where it was, so this one fires at the same quote next pass.
            failures.push({ ticker, err });
          }
        }
      }
      if (whole && failures.length === 0) checked = until;
      return { fired, failures };
    },
  };
}

/** Under the bet's lock: the rule as it stands now was set before the quote, and the quote still meets the same level. */
async function stillMeets(trx: Db, bet: BetRow, reason: string, quote: Quote): Promise<boolean> {
  const rule = await findExitRule(trx, bet.id);
  if (!rule || rule.set_at >= quote.at) return false;
  if (bet.settle_at !== null && quote.at >= bet.settle_at) return false;
  return exitReached(bet.direction, bet.entry_price, rule, quote.price) === reason;
}
