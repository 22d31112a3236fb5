// Subscription rules with no I/O: what a provider-reported subscription status
// grants, how plan metadata reads, and how a confirmation changes a user.

/**
 * entitled: paid up, the plan's extras apply.
 * held: the subscription exists but pays for nothing now (past_due, unpaid,
 *   incomplete, paused): extras are withdrawn, yet the user keeps it and
 *   settles it in the portal rather than buying a second one.
 * ended: gone (canceled, incomplete_expired, deleted).
 */
export type Standing = 'entitled' | 'held' | 'ended';

export function standingOf(status: string): Standing {
  if (status === 'active' || status === 'trialing') return 'entitled';
  if (status === 'canceled' || status === 'incomplete_expired') return 'ended';
  return 'held';
}

/** A capacity extra as written in plan metadata: a small non-negative integer, else null. */
export function parseExtra(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 1_000_000) return value;
  if (typeof value !== 'string' || !/^\d{1,7}$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return n <= 1_000_000 ? n : null;
}

/** A subscription as the provider reports it now. */
export interface SubscriptionState {
  subscriptionId: string;
  status: string;
  priceId: string | null;
  extraBets: number;
  extraSlots: number;
}

export interface SubscriptionColumns {
  pay_subscription_id: string | null;
  pay_subscription_status: string;
  pay_price_id: string | null;
  extra_bets: number;
  extra_slots: number;
}

/**
 * The user's subscription columns after a confirmation, or null when it
 * changes nothing: the end of some other subscription than the user's current
 * one (a late event about a replaced subscription) must not undo the new one.
 */
export function nextSubscriptionColumns(currentSubscriptionId: string | null, s: SubscriptionState): SubscriptionColumns | null {
  const standing = standingOf(s.status);
  if (standing === 'ended' && currentSubscriptionId !== null && currentSubscriptionId !== s.subscriptionId) return null;
  if (standing === 'ended' && currentSubscriptionId === null) return null;
  const entitled = standing === 'entitled';
  return {
    pay_subscription_id: standing === 'ended' ? null : s.subscriptionId,
    pay_subscription_status: s.status,
    pay_price_id: standing === 'ended' ? null : s.priceId,
    extra_bets: entitled ? s.extraBets : 0,
    extra_slots: entitled ? s.extraSlots : 0,
  };
}

/**
 * Our own plan data beside SPEC's plan shape: what each price id adds
 * (plans.json's "extra_leagues", "extra_alerts"). Refuses a malformed table, so
 * a typo stops the service at start rather than granting nothing quietly.
 */
export function parsePlanExtras(raw: unknown, field: string): ReadonlyMap<string, number> {
  if (raw === undefined) return new Map();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${field} must map price ids to counts`);
  const out = new Map<string, number>();
  for (const [priceId, value] of Object.entries(raw)) {
    const n = parseExtra(value);
    if (n === null) throw new Error(`${field} of ${priceId} must be a non-negative integer`);
    out.set(priceId, n);
  }
  return out;
}

export const parseLeagueExtras = (raw: unknown): ReadonlyMap<string, number> => parsePlanExtras(raw, 'extra_leagues');

/** Leagues a user's plan adds: only while the subscription is paid up (as the other extras). */
export function extraLeaguesOf(
  user: { pay_price_id: string | null; pay_subscription_status: string | null },
  extras: ReadonlyMap<string, number>,
): number {
  if (user.pay_price_id === null || user.pay_subscription_status === null) return 0;
  if (standingOf(user.pay_subscription_status) !== 'entitled') return 0;
  return extras.get(user.pay_price_id) ?? 0;
}

/** Live price alerts a user's plan adds (plans.json's extra_alerts): the same rule as leagues, paid up only. */
export const extraAlertsOf = extraLeaguesOf;
