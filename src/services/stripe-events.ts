// Stripe confirmations: verify the signature over the raw body, apply each
// event once, and act on the subscription as Stripe has it now (re-read), so
// events arriving late or out of order still end in the right state.
import type Stripe from 'stripe';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { SubscriptionState } from '../domain/payments.js';
import { badRequest } from '../errors.js';
import { StripePaymentProvider, type StripeSubscriptionSnapshot } from '../providers/payments/stripe.js';
import {
  deletePayEventsBefore,
  findUserByCustomerId,
  findUserBySubscriptionId,
  insertPayEvent,
  payEventExists,
  setCustomerIdIfNone,
} from '../repositories/payments.js';
import { findUserById } from '../repositories/users.js';
import { applySubscriptionState } from './payments.js';

/** The part of the context this module uses. */
export type StripeEventDeps = Pick<AppContext, 'clock' | 'database' | 'db'>;

/** Stripe retries for three days; event ids are kept well beyond that. */
export const EVENT_RETENTION_MS = 35 * 24 * 3600 * 1000;

export type WebhookOutcome = 'applied' | 'unchanged' | 'replay' | 'ignored';

class AlreadyApplied extends Error {}

/** The event, or 400 when the signature is missing, forged, stale or dated ahead beyond the tolerance, or the body was altered. */
export function verifiedEvent(ctx: StripeEventDeps, stripe: StripePaymentProvider, rawBody: Buffer, signature: string | undefined): Stripe.Event {
  if (!signature) throw badRequest('Missing Stripe-Signature header');
  try {
    return stripe.verifyEvent(rawBody, signature, ctx.clock.now());
  } catch {
    throw badRequest('Invalid or expired signature');
  }
}

/**
 * Whether a verified event carries the object it is about. Stripe always
 * sends one; an event signed with our secret but without it is refused (400)
 * before any handling reads it.
 */
export function hasDataObject(event: Stripe.Event): boolean {
  const data: unknown = (event as { data?: unknown }).data;
  if (typeof data !== 'object' || data === null) return false;
  const object: unknown = (data as { object?: unknown }).object;
  return typeof object === 'object' && object !== null && !Array.isArray(object);
}

/** Whose subscription: the remembered customer first, then the user id our checkout put in the metadata. */
async function ownerOf(trx: Db, s: StripeSubscriptionSnapshot): Promise<number | null> {
  if (s.customerId) {
    const byCustomer = await findUserByCustomerId(trx, s.customerId);
    if (byCustomer) return byCustomer.id;
  }
  if (s.userIdHint !== null) {
    const hinted = await findUserById(trx, s.userIdHint);
    if (hinted && (hinted.pay_customer_id === null || hinted.pay_customer_id === s.customerId)) {
      if (s.customerId) await setCustomerIdIfNone(trx, hinted.id, s.customerId);
      return hinted.id;
    }
  }
  return (await findUserBySubscriptionId(trx, s.subscriptionId))?.id ?? null;
}

/** A subscription Stripe no longer knows is over. */
function goneSnapshot(subscriptionId: string): StripeSubscriptionSnapshot {
  return { subscriptionId, status: 'canceled', priceId: null, extraBets: 0, extraSlots: 0, customerId: null, userIdHint: null };
}

export async function handleStripeEvent(ctx: StripeEventDeps, stripe: StripePaymentProvider, event: Stripe.Event): Promise<WebhookOutcome> {
  const subscriptionId = StripePaymentProvider.subscriptionIdOf(event);
  if (subscriptionId === null) return 'ignored';
  // Cheap early exit for the common retry; the insert below is what decides.
  if (await payEventExists(ctx.db, event.id)) return 'replay';
  // Read before the transaction so no row lock waits on the network. A failure
  // throws (500): nothing is recorded and Stripe delivers the event again.
  const snapshot = (await stripe.subscription(subscriptionId)) ?? goneSnapshot(subscriptionId);
  const now = ctx.clock.now();
  try {
    return await ctx.database.transaction(async (trx) => {
      try {
        await insertPayEvent(trx, event.id, event.type, now);
      } catch (err) {
        // Thrown, not returned, so the transaction rolls back (PostgreSQL has aborted it).
        if (isUniqueViolation(err)) throw new AlreadyApplied();
        throw err;
      }
      await deletePayEventsBefore(trx, now - EVENT_RETENTION_MS);
      const userId = await ownerOf(trx, snapshot);
      if (userId === null) return 'unchanged';
      const state: SubscriptionState = snapshot;
      return (await applySubscriptionState(ctx, trx, userId, state)) ? 'applied' : 'unchanged';
    });
  } catch (err) {
    if (err instanceof AlreadyApplied) return 'replay';
    throw err;
  }
}
