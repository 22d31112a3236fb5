// The embedded payment provider: plans from a file shipped with the service,
// checkout and portal on pages the service itself serves (src/routes/local-pay-pages.ts),
// so the whole upgrade flow works with no account anywhere. No money moves.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from '../../lib/clock.js';
import { type StripePlan, StripePlanSchema } from '../../schemas/payments.js';
import type { CheckoutParams, PaymentProvider } from './types.js';

export const DEFAULT_PLANS_FILE = new URL('../../data/plans.json', import.meta.url);
export const LOCAL_CHECKOUT_TTL_MS = 24 * 3600 * 1000;

/** Reads and checks a plans file; a malformed one stops the service with a clear message. */
export function loadPlansFile(file: URL | string): StripePlan[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`plans file ${String(file)} is not readable JSON: ${(err as Error).message}`);
  }
  const plans = (parsed as { plans?: unknown }).plans;
  if (!Array.isArray(plans)) throw new Error(`plans file ${String(file)} needs a "plans" array`);
  const seen = new Set<string>();
  for (const [i, plan] of plans.entries()) {
    if (!Value.Check(StripePlanSchema, plan)) {
      const first = [...Value.Errors(StripePlanSchema, plan)][0];
      throw new Error(`plans file ${String(file)}: plan ${i} is invalid at ${first?.path || '/'}: ${first?.message ?? 'bad shape'}`);
    }
    const p = plan as StripePlan;
    if (seen.has(p.price_id)) throw new Error(`plans file ${String(file)}: price_id ${p.price_id} appears twice`);
    seen.add(p.price_id);
  }
  return plans as StripePlan[];
}

export const localId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

/** A checkout the local provider opened: its page confirms it until it expires. */
export interface LocalCheckoutOpened {
  id: string;
  userId: number;
  priceId: string;
  createdAt: number;
  expiresAt: number;
}

/** Keeps the checkouts the local provider opens, for its pages to find; the service layer implements it. */
export interface LocalCheckoutStore {
  save(checkout: LocalCheckoutOpened): Promise<void>;
}

export class LocalPaymentProvider implements PaymentProvider {
  readonly kind = 'local' as const;

  constructor(private readonly opts: { checkouts: LocalCheckoutStore; clock: Clock; publicUrl: string; plans: StripePlan[] }) {}

  async plans(): Promise<StripePlan[]> {
    return this.opts.plans;
  }

  async createCustomer(): Promise<string> {
    return localId('lcus');
  }

  async createCheckout(p: CheckoutParams): Promise<string> {
    const now = this.opts.clock.now();
    const id = localId('lcs');
    await this.opts.checkouts.save({ id, userId: p.userId, priceId: p.plan.price_id, createdAt: now, expiresAt: now + LOCAL_CHECKOUT_TTL_MS });
    return `${this.opts.publicUrl}/pay/local/checkout/${id}`;
  }

  async createPortal(): Promise<string> {
    return `${this.opts.publicUrl}/pay/local/portal`;
  }
}
