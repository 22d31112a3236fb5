// Billing periods of the local payment provider's subscriptions, with no I/O:
// a subscription renews every interval from the moment it began, as Stripe's
// do from their billing cycle anchor.
import { DateTime } from 'luxon';

export type PlanInterval = 'day' | 'week' | 'month' | 'year';

const UNIT = { day: 'days', week: 'weeks', month: 'months', year: 'years' } as const;

/**
 * The end of the period running at `now` for a subscription that began at
 * `anchor` and renews every `interval`: the first anchor + k intervals (k ≥ 1)
 * after now. Months and years are calendar ones in UTC (a subscription begun
 * on 31 January renews on the last day of February, as Luxon clamps it).
 */
export function periodEndAfter(anchor: number, interval: PlanInterval, now: number): number {
  const start = DateTime.fromMillis(anchor, { zone: 'UTC' });
  // A first guess from the average interval length, then exact steps; never fewer than one interval.
  const approx = { day: 86_400_000, week: 604_800_000, month: 2_629_746_000, year: 31_556_952_000 }[interval];
  let k = Math.max(1, Math.floor((now - anchor) / approx));
  while (k > 1 && start.plus({ [UNIT[interval]]: k - 1 }).toMillis() > now) k--;
  while (start.plus({ [UNIT[interval]]: k }).toMillis() <= now) k++;
  return start.plus({ [UNIT[interval]]: k }).toMillis();
}
