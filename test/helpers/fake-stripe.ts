// A local stand-in for the Stripe API, started by the tests on 127.0.0.1 (port
// 0). It answers the calls the service makes and records their parameters.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import Stripe from 'stripe';
import type { AppContext } from '../../src/context.js';
import { registerAndLogin } from './app.js';

export interface RecordedRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  idempotencyKey: string | null;
  authorization: string | null;
}

export interface FakeSubscription {
  id: string;
  customer: string;
  status: string;
  priceId: string;
  metadata?: Record<string, string>;
  /** Set when the customer cancelled in the portal: the subscription ends at periodEnd. */
  cancelAtPeriodEnd?: boolean;
  /** End of the paid period, epoch seconds. */
  periodEnd?: number;
}

/** A portal configuration the service created, with the form parameters it sent. */
export interface FakePortalConfiguration {
  id: string;
  metadata: Record<string, string>;
  params: Record<string, string>;
}

export const WEBHOOK_SECRET = 'whsec_test_secret_for_the_fake';

const product = (id: string, name: string, metadata: Record<string, string>, description: string | null = null) => ({
  id,
  object: 'product',
  active: true,
  name,
  description,
  metadata,
});

/** Prices of the fake account: two plans (extras on the price, extras on the product), and two that are not plans. */
export function defaultPrices(): Array<Record<string, unknown>> {
  return [
    {
      id: 'price_pro',
      object: 'price',
      active: true,
      currency: 'usd',
      unit_amount: 1500,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
      metadata: { extra_bets: '40', extra_slots: '80' },
      product: product('prod_pro', 'Pro', {}, 'For busy traders'),
    },
    {
      id: 'price_plus',
      object: 'price',
      active: true,
      currency: 'eur',
      unit_amount: 500,
      type: 'recurring',
      recurring: { interval: 'year', interval_count: 1 },
      metadata: {},
      product: product('prod_plus', 'Plus', { extra_bets: '10', extra_slots: '5' }),
    },
    {
      id: 'price_no_metadata',
      object: 'price',
      active: true,
      currency: 'usd',
      unit_amount: 900,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
      metadata: {},
      product: product('prod_other', 'Other', {}),
    },
    {
      id: 'price_bad_metadata',
      object: 'price',
      active: true,
      currency: 'usd',
      unit_amount: 900,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
      metadata: { extra_bets: 'lots', extra_slots: '-1' },
      product: product('prod_bad', 'Bad', {}),
    },
  ];
}

export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly subscriptions = new Map<string, FakeSubscription>();
  prices = defaultPrices();
  readonly portalConfigurations: FakePortalConfiguration[] = [];
  /** When set, every call answers 500 (without asking the SDK to retry). */
  failing = false;
  private server: http.Server | null = null;
  private seq = 0;
  url = '';

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => this.answer(req, body, res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  calls(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  /** A subscription as Stripe would answer it, with the price and product expanded. */
  subscriptionObject(s: FakeSubscription): Record<string, unknown> {
    const price = this.prices.find((p) => p.id === s.priceId) ?? { id: s.priceId, object: 'price', metadata: {} };
    const period = s.periodEnd ?? null;
    return {
      id: s.id,
      object: 'subscription',
      customer: s.customer,
      status: s.status,
      metadata: s.metadata ?? {},
      cancel_at_period_end: s.cancelAtPeriodEnd ?? false,
      cancel_at: s.cancelAtPeriodEnd ? period : null,
      items: {
        object: 'list',
        data: [{ id: `si_${s.id}`, object: 'subscription_item', price, current_period_end: period }],
        has_more: false,
      },
    };
  }

  /** The portal configuration a session was opened with. */
  portalConfiguration(id: string): FakePortalConfiguration {
    const c = this.portalConfigurations.find((x) => x.id === id);
    if (!c) throw new Error(`no portal configuration ${id}`);
    return c;
  }

  /** The prices a portal configuration lets a customer switch to. */
  static switchablePrices(c: FakePortalConfiguration): string[] {
    const p = c.params;
    if (p['features[subscription_update][enabled]'] !== 'true') return [];
    if (p['features[subscription_update][default_allowed_updates][0]'] !== 'price') return [];
    return Object.entries(p)
      .filter(([k]) => /^features\[subscription_update\]\[products\]\[\d+\]\[prices\]\[\d+\]$/.test(k))
      .map(([, v]) => v);
  }

  private subscriptionUpdated(s: FakeSubscription, previous: Record<string, unknown>): Record<string, unknown> {
    const event = stripeEvent('customer.subscription.updated', this.subscriptionObject(s));
    (event.data as Record<string, unknown>).previous_attributes = previous;
    return event;
  }

  /**
   * What Stripe does when the customer switches plans in a portal opened with
   * `configurationId`: refused unless that configuration allows the price,
   * else the subscription moves to it and the customer.subscription.updated
   * event Stripe sends is returned for delivery.
   */
  portalSwitch(configurationId: string, subscriptionId: string, priceId: string): Record<string, unknown> {
    const c = this.portalConfiguration(configurationId);
    if (!FakeStripe.switchablePrices(c).includes(priceId)) throw new Error(`the portal does not offer ${priceId}`);
    const s = this.subscriptions.get(subscriptionId);
    if (!s) throw new Error(`no subscription ${subscriptionId}`);
    const before = s.priceId;
    s.priceId = priceId;
    return this.subscriptionUpdated(s, { items: { data: [{ price: { id: before } }] } });
  }

  /** The customer cancels in the portal: with mode at_period_end the subscription stays active until periodEnd. */
  portalCancel(configurationId: string, subscriptionId: string): Record<string, unknown> {
    const c = this.portalConfiguration(configurationId);
    if (c.params['features[subscription_cancel][enabled]'] !== 'true') throw new Error('the portal does not offer cancelling');
    if (c.params['features[subscription_cancel][mode]'] !== 'at_period_end') throw new Error('this fake only models cancelling at period end');
    const s = this.subscriptions.get(subscriptionId);
    if (!s) throw new Error(`no subscription ${subscriptionId}`);
    s.cancelAtPeriodEnd = true;
    return this.subscriptionUpdated(s, { cancel_at_period_end: false });
  }

  /** Time passes to `nowSeconds`: subscriptions cancelled at period end whose period is over end, each with its deleted event. */
  advanceTo(nowSeconds: number): Array<Record<string, unknown>> {
    const events: Array<Record<string, unknown>> = [];
    for (const s of this.subscriptions.values()) {
      if (s.cancelAtPeriodEnd && s.status !== 'canceled' && s.periodEnd !== undefined && s.periodEnd <= nowSeconds) {
        s.status = 'canceled';
        events.push(stripeEvent('customer.subscription.deleted', this.subscriptionObject(s)));
      }
    }
    return events;
  }

  private answer(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const params = Object.fromEntries(new URLSearchParams(req.method === 'GET' ? url.search : body));
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      params,
      idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
      authorization: req.headers.authorization ?? null,
    });
    const send = (status: number, json: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json', 'stripe-should-retry': 'false', 'request-id': `req_${++this.seq}` });
      res.end(JSON.stringify(json));
    };
    if (this.failing) {
      send(500, { error: { type: 'api_error', message: 'fake outage' } });
      return;
    }
    const path = url.pathname;
    if (req.method === 'GET' && path === '/v1/prices') {
      const data = this.prices.filter((p) => params.active !== 'true' || p.active === true);
      send(200, { object: 'list', data, has_more: false, url: '/v1/prices' });
      return;
    }
    if (req.method === 'POST' && path === '/v1/customers') {
      send(200, { id: `cus_${++this.seq}`, object: 'customer', email: params.email ?? null, metadata: {} });
      return;
    }
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const id = `cs_test_${++this.seq}`;
      send(200, { id, object: 'checkout.session', mode: 'subscription', url: `https://checkout.stripe.test/c/pay/${id}` });
      return;
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/configurations') {
      const metadata = Object.fromEntries(
        Object.entries(params)
          .filter(([k]) => k.startsWith('metadata['))
          .map(([k, v]) => [k.slice('metadata['.length, -1), v]),
      );
      const c = { id: `bpc_${++this.seq}`, metadata, params };
      this.portalConfigurations.push(c);
      send(200, { id: c.id, object: 'billing_portal.configuration', active: true, is_default: false, metadata });
      return;
    }
    if (req.method === 'GET' && path === '/v1/billing_portal/configurations') {
      const data = this.portalConfigurations.map((c) => ({ id: c.id, object: 'billing_portal.configuration', active: true, metadata: c.metadata }));
      send(200, { object: 'list', data, has_more: false, url: '/v1/billing_portal/configurations' });
      return;
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      const id = `bps_${++this.seq}`;
      send(200, { id, object: 'billing_portal.session', url: `https://billing.stripe.test/p/session/${id}` });
      return;
    }
    const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && sub) {
      const s = this.subscriptions.get(decodeURIComponent(sub[1] as string));
      if (s) send(200, this.subscriptionObject(s));
      else send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such subscription' } });
      return;
    }
    send(404, { error: { type: 'invalid_request_error', message: `fake has no ${req.method} ${path}` } });
  }
}

let eventSeq = 0;

/** An event as Stripe would send it, with a fresh id unless given. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${Date.now()}_${++eventSeq}`): Record<string, unknown> {
  return { id, object: 'event', type, api_version: '2026-10-28.endive', created: 1, data: { object }, livemode: false, pending_webhooks: 1 };
}

/** The Stripe-Signature header for a body, as Stripe computes it. */
export function signature(payload: string, timestampSeconds: number, secret = WEBHOOK_SECRET): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: timestampSeconds });
}

export interface StripeTestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: { now(): number };
}

/**
 * Drives a test app configured with a FakeStripe: users with a Stripe customer
 * and subscription, and signed deliveries of events to the webhook.
 */
export function stripeDriver(get: () => StripeTestApp, fake: FakeStripe) {
  let subSeq = 0;
  const nowSeconds = () => Math.floor(get().clock.now() / 1000);
  /** The request a delivery makes: the body and its Stripe-Signature header. */
  const signed = (event: Record<string, unknown>, opts: { timestamp?: number; secret?: string; body?: string } = {}) => {
    const payload = JSON.stringify(event);
    return {
      payload: opts.body ?? payload,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signature(payload, opts.timestamp ?? nowSeconds(), opts.secret ?? WEBHOOK_SECRET),
      },
    };
  };
  const deliver = (event: Record<string, unknown>, opts: { timestamp?: number; secret?: string; body?: string } = {}) =>
    get().app.inject({ method: 'POST', url: '/api/pay/webhook', ...signed(event, opts) });
  const customerOf = async (userId: number) =>
    (await get().ctx.db.selectFrom('users').select('pay_customer_id').where('id', '=', userId).executeTakeFirstOrThrow()).pay_customer_id;

  /** A user with a Stripe customer (from a first checkout) and a subscription known to the fake. */
  async function customerWithSubscription(status = 'active', priceId = 'price_pro') {
    const u = await registerAndLogin(get().app);
    const checkout = await get().app.inject({
      method: 'POST',
      url: '/api/pay/checkout',
      payload: { price_id: priceId },
      headers: { cookie: u.cookie },
    });
    if (checkout.statusCode !== 200) throw new Error(`checkout failed: ${checkout.statusCode} ${checkout.body}`);
    const customer = (await customerOf(u.id)) as string;
    const sub: FakeSubscription = { id: `sub_${++subSeq}_${u.id}`, customer, status, priceId, metadata: { user_id: String(u.id) } };
    fake.subscriptions.set(sub.id, sub);
    return { u, sub };
  }
  const completed = (sub: { id: string; customer: string }, u: { id: number }) =>
    stripeEvent('checkout.session.completed', {
      id: `cs_${sub.id}`,
      object: 'checkout.session',
      mode: 'subscription',
      subscription: sub.id,
      customer: sub.customer,
      client_reference_id: String(u.id),
    });
  const subEvent = (type: string, sub: { id: string; customer: string; status: string }) =>
    stripeEvent(type, { id: sub.id, object: 'subscription', customer: sub.customer, status: sub.status });

  return { nowSeconds, signed, deliver, customerOf, customerWithSubscription, completed, subEvent };
}
