// The local provider's checkout and portal: confirming, switching plans and
// ending a subscription go through applySubscriptionState, the same path as a
// Stripe confirmation. As in Stripe's portal, a plan switch applies at once
// and a cancellation at the end of the paid period.
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { type LocalCheckoutStore, localId } from '../providers/payments/local.js';
import { periodEndAfter } from '../domain/plan-periods.js';
import {
  deleteScheduledCancel,
  findScheduledCancel,
  listDueCancels,
  localSubscriptionStart,
  saveScheduledCancel,
} from '../repositories/local-subscriptions.js';
import { completeLocalCheckout, findLocalCheckout, insertLocalCheckout } from '../repositories/payments.js';
import { findUserById } from '../repositories/users.js';
import type { StripePlan } from '../schemas/payments.js';
import { applySubscriptionState } from './payments.js';

/** What the local payment provider's pages use of the context. */
export type LocalPaymentDeps = Pick<AppContext, 'clock' | 'database' | 'db' | 'payments'>;

export type LocalCheckoutStatus = 'open' | 'completed' | 'expired';

export interface LocalCheckoutView {
  id: string;
  status: LocalCheckoutStatus;
  /** Null when the plan was removed from the plans file since. */
  plan: StripePlan | null;
  alreadySubscribed: boolean;
}

/** The local provider's checkouts, kept in the database (the provider itself takes no database). */
export function localCheckoutStore(db: Db): LocalCheckoutStore {
  return {
    save: (c) =>
      insertLocalCheckout(db, {
        id: c.id,
        user_id: c.userId,
        price_id: c.priceId,
        created_at: c.createdAt,
        expires_at: c.expiresAt,
        completed_at: null,
      }),
  };
}

async function planById(ctx: LocalPaymentDeps, priceId: string | null): Promise<StripePlan | null> {
  if (priceId === null) return null;
  return (await ctx.payments.plans()).find((p) => p.price_id === priceId) ?? null;
}

/** The caller's own checkout; another user's id is not found. */
export async function localCheckoutView(ctx: LocalPaymentDeps, userId: number, id: string): Promise<LocalCheckoutView> {
  const checkout = await findLocalCheckout(ctx.db, id, userId);
  if (!checkout) throw notFound('Checkout not found');
  const user = await findUserById(ctx.db, userId);
  const status: LocalCheckoutStatus = checkout.completed_at !== null ? 'completed' : checkout.expires_at <= ctx.clock.now() ? 'expired' : 'open';
  return { id, status, plan: await planById(ctx, checkout.price_id), alreadySubscribed: (user?.pay_subscription_id ?? null) !== null };
}

export async function confirmLocalCheckout(ctx: LocalPaymentDeps, userId: number, id: string): Promise<void> {
  const view = await localCheckoutView(ctx, userId, id);
  if (view.status === 'completed') throw conflict('This checkout is already completed');
  if (view.status === 'expired') throw badRequest('This checkout has expired: start a new one');
  const plan = view.plan;
  if (!plan) throw badRequest('This plan is no longer offered: start a new checkout');
  await ctx.database.transaction(async (trx) => {
    await ctx.database.lock(trx, 'users', userId);
    const user = await findUserById(trx, userId);
    if (!user) throw notFound('User not found');
    if (user.pay_subscription_id !== null) throw conflict('Already subscribed: manage the plan in the customer portal');
    if (!(await completeLocalCheckout(trx, id, userId, ctx.clock.now()))) throw conflict('This checkout is already completed');
    await applySubscriptionState(ctx, trx, userId, {
      subscriptionId: localId('lsub'),
      status: 'active',
      priceId: plan.price_id,
      extraBets: plan.extra_bets,
      extraSlots: plan.extra_slots,
    });
  });
}

export interface LocalPortalView {
  subscriptionId: string | null;
  status: string | null;
  plan: StripePlan | null;
  /** The plans the subscriber can switch to (every plan but the current one). */
  otherPlans: StripePlan[];
  /** The end of the current period: the next renewal, or the end of the plan when cancelled. */
  periodEnd: number | null;
  /** Set when the subscription is cancelled at the end of the period. */
  endsAt: number | null;
}

/** The end of the period running now, from the subscription's start and its plan's interval (monthly if the plan is gone). */
async function currentPeriodEnd(ctx: LocalPaymentDeps, db: Db, userId: number, plan: StripePlan | null): Promise<number> {
  const now = ctx.clock.now();
  const started = (await localSubscriptionStart(db, userId)) ?? now;
  return periodEndAfter(started, plan?.interval ?? 'month', now);
}

export async function localPortalView(ctx: LocalPaymentDeps, userId: number): Promise<LocalPortalView> {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw notFound('User not found');
  if (!user.pay_customer_id) throw badRequest('No payment customer found: start a checkout first');
  const plan = await planById(ctx, user.pay_price_id);
  const subscribed = user.pay_subscription_id !== null;
  const cancel = subscribed ? await findScheduledCancel(ctx.db, userId) : null;
  const endsAt = cancel?.subscriptionId === user.pay_subscription_id ? (cancel?.at ?? null) : null;
  return {
    subscriptionId: user.pay_subscription_id,
    status: user.pay_subscription_status,
    plan,
    otherPlans: subscribed ? (await ctx.payments.plans()).filter((p) => p.price_id !== user.pay_price_id) : [],
    periodEnd: subscribed ? (endsAt ?? (await currentPeriodEnd(ctx, ctx.db, userId, plan))) : null,
    endsAt,
  };
}

/** The caller's subscription, locked for a change; 400 without one. */
async function lockedSubscription(ctx: LocalPaymentDeps, trx: Db, userId: number) {
  await ctx.database.lock(trx, 'users', userId);
  const user = await findUserById(trx, userId);
  if (!user) throw notFound('User not found');
  if (user.pay_subscription_id === null) throw badRequest('No subscription to change');
  return { ...user, pay_subscription_id: user.pay_subscription_id };
}

/**
 * Moves the subscription to another plan at once, as Stripe's portal does
 * (Stripe prorates the charge; no money moves here): the capacities become the
 * new plan's. Refused while the subscription is cancelled at period end.
 */
export async function switchLocalPlan(ctx: LocalPaymentDeps, userId: number, priceId: string): Promise<void> {
  const plan = await planById(ctx, priceId);
  if (!plan) throw badRequest('Unknown price_id: take one from GET /api/pay/plans');
  await ctx.database.transaction(async (trx) => {
    const user = await lockedSubscription(ctx, trx, userId);
    if (user.pay_price_id === plan.price_id) throw badRequest('Already on this plan');
    const cancel = await findScheduledCancel(trx, userId);
    if (cancel?.subscriptionId === user.pay_subscription_id) throw conflict('The plan ends at the end of the period: keep it first, then switch');
    await applySubscriptionState(ctx, trx, userId, {
      subscriptionId: user.pay_subscription_id,
      status: 'active',
      priceId: plan.price_id,
      extraBets: plan.extra_bets,
      extraSlots: plan.extra_slots,
    });
  });
}

/** Cancels at the end of the current period: the capacities stay until then (endDueLocalSubscriptions ends it). */
export async function cancelLocalSubscription(ctx: LocalPaymentDeps, userId: number): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    const user = await lockedSubscription(ctx, trx, userId);
    const existing = await findScheduledCancel(trx, userId);
    if (existing?.subscriptionId === user.pay_subscription_id) throw conflict('The plan already ends at the end of the period');
    const at = await currentPeriodEnd(ctx, trx, userId, await planById(ctx, user.pay_price_id));
    await saveScheduledCancel(trx, { userId, subscriptionId: user.pay_subscription_id, at });
  });
}

/** Takes back a cancellation at period end: the plan renews as before. */
export async function resumeLocalSubscription(ctx: LocalPaymentDeps, userId: number): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    const user = await lockedSubscription(ctx, trx, userId);
    const existing = await findScheduledCancel(trx, userId);
    if (existing?.subscriptionId !== user.pay_subscription_id) throw badRequest('The plan is not cancelled');
    await deleteScheduledCancel(trx, userId);
  });
}

/**
 * Ends the local subscriptions whose cancellation date has come, through the
 * same confirmation path as a provider's event: capacities return to base.
 * Run every minute by the app (src/app.ts) and safe to run anywhere at once:
 * each runs under the user's lock and ends only the subscription it was for.
 */
export async function endDueLocalSubscriptions(ctx: LocalPaymentDeps): Promise<number> {
  const now = ctx.clock.now();
  let ended = 0;
  for (const due of await listDueCancels(ctx.db, now)) {
    await ctx.database.transaction(async (trx) => {
      await ctx.database.lock(trx, 'users', due.userId);
      const again = await findScheduledCancel(trx, due.userId);
      if (!again || again.at > now) return;
      await deleteScheduledCancel(trx, due.userId);
      const user = await findUserById(trx, due.userId);
      if (!user || user.pay_subscription_id !== again.subscriptionId) return;
      const changed = await applySubscriptionState(ctx, trx, due.userId, {
        subscriptionId: again.subscriptionId,
        status: 'canceled',
        priceId: user.pay_price_id,
        extraBets: 0,
        extraSlots: 0,
      });
      if (changed) ended++;
    });
  }
  return ended;
}
