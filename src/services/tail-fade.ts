// Tail (copy) or fade (oppose) another trader's open bet: the caller opens the
// same ticker in the same or the opposite direction, same target date, at the
// current price and within their own bet capacity. The new bet records which
// bet it came from (bets.source_bet_id, source_kind).
import type { Direction } from '../db/tables.js';
import { AppError, badRequest, notFound } from '../errors.js';
import { findBetById } from '../repositories/bets.js';
import type { OpenBetResponse } from '../schemas/bets.js';
import { type BetDeps, openBet } from './bets.js';
import type { BetEvent } from './events.js';

export type CopyKind = 'tail' | 'fade';

/** What the chat is told of a bet its button opened. */
export const copiedText = (kind: CopyKind, opened: string) => `${kind === 'tail' ? 'Tailed' : 'Faded'}: ${opened}.`;

const OPPOSITE: Record<Direction, Direction> = { LONG: 'SHORT', SHORT: 'LONG' };

export async function tailOrFade(ctx: BetDeps, userId: number, betId: number, kind: CopyKind, button?: BetEvent['button']): Promise<OpenBetResponse> {
  const source = await findBetById(ctx.db, betId);
  if (!source) throw notFound('Bet not found');
  if (source.status !== 'OPEN') throw badRequest('Bet is not open');
  if (source.user_id === userId) throw badRequest(`You cannot ${kind} your own bet`);
  return openBet(
    ctx,
    userId,
    {
      ticker: source.ticker,
      direction: kind === 'tail' ? source.direction : OPPOSITE[source.direction],
      ...(source.target_date !== null ? { target_date: source.target_date } : {}),
    },
    { betId, kind },
    button,
  );
}

/** What the chat is told after a Tail or Fade button press, and whether the bet opened (its answer recorded in the opening's transaction). */
export interface CopyOutcome {
  text: string;
  recorded: boolean;
}

/**
 * A Tail or Fade from the chat. When the bet opens, the opening's betChanged
 * handlers record the press and its answer (src/services/chat.ts); when it is
 * refused, the caller records the outcome itself.
 */
export async function tailOrFadeOutcome(
  ctx: BetDeps,
  userId: number,
  betId: number,
  kind: CopyKind,
  button: NonNullable<BetEvent['button']>,
): Promise<CopyOutcome> {
  try {
    const opened = await tailOrFade(ctx, userId, betId, kind, button);
    return { text: copiedText(kind, opened.message), recorded: true };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { text: refusal(err), recorded: false };
  }
}

function refusal(err: AppError): string {
  const body = err.body;
  if ('limit' in body) return `Not opened: you have reached your limit of ${body.limit} open bets.`;
  if (err.statusCode === 404) return 'Not opened: that bet no longer exists.';
  if (err.statusCode === 503) return 'Not opened: prices are unavailable right now, try again shortly.';
  if (err.statusCode === 400) {
    return body.error === 'Bet is not open' ? 'Not opened: that bet is already closed.' : `Not opened. ${body.error}.`;
  }
  throw err;
}
