// A finished bet as lists show it (history, public profiles, the feed): its
// ClosedBet shape, and that shape's JSON text, which the update finishing a
// bet stores (`view_json`, migration 0040) and a page of history sends as it
// is. Here, below the database layer, so that migration 0040 writes the views
// of the bets already finished with the same function as the service.
import build from 'fast-json-stringify';
import type { BetViewRow } from '../db/bet-columns.js';
import type { BetStatus } from '../db/tables.js';
import { recordCloseReason } from '../domain/record.js';
import { isoTime } from '../lib/iso-time.js';
import { type ClosedBet, ClosedBetSchema } from './bets.js';
import { nullableAsTypeList } from './nullable-types.js';

export type StatusBet = ClosedBet & { status: BetStatus };

/**
 * A CLOSED or CANCELLED bet (a cancelled one shows exit = entry, 0 %, at the
 * cancel time), with why it ended as the record names it. Built as one
 * literal, the reason set after it: a spread of a conditional part makes an
 * object whose every later copy is slow, and pages copy 100 of them.
 */
export function toClosedBet(row: BetViewRow): StatusBet {
  if (row.closed_at === null || row.exit_price === null || row.percentage_gain === null) {
    throw new Error(`toClosedBet: bet ${row.id} is ${row.status}, not finished`);
  }
  const view: StatusBet = {
    id: row.id,
    ticker: row.ticker,
    direction: row.direction,
    entry_price: row.entry_price,
    exit_price: row.exit_price,
    percentage_gain: row.percentage_gain,
    exit_date: isoTime(row.closed_at),
    entry_date: isoTime(row.opened_at),
    status: row.status,
  };
  if (row.close_reason !== null) view.close_reason = recordCloseReason(row.close_reason)!;
  return view;
}

// Built as the answers' serializers are (src/http/serialization.ts), so the bytes are theirs.
const serializeClosedBet = build(nullableAsTypeList(ClosedBetSchema));

/**
 * A finished bet's view without its thesis, as the JSON text an answer
 * carries. A finished bet's columns in it never change, so neither does the
 * text; its thesis, which can, is added when a page is read.
 */
export function finishedView(row: BetViewRow): string {
  return serializeClosedBet(toClosedBet(row));
}

/** Any bet's view in ClosedBet shape as JSON text (an OPEN bet's marked to market, to be sent with stored views). */
export function statusBetJson(view: StatusBet): string {
  return serializeClosedBet(view);
}
