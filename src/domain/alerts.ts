// Price alerts as pure rules (docs/alerts.md): whether a published quote meets
// an alert, the bounds of a value, and the sentence a fired alert is told in.
import { dailyChange } from './instruments.js';
import { formatPrice } from './price-format.js';

export type AlertKind = 'above' | 'below' | 'move';
export const ALERT_KINDS: readonly AlertKind[] = ['above', 'below', 'move'];

/** Bounds of `value`: a price for above/below, a percentage either way for move. */
export const PRICE_MAX = 1_000_000_000;
export const MOVE_MIN = 0.01;
export const MOVE_MAX = 1000;

export interface AlertRule {
  kind: AlertKind;
  value: number;
}

/** Why a value does not fit its kind, or null. The schema bounds the number; a move alert has its own range. */
export function alertValueProblem(rule: AlertRule): string | null {
  if (!Number.isFinite(rule.value)) return 'value must be a number';
  if (rule.kind === 'move') {
    return rule.value >= MOVE_MIN && rule.value <= MOVE_MAX ? null : `A move alert's value is a percentage from ${MOVE_MIN} to ${MOVE_MAX}`;
  }
  return rule.value > 0 && rule.value <= PRICE_MAX ? null : `A price alert's value is a price above 0 and at most ${PRICE_MAX}`;
}

/** What a quote shows to an alert: the price, and for a move alert the change_percent the directory would show. */
export interface AlertReading {
  met: boolean;
  /** move alerts: the quote's change since the previous close in percent (2 decimals); null otherwise or without a close. */
  changePercent: number | null;
}

/**
 * Whether a published quote meets the alert. `above` and `below` are reached at
 * the level itself (at or beyond it); `move` when the change since the
 * previous close, rounded to 2 decimals as the instrument directory shows it,
 * is at least `value` either way. Without a previous close a move alert is
 * not met (nothing to measure from).
 */
export function readQuote(rule: AlertRule, price: number, previousClose: number | null): AlertReading {
  if (rule.kind === 'above') return { met: price >= rule.value, changePercent: null };
  if (rule.kind === 'below') return { met: price <= rule.value, changePercent: null };
  const change = dailyChange(price, previousClose);
  if (change === null) return { met: false, changePercent: null };
  return { met: Math.abs(change.changePercent) >= rule.value, changePercent: change.changePercent };
}

export const alertMet = (rule: AlertRule, price: number, previousClose: number | null): boolean => readQuote(rule, price, previousClose).met;

/** The notice of a fired alert, dated by the quote that fired it (a quote published while no one was watching says when). */
export function firedText(ticker: string, rule: AlertRule, fired: { price: number; at: number; changePercent: number | null }): string {
  const when = `${new Date(fired.at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (rule.kind === 'move') {
    const c = fired.changePercent ?? 0;
    return `Alert: ${ticker} moved ${c >= 0 ? '+' : ''}${c.toFixed(2)} % since its previous close, at ${formatPrice(fired.price)} (${when}; your alert: ${formatPrice(rule.value)} % either way).`;
  }
  return `Alert: ${ticker} at ${formatPrice(fired.price)} (${when}), at or ${rule.kind} your level ${formatPrice(rule.value)}.`;
}
