// Exit rules (docs/exits.md): a stop-loss and a take-profit, each a percent of
// gain from entry (DESIGN's bounds). A rule fires at the first published quote
// after its last change whose gain is at or beyond a level: at that quote's
// price, never at the level itself, so a gap fills where the price really was.
import { type Direction, percentageGain } from './bets.js';

export const STOP_LOSS_MIN = -99;
export const STOP_LOSS_MAX = -0.01;
export const TAKE_PROFIT_MIN = 0.01;
export const TAKE_PROFIT_MAX = 10_000;

export type ExitReason = 'stop_loss' | 'take_profit';

export interface ExitLevels {
  stop_loss: number | null;
  take_profit: number | null;
}

export interface Quote {
  price: number;
  at: number;
}

/** The price at which a bet's gain from `entry` is `gainPercent` (a SHORT's price falls as its gain rises). */
export function levelPrice(direction: Direction, entry: number, gainPercent: number): number {
  return direction === 'LONG' ? entry * (1 + gainPercent / 100) : entry * (1 - gainPercent / 100);
}

/**
 * Why levels cannot stand on a bet, or null. The bounds are the schema's; a
 * SHORT bet gains at most 100 % (its price would have to reach 0), so a
 * take-profit at or above that could never fire and is refused rather than kept.
 */
export function exitLevelsProblem(direction: Direction, levels: ExitLevels): string | null {
  if (direction === 'SHORT' && levels.take_profit !== null && levels.take_profit >= 100) {
    return 'A SHORT bet gains at most 100 %: take_profit must be below 100';
  }
  return null;
}

/** Which level a price meets, if any: a gain at or below the stop-loss, or at or above the take-profit. */
export function exitReached(direction: Direction, entry: number, levels: ExitLevels, price: number): ExitReason | null {
  const gain = percentageGain(direction, entry, price);
  if (levels.stop_loss !== null && gain <= levels.stop_loss) return 'stop_loss';
  if (levels.take_profit !== null && gain >= levels.take_profit) return 'take_profit';
  return null;
}

export interface ExitRuleFacts extends ExitLevels {
  direction: Direction;
  entry_price: number;
  /** The rule's last change: only quotes after it count. */
  set_at: number;
  /** The bet's settlement instant: a quote at or after it never fires the rule (the bet settles at that instant). */
  settle_at: number | null;
}

/**
 * The first quote (of `quotes`, in order of instant) that fires the rule: after
 * its last change, before the bet's settlement instant, at or beyond a level.
 */
export function firstCrossing(rule: ExitRuleFacts, quotes: readonly Quote[]): { reason: ExitReason; quote: Quote } | null {
  for (const quote of quotes) {
    if (quote.at <= rule.set_at) continue;
    if (rule.settle_at !== null && quote.at >= rule.settle_at) return null;
    const reason = exitReached(rule.direction, rule.entry_price, rule, quote.price);
    if (reason) return { reason, quote };
  }
  return null;
}
