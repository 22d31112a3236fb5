// The local provider's checkout and portal: confirming or cancelling goes
// through applySubscriptionState, the same path as a Stripe confirmation.
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { lockUser } from '../repositories/users.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { type LocalCheckoutStore, localId } from '../providers/payments/local.js';
import { completeLocalCheckout, findLocalCheckout, insertLocalCheckout } from '../repositories/payments.js';
import { findUserById } from '../repositories/users.js';
import type { StripePlan } from '../schemas/payments.js';
import { applySubscriptionState } from './payments.js';

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

async function planById(ctx: AppContext, priceId: string | null): Promise<StripePlan | null> {
  if (priceId === null) return null;
  return (await ctx.payments.plans()).find((p) => p.price_id === priceId) ?? null;
}

/** The caller's own checkout; another user's id is not found. */
export async function localCheckoutView(ctx: AppContext, userId: number, id: string): Promise<LocalCheckoutView> {
  const checkout = await findLocalCheckout(ctx.db, id, userId);
  if (!checkout) throw notFound('Checkout not found');
  const user = await findUserById(ctx.db, userId);
  const status: LocalCheckoutStatus = checkout.completed_at !== null ? 'completed' : checkout.expires_at <= ctx.clock.now() ? 'expired' : 'open';
  return { id, status, plan: await planById(ctx, checkout.price_id), alreadySubscribed: (user?.pay_subscription_id ?? null) !== null };
}

export async function confirmLocalCheckout(ctx: AppContext, userId: number, id: string): Promise<void> {
  const view = await localCheckoutView(ctx, userId, id);
  if (view.status === 'completed') throw conflict('This checkout is already completed');
  if (view.status === 'expired') throw badRequest('This checkout has expired: start a new one');
  const plan = view.plan;
  if (!plan) throw badRequest('This plan is no longer offered: start a new checkout');
  await ctx.database.transaction(async (trx) => {
    await lockUser(trx, ctx.dialect, userId);
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
}

export async function localPortalView(ctx: AppContext, userId: number): Promise<LocalPortalView> {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw notFound('User not found');
  if (!user.pay_customer_id) throw badRequest('No payment customer found: start a checkout first');
  return { subscriptionId: user.pay_subscription_id, status: user.pay_subscription_status, plan: await planById(ctx, user.pay_price_id) };
}

export async function cancelLocalSubscription(ctx: AppContext, userId: number): Promise<void> {
  await ctx.database.transaction(async (trx) => {
    await lockUser(trx, ctx.dialect, userId);
    const user = await findUserById(trx, userId);
    if (!user) throw notFound('User not found');
    if (user.pay_subscription_id === null) throw badRequest('No subscription to cancel');
    await applySubscriptionState(ctx, trx, userId, {
      subscriptionId: user.pay_subscription_id,
      status: 'canceled',
      priceId: user.pay_price_id,
      extraBets: 0,
      extraSlots: 0,
    });
  });
}
