// Plans, checkout, portal, and the one path by which a provider's confirmation
// changes a user's subscription and capacities (applySubscriptionState).
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { nextSubscriptionColumns, type SubscriptionState } from '../domain/payments.js';
import { AppError, badRequest, conflict, internal, notFound } from '../errors.js';
import type { PaymentProvider } from '../providers/payments/types.js';
import { setCustomerIdIfNone, updateSubscriptionColumns } from '../repositories/payments.js';
import { findUserById } from '../repositories/users.js';
import type { StripePlan } from '../schemas/payments.js';

/** What plans and subscriptions use of the context. */
export type PaymentDeps = Pick<AppContext, 'config' | 'database' | 'db' | 'payments'>;

export type Log = Pick<FastifyBaseLogger, 'warn'>;

/** Provider failures become SPEC's 500 with a plain message; the cause goes to the log only. */
async function viaProvider<T>(log: Log, message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    log.warn({ err }, message);
    throw internal(message);
  }
}

export async function listPlans(ctx: PaymentDeps, log: Log): Promise<StripePlan[]> {
  return viaProvider(log, 'Failed to fetch plans', () => ctx.payments.plans());
}

export function checkoutUrls(ctx: PaymentDeps): { successUrl: string; cancelUrl: string; returnUrl: string } {
  const web = ctx.config.webUrl;
  return { successUrl: `${web}?checkout=success`, cancelUrl: `${web}?checkout=cancel`, returnUrl: web };
}

/** The user's provider customer, created once and remembered. */
async function customerOf(
  ctx: PaymentDeps,
  provider: PaymentProvider,
  user: { id: number; email: string; created_at: number; pay_customer_id: string | null },
): Promise<string> {
  if (user.pay_customer_id) return user.pay_customer_id;
  const created = await provider.createCustomer(user);
  if (await setCustomerIdIfNone(ctx.db, user.id, created)) return created;
  // A parallel request remembered its customer first: use that one.
  const again = await findUserById(ctx.db, user.id);
  if (!again?.pay_customer_id) throw new Error('customer vanished');
  return again.pay_customer_id;
}

export async function startCheckout(ctx: PaymentDeps, log: Log, userId: number, priceId: string): Promise<string> {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw notFound('User not found');
  if (user.pay_subscription_id !== null) throw conflict('Already subscribed: manage the plan in the customer portal');
  return viaProvider(log, 'Failed to create checkout session', async () => {
    const plan = (await ctx.payments.plans()).find((p) => p.price_id === priceId);
    if (!plan) throw badRequest('Unknown price_id: take one from GET /api/pay/plans');
    const customerId = await customerOf(ctx, ctx.payments, user);
    return ctx.payments.createCheckout({ userId, customerId, plan, ...checkoutUrls(ctx) });
  });
}

export async function openPortal(ctx: PaymentDeps, log: Log, userId: number): Promise<string> {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw notFound('User not found');
  if (!user.pay_customer_id) throw badRequest('No payment customer found: start a checkout first');
  const customerId = user.pay_customer_id;
  return viaProvider(log, 'Failed to create portal session', () => ctx.payments.createPortal({ customerId, returnUrl: checkoutUrls(ctx).returnUrl }));
}

/**
 * The one confirmation path, for Stripe events and the local provider alike:
 * inside the caller's transaction, sets the user's subscription and plan
 * extras from the provider's current state. Existing bets and follows are
 * never touched; capacity checks refuse only new ones.
 */
export async function applySubscriptionState(ctx: Pick<AppContext, 'database'>, trx: Db, userId: number, state: SubscriptionState): Promise<boolean> {
  if (!(await ctx.database.lock(trx, 'users', userId))) return false;
  const user = await findUserById(trx, userId);
  if (!user) return false;
  const cols = nextSubscriptionColumns(user.pay_subscription_id, state);
  if (!cols) return false;
  await updateSubscriptionColumns(trx, userId, cols);
  return true;
}

/** applySubscriptionState in a transaction of its own. */
export async function confirmSubscription(ctx: Pick<AppContext, 'database'>, userId: number, state: SubscriptionState): Promise<boolean> {
  return ctx.database.transaction((trx) => applySubscriptionState(ctx, trx, userId, state));
}
