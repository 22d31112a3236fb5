// Stripe through the official SDK. STRIPE_API_URL points the SDK at another
// host (tests run a local fake there).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import { parseExtra, type SubscriptionState } from '../../domain/payments.js';
import type { Clock } from '../../lib/clock.js';
import type { StripePlan } from '../../schemas/payments.js';
import { type CheckoutParams, type PaymentProvider, PaymentProviderError } from './types.js';

export const PLANS_CACHE_MS = 60_000;
/**
 * Stripe's own default: a signature older than this is refused (replays of
 * captured requests), and so is one dated further ahead (the SDK checks only
 * the past; a future date would stretch a captured delivery's replay window).
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The `t=` of a Stripe-Signature header, read as the SDK reads it (the last one counts); null without one. */
export function signatureTimestamp(header: string): number | null {
  let timestamp: number | null = null;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') timestamp = Number.parseInt(value ?? '', 10);
  }
  return timestamp !== null && Number.isFinite(timestamp) ? timestamp : null;
}

export interface StripeOptions {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string | null;
  clock: Clock;
}

/**
 * The SDK, loaded on first use: it takes about a tenth of a second to load,
 * which only a deployment with Stripe's keys should pay at start.
 */
let sdk: typeof Stripe | null = null;
function stripeSdk(): typeof Stripe {
  if (!sdk) {
    const loaded = createRequire(import.meta.url)('stripe') as typeof Stripe & { default?: typeof Stripe };
    sdk = loaded.default ?? loaded;
  }
  return sdk;
}

/** What a confirmation says about a subscription, read back from Stripe. */
export interface StripeSubscriptionSnapshot extends SubscriptionState {
  customerId: string | null;
  /** The user id our checkout put in the subscription's metadata. */
  userIdHint: number | null;
}

/** The SDK's host/port/protocol options from one URL. */
export function sdkAddress(apiUrl: string | null): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (apiUrl === null) return {};
  const u = new URL(apiUrl);
  const protocol = u.protocol === 'http:' ? 'http' : 'https';
  return { host: u.hostname, port: u.port !== '' ? Number(u.port) : protocol === 'http' ? 80 : 443, protocol };
}

function extrasOf(price: Stripe.Price): { extra_bets: number; extra_slots: number } | null {
  const product =
    typeof price.product === 'object' && !('deleted' in price.product && price.product.deleted) ? (price.product as Stripe.Product) : null;
  const read = (key: string) => parseExtra(price.metadata?.[key] ?? product?.metadata?.[key]);
  const extra_bets = read('extra_bets');
  const extra_slots = read('extra_slots');
  return extra_bets === null || extra_slots === null ? null : { extra_bets, extra_slots };
}

const INTERVALS = new Set(['day', 'week', 'month', 'year']);

/** A Price is a plan when it is active, recurring, priced per unit and carries both extras. */
export function planOf(price: Stripe.Price): StripePlan | null {
  const product = typeof price.product === 'object' ? (price.product as Stripe.Product) : null;
  if (!price.active || !price.recurring || price.unit_amount === null || !product || product.active === false) return null;
  const interval = price.recurring.interval;
  if (!INTERVALS.has(interval)) return null;
  const extras = extrasOf(price);
  if (!extras) return null;
  return {
    price_id: price.id,
    amount: price.unit_amount,
    currency: price.currency,
    interval: interval as StripePlan['interval'],
    ...extras,
    name: product.name ?? null,
    description: product.description ?? null,
  };
}

function idOf(v: string | { id: string } | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : v.id;
}

/** Stripe's limit on the products one portal configuration lets customers switch between. */
export const PORTAL_PRODUCTS_MAX = 10;

/** Marks the portal configurations this service made, by the plans they allow (metadata key). */
export const PORTAL_CONFIGURATION_KEY = 'paper_bets_plans';

/** The plans as the portal's subscription_update feature lists them: per product, its plan prices; sorted so equal sets compare equal. */
export function portalProducts(plans: StripePlan[], productOf: ReadonlyMap<string, string>): Array<{ product: string; prices: string[] }> {
  const byProduct = new Map<string, string[]>();
  for (const plan of plans) {
    const product = productOf.get(plan.price_id);
    if (!product) continue;
    byProduct.set(product, [...(byProduct.get(product) ?? []), plan.price_id]);
  }
  return [...byProduct.entries()]
    .map(([product, prices]) => ({ product, prices: prices.sort() }))
    .sort((a, b) => a.product.localeCompare(b.product))
    .slice(0, PORTAL_PRODUCTS_MAX);
}

/**
 * The customer portal's features: switch between our plans' prices (prorated:
 * the unused part of the period is credited, the new price charged for the
 * rest) and cancel at the end of the paid period, never at once.
 */
export function portalFeatures(products: Array<{ product: string; prices: string[] }>): Stripe.BillingPortal.ConfigurationCreateParams.Features {
  return {
    subscription_update:
      products.length > 0
        ? { enabled: true, default_allowed_updates: ['price'], products, proration_behavior: 'create_prorations' }
        : { enabled: false },
    subscription_cancel: { enabled: true, mode: 'at_period_end' },
    payment_method_update: { enabled: true },
    invoice_history: { enabled: true },
  };
}

export class StripePaymentProvider implements PaymentProvider {
  readonly kind = 'stripe' as const;
  private readonly client: Stripe;
  private cache: { plans: StripePlan[]; until: number } | null = null;
  private inflight: Promise<StripePlan[]> | null = null;
  /** Each plan price's product, from the latest listing (the portal configuration names products). */
  private productOf = new Map<string, string>();
  /** The portal configuration for a set of plans, found or made once per process. */
  private portalConfig: { fingerprint: string; id: Promise<string> } | null = null;

  constructor(private readonly opts: StripeOptions) {
    this.client = new (stripeSdk())(opts.secretKey, {
      ...sdkAddress(opts.apiUrl),
      maxNetworkRetries: 1,
      timeout: 10_000,
      telemetry: false,
    });
  }

  async plans(): Promise<StripePlan[]> {
    const now = this.opts.clock.now();
    if (this.cache && this.cache.until > now) return this.cache.plans;
    // One request to Stripe however many callers arrive while it runs.
    this.inflight ??= this.fetchPlans().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetchPlans(): Promise<StripePlan[]> {
    const plans: StripePlan[] = [];
    const productOf = new Map<string, string>();
    try {
      for await (const price of this.client.prices.list({ active: true, type: 'recurring', expand: ['data.product'], limit: 100 })) {
        const plan = planOf(price);
        const product = idOf(price.product as string | { id: string } | null);
        if (plan) plans.push(plan);
        if (plan && product) productOf.set(plan.price_id, product);
      }
    } catch (err) {
      throw new PaymentProviderError('listing prices', { cause: err });
    }
    plans.sort((a, b) => a.amount - b.amount || a.price_id.localeCompare(b.price_id));
    this.productOf = productOf;
    this.cache = { plans, until: this.opts.clock.now() + PLANS_CACHE_MS };
    return plans;
  }

  async createCustomer(user: { id: number; email: string; created_at: number }): Promise<string> {
    // Parallel first checkouts of one user make one customer. The key names
    // this very account, not just an id another deployment on the same Stripe
    // account (test mode, several machines) could also have.
    const account = createHash('sha256').update(`${user.id}:${user.email}:${user.created_at}`).digest('hex').slice(0, 32);
    try {
      const customer = await this.client.customers.create(
        { email: user.email, metadata: { user_id: String(user.id) } },
        { idempotencyKey: `customer-${account}` },
      );
      return customer.id;
    } catch (err) {
      throw new PaymentProviderError('creating a customer', { cause: err });
    }
  }

  async createCheckout(p: CheckoutParams): Promise<string> {
    let session: Stripe.Checkout.Session;
    try {
      session = await this.client.checkout.sessions.create({
        mode: 'subscription',
        customer: p.customerId,
        line_items: [{ price: p.plan.price_id, quantity: 1 }],
        client_reference_id: String(p.userId),
        metadata: { user_id: String(p.userId) },
        subscription_data: { metadata: { user_id: String(p.userId) } },
        success_url: p.successUrl,
        cancel_url: p.cancelUrl,
      });
    } catch (err) {
      throw new PaymentProviderError('creating a checkout session', { cause: err });
    }
    if (!session.url) throw new PaymentProviderError('checkout session without url');
    return session.url;
  }

  async createPortal(p: { customerId: string; returnUrl: string }): Promise<string> {
    const configuration = await this.portalConfiguration();
    try {
      const session = await this.client.billingPortal.sessions.create({ customer: p.customerId, return_url: p.returnUrl, configuration });
      return session.url;
    } catch (err) {
      throw new PaymentProviderError('creating a portal session', { cause: err });
    }
  }

  /**
   * The id of a portal configuration allowing exactly today's plans: one this
   * service made earlier (found by its metadata, so restarts and other
   * instances reuse it), else a new one. Plans added in Stripe make a new
   * configuration on the next portal opening after the plans cache expires.
   */
  private async portalConfiguration(): Promise<string> {
    const products = portalProducts(await this.plans(), this.productOf);
    const fingerprint = createHash('sha256').update(JSON.stringify(products)).digest('hex').slice(0, 32);
    if (this.portalConfig?.fingerprint !== fingerprint) {
      const id = this.findOrCreatePortalConfiguration(fingerprint, products);
      this.portalConfig = { fingerprint, id };
      // A failure is not kept: the next portal opening tries again.
      id.catch(() => {
        if (this.portalConfig?.id === id) this.portalConfig = null;
      });
    }
    return this.portalConfig.id;
  }

  private async findOrCreatePortalConfiguration(fingerprint: string, products: Array<{ product: string; prices: string[] }>): Promise<string> {
    try {
      for await (const c of this.client.billingPortal.configurations.list({ active: true, limit: 100 })) {
        if (c.metadata?.[PORTAL_CONFIGURATION_KEY] === fingerprint) return c.id;
      }
      const created = await this.client.billingPortal.configurations.create(
        { name: 'Plans', features: portalFeatures(products), metadata: { [PORTAL_CONFIGURATION_KEY]: fingerprint } },
        // Instances racing to make the first one make one.
        { idempotencyKey: `portal-configuration-${fingerprint}` },
      );
      return created.id;
    } catch (err) {
      throw new PaymentProviderError('preparing the portal configuration', { cause: err });
    }
  }

  /** The event, if the signature over the raw body is valid and dated within the tolerance of now; throws Stripe's SignatureVerificationError otherwise. */
  verifyEvent(rawBody: Buffer, signature: string, nowMs: number): Stripe.Event {
    const signedAt = signatureTimestamp(signature);
    if (signedAt !== null && signedAt - Math.floor(nowMs / 1000) > SIGNATURE_TOLERANCE_SECONDS) {
      throw new (stripeSdk().errors.StripeSignatureVerificationError)(signature, rawBody, {
        message: 'Timestamp outside the tolerance zone (in the future)',
      });
    }
    return this.client.webhooks.constructEvent(rawBody, signature, this.opts.webhookSecret, SIGNATURE_TOLERANCE_SECONDS, undefined, nowMs);
  }

  /** The subscription an event is about, or null for events we do not act on. */
  static subscriptionIdOf(event: Stripe.Event): string | null {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        return session.mode === 'subscription' ? idOf(session.subscription) : null;
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        return event.data.object.id;
      case 'invoice.payment_failed': {
        const invoice = event.data.object as Stripe.Invoice & { subscription?: string | { id: string } | null };
        // Newer API versions moved the subscription under parent.subscription_details.
        return idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
      }
      default:
        return null;
    }
  }

  /** The subscription as Stripe has it now (so out-of-order events converge); null when Stripe no longer knows it. */
  async subscription(id: string): Promise<StripeSubscriptionSnapshot | null> {
    let sub: Stripe.Subscription;
    try {
      sub = await this.client.subscriptions.retrieve(id, { expand: ['items.data.price.product'] });
    } catch (err) {
      if (err instanceof stripeSdk().errors.StripeInvalidRequestError && err.statusCode === 404) return null;
      throw new PaymentProviderError('retrieving a subscription', { cause: err });
    }
    const price = sub.items?.data?.[0]?.price ?? null;
    const extras = price ? extrasOf(price) : null;
    const hint = sub.metadata?.user_id;
    return {
      subscriptionId: sub.id,
      status: sub.status,
      priceId: price?.id ?? null,
      extraBets: extras?.extra_bets ?? 0,
      extraSlots: extras?.extra_slots ?? 0,
      customerId: idOf(sub.customer),
      userIdHint: hint !== undefined && /^\d{1,15}$/.test(hint) ? Number(hint) : null,
    };
  }
}
