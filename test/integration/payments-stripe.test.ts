import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { FakeStripe, stripeDriver, stripeEvent, WEBHOOK_SECRET } from '../helpers/fake-stripe.js';

forEachDialect('payments: Stripe', (dialect) => {
  let t: TestApp;
  const fake = new FakeStripe();
  /** The app's log lines at warn and above. */
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  before(async () => {
    await fake.start();
    t = await createTestApp(dialect, {
      config: { stripe: { secretKey: 'sk_test_fake', webhookSecret: WEBHOOK_SECRET, apiUrl: fake.url } },
      deps: { logger: { level: 'warn', stream: logStream } },
    });
  });
  after(async () => {
    await t.close();
    await fake.stop();
  });

  const stripe = stripeDriver(() => t, fake);
  const { deliver, completed, subEvent, customerWithSubscription } = stripe;
  const me = async (u: TestUser) => (await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: u.cookie } })).json();
  const post = (url: string, u?: TestUser, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers: { ...(u ? { cookie: u.cookie } : {}), ...headers } });
  const withFailingStripe = async <T>(fn: () => Promise<T>): Promise<T> => {
    fake.failing = true;
    try {
      return await fn();
    } finally {
      fake.failing = false;
    }
  };
  const base = () => ({ bet_capacity: t.ctx.config.capacities.baseBets, follow_capacity: t.ctx.config.capacities.baseFollows });
  const customerOf = (u: TestUser) => stripe.customerOf(u.id);

  test('plans: active recurring prices with both extras, named by their product, sorted by amount', async () => {
    t.clock.advance(120_000); // past any cached list
    const res = await t.app.inject({ method: 'GET', url: '/api/pay/plans' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      plans: [
        { price_id: 'price_plus', amount: 500, currency: 'eur', interval: 'year', extra_slots: 5, extra_bets: 10, name: 'Plus', description: null },
        {
          price_id: 'price_pro',
          amount: 1500,
          currency: 'usd',
          interval: 'month',
          extra_slots: 80,
          extra_bets: 40,
          name: 'Pro',
          description: 'For busy traders',
        },
      ],
    });
    const call = fake.calls('GET', '/v1/prices').at(-1);
    assert.ok(call);
    assert.equal(call.params.active, 'true');
    assert.equal(call.params.type, 'recurring');
    assert.equal(call.params['expand[0]'], 'data.product');
    assert.equal(call.authorization, 'Bearer sk_test_fake');
  });

  test('plans: cached for a minute; a provider failure after that is 500 { error }', async () => {
    t.clock.advance(120_000);
    await t.app.inject({ method: 'GET', url: '/api/pay/plans' });
    const calls = fake.calls('GET', '/v1/prices').length;
    t.clock.advance(59_000);
    await t.app.inject({ method: 'GET', url: '/api/pay/plans' });
    assert.equal(fake.calls('GET', '/v1/prices').length, calls);
    t.clock.advance(2_000);
    const res = await withFailingStripe(() => t.app.inject({ method: 'GET', url: '/api/pay/plans' }));
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: 'Failed to fetch plans' });
    assert.equal(fake.calls('GET', '/v1/prices').length, calls + 1);
  });

  test('checkout: a subscription-mode session carrying the user; answers its url and changes nothing yet', async () => {
    const u = await registerAndLogin(t.app);
    const res = await post('/api/pay/checkout', u, { price_id: 'price_pro' });
    assert.equal(res.statusCode, 200);
    assert.match(res.json().url, /^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    const customer = await customerOf(u);
    assert.match(String(customer), /^cus_/);
    const createdCustomer = fake.calls('POST', '/v1/customers').at(-1);
    assert.equal(createdCustomer?.params.email, u.email);
    assert.match(String(createdCustomer?.idempotencyKey), /^customer-[0-9a-f]{32}$/);
    const session = fake.calls('POST', '/v1/checkout/sessions').at(-1);
    assert.ok(session);
    assert.equal(session.params.mode, 'subscription');
    assert.equal(session.params.customer, customer);
    assert.equal(session.params['line_items[0][price]'], 'price_pro');
    assert.equal(session.params['line_items[0][quantity]'], '1');
    assert.equal(session.params.client_reference_id, String(u.id));
    assert.equal(session.params['subscription_data[metadata][user_id]'], String(u.id));
    assert.ok(session.params.success_url?.startsWith(t.ctx.config.webUrl));
    assert.ok(session.params.cancel_url?.startsWith(t.ctx.config.webUrl));
    assert.deepEqual(await me(u), { id: u.id, username: u.username, email: u.email, ...base(), pay_subscription_id: null });

    // The customer is created once.
    const customers = fake.calls('POST', '/v1/customers').length;
    assert.equal((await post('/api/pay/checkout', u, { price_id: 'price_plus' })).statusCode, 200);
    assert.equal(fake.calls('POST', '/v1/customers').length, customers);
    assert.equal(fake.calls('POST', '/v1/checkout/sessions').at(-1)?.params.customer, customer);
  });

  test('checkout: parallel first checkouts of one user end with one remembered customer', async () => {
    const u = await registerAndLogin(t.app);
    const before = fake.calls('POST', '/v1/checkout/sessions').length;
    const results = await Promise.all(Array.from({ length: 4 }, () => post('/api/pay/checkout', u, { price_id: 'price_pro' })));
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [200, 200, 200, 200],
    );
    const customer = await customerOf(u);
    const sessions = fake.calls('POST', '/v1/checkout/sessions').slice(before);
    assert.equal(sessions.length, 4);
    for (const s of sessions) assert.equal(s.params.customer, customer);
    const keys = new Set(
      fake
        .calls('POST', '/v1/customers')
        .filter((c) => c.params.email === u.email)
        .map((c) => c.idempotencyKey),
    );
    assert.equal(keys.size, 1);
  });

  test('checkout: 401 without a session, 400 for prices that are not plans or bad bodies, 403 cross-site, 415 for forms', async () => {
    assert.equal((await post('/api/pay/checkout', undefined, { price_id: 'price_pro' })).statusCode, 401);
    const u = await registerAndLogin(t.app);
    for (const body of [
      { price_id: 'price_no_metadata' },
      { price_id: 'price_bad_metadata' },
      { price_id: 'nope' },
      {},
      { price_id: 'price_pro', x: 1 },
      { price_id: 7 },
    ]) {
      const res = await post('/api/pay/checkout', u, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
    assert.equal((await post('/api/pay/checkout', u, { price_id: 'price_pro' }, { origin: 'https://evil.test' })).statusCode, 403);
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/pay/checkout',
      payload: 'price_id=price_pro',
      headers: { cookie: u.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 415);
    assert.equal(await customerOf(u), null);
  });

  test('checkout and portal: provider failure is 500 { error } without internals', async () => {
    const u = await registerAndLogin(t.app);
    const res = await withFailingStripe(() => post('/api/pay/checkout', u, { price_id: 'price_pro' }));
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: 'Failed to create checkout session' });
    assert.equal((await post('/api/pay/checkout', u, { price_id: 'price_pro' })).statusCode, 200);
    const portal = await withFailingStripe(() => post('/api/pay/portal', u));
    assert.equal(portal.statusCode, 500);
    assert.deepEqual(portal.json(), { error: 'Failed to create portal session' });
  });

  test('portal: 401 without a session, 400 without a customer, else a session for the customer', async () => {
    assert.equal((await post('/api/pay/portal')).statusCode, 401);
    const u = await registerAndLogin(t.app);
    const none = await post('/api/pay/portal', u);
    assert.equal(none.statusCode, 400);
    assert.deepEqual(Object.keys(none.json()), ['error']);
    assert.equal((await post('/api/pay/checkout', u, { price_id: 'price_pro' })).statusCode, 200);
    const res = await post('/api/pay/portal', u);
    assert.equal(res.statusCode, 200);
    assert.match(res.json().url, /^https:\/\/billing\.stripe\.test\//);
    const call = fake.calls('POST', '/v1/billing_portal/sessions').at(-1);
    assert.equal(call?.params.customer, await customerOf(u));
    assert.equal(call?.params.return_url, t.ctx.config.webUrl);
  });

  test('webhook: checkout.session.completed raises capacities by the plan; checkout then answers 409', async () => {
    const { u, sub } = await customerWithSubscription('active', 'price_pro');
    const res = await deliver(completed(sub, u));
    assert.equal(res.statusCode, 200);
    const user = await me(u);
    assert.equal(user.bet_capacity, base().bet_capacity + 40);
    assert.equal(user.follow_capacity, base().follow_capacity + 80);
    assert.equal(user.pay_subscription_id, sub.id);
    // The subscription was read back from Stripe, with the plan's price expanded.
    const read = fake.calls('GET', `/v1/subscriptions/${sub.id}`).at(-1);
    assert.equal(read?.params['expand[0]'], 'items.data.price.product');
    const again = await post('/api/pay/checkout', u, { price_id: 'price_plus' });
    assert.equal(again.statusCode, 409);
    assert.deepEqual(Object.keys(again.json()), ['error']);
  });

  test('webhook: subscription deleted (even gone from Stripe) returns capacities to base', async () => {
    const { u, sub } = await customerWithSubscription();
    await deliver(completed(sub, u));
    assert.equal((await me(u)).bet_capacity, base().bet_capacity + 40);
    fake.subscriptions.delete(sub.id);
    assert.equal((await deliver(subEvent('customer.subscription.deleted', { ...sub, status: 'canceled' }))).statusCode, 200);
    assert.deepEqual(await me(u), { id: u.id, username: u.username, email: u.email, ...base(), pay_subscription_id: null });
    // Ended: a new checkout is allowed again.
    assert.equal((await post('/api/pay/checkout', u, { price_id: 'price_pro' })).statusCode, 200);
  });

  test('webhook: invoice.payment_failed (past_due) withdraws the extras until paid; unpaid stays at base', async () => {
    const { u, sub } = await customerWithSubscription();
    await deliver(completed(sub, u));
    sub.status = 'past_due';
    const invoice = stripeEvent('invoice.payment_failed', {
      id: 'in_1',
      object: 'invoice',
      customer: sub.customer,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id } },
    });
    assert.equal((await deliver(invoice)).statusCode, 200);
    const pastDue = await me(u);
    assert.deepEqual({ bet_capacity: pastDue.bet_capacity, follow_capacity: pastDue.follow_capacity }, base());
    assert.equal(pastDue.pay_subscription_id, sub.id);
    const row = await t.ctx.db.selectFrom('users').select('pay_subscription_status').where('id', '=', u.id).executeTakeFirstOrThrow();
    assert.equal(row.pay_subscription_status, 'past_due');
    // Still subscribed: settle it in the portal rather than buying a second plan.
    assert.equal((await post('/api/pay/checkout', u, { price_id: 'price_plus' })).statusCode, 409);

    sub.status = 'active';
    await deliver(subEvent('customer.subscription.updated', sub));
    assert.equal((await me(u)).bet_capacity, base().bet_capacity + 40);

    sub.status = 'unpaid';
    await deliver(subEvent('customer.subscription.updated', sub));
    assert.equal((await me(u)).bet_capacity, base().bet_capacity);
  });

  test('webhook: unknown events are acknowledged; a Stripe outage is 500 and the retry applies', async () => {
    const res = await deliver(stripeEvent('charge.refunded', { id: 'ch_1', object: 'charge' }));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { received: true });

    const { u, sub } = await customerWithSubscription();
    const event = completed(sub, u);
    const failed = await withFailingStripe(() => deliver(event));
    assert.equal(failed.statusCode, 500);
    assert.deepEqual(failed.json(), { error: 'Internal server error' });
    assert.equal((await me(u)).pay_subscription_id, null);
    assert.equal((await deliver(event)).statusCode, 200);
    assert.equal((await me(u)).pay_subscription_id, sub.id);
  });

  test('webhook: a signed event without data.object is 400 with one log line, no stack', async () => {
    for (const type of ['checkout.session.completed', 'customer.subscription.updated', 'invoice.payment_failed', 'charge.refunded']) {
      for (const data of [{}, undefined, { object: null }, { object: 'sub_1' }]) {
        const event = stripeEvent(type, {});
        if (data === undefined) delete event.data;
        else event.data = data;
        const before = logLines.length;
        const res = await deliver(event);
        assert.equal(res.statusCode, 400, `${type} ${JSON.stringify(data)}`);
        assert.deepEqual(res.json(), { error: 'Stripe event without data.object' });
        const logged = logLines.slice(before);
        assert.equal(logged.length, 1, logged.join('\n'));
        assert.doesNotMatch(logged[0] as string, /"stack"|\n\s+at /);
        assert.equal(JSON.parse(logged[0] as string).eventId, event.id);
      }
    }
  });

  test("webhook: event ids are kept beyond Stripe's three days of retries, then pruned", async () => {
    const { u, sub } = await customerWithSubscription();
    const first = completed(sub, u);
    await deliver(first);
    const kept = async () =>
      (
        await t.ctx.db
          .selectFrom('pay_events')
          .select('event_id')
          .where('event_id', '=', first.id as string)
          .execute()
      ).length;
    t.clock.advance(31 * 24 * 3600 * 1000);
    await deliver(subEvent('customer.subscription.updated', sub));
    assert.equal(await kept(), 1);
    // A replay a month later is still recognised.
    sub.status = 'canceled';
    await deliver(first);
    // (The session has expired by now: read the row.)
    const row = await t.ctx.db.selectFrom('users').select('pay_subscription_id').where('id', '=', u.id).executeTakeFirstOrThrow();
    assert.equal(row.pay_subscription_id, sub.id);
    t.clock.advance(5 * 24 * 3600 * 1000);
    await deliver(subEvent('customer.subscription.updated', sub));
    assert.equal(await kept(), 0);
  });

  test('a downgrade keeps existing bets and follows', async () => {
    const { u, sub } = await customerWithSubscription();
    await deliver(completed(sub, u));
    const others = await Promise.all([registerAndLogin(t.app), registerAndLogin(t.app)]);
    const now = t.clock.now();
    const open = base().bet_capacity + 5;
    await t.ctx.db
      .insertInto('bets')
      .values(
        Array.from({ length: open }, () => ({
          user_id: u.id,
          ticker: 'AAPL',
          direction: 'LONG' as const,
          status: 'OPEN' as const,
          entry_price: 100,
          opened_at: now,
          last_event_at: now,
        })),
      )
      .execute();
    await t.ctx.db
      .insertInto('follows')
      .values(others.map((o) => ({ follower_id: u.id, followed_id: o.id, created_at: now })))
      .execute();
    sub.status = 'canceled';
    await deliver(subEvent('customer.subscription.deleted', sub));
    assert.equal((await me(u)).bet_capacity, base().bet_capacity);
    const bets = await t.ctx.db.selectFrom('bets').select('id').where('user_id', '=', u.id).where('status', '=', 'OPEN').execute();
    assert.equal(bets.length, open);
    const follows = await t.ctx.db.selectFrom('follows').select('followed_id').where('follower_id', '=', u.id).execute();
    assert.equal(follows.length, 2);
  });

  test('the webhook is not in the API document; the local pages do not exist with Stripe', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.paths['/api/pay/webhook'], undefined);
    assert.ok(doc.paths['/api/pay/checkout']);
    const u = await registerAndLogin(t.app);
    assert.equal((await t.app.inject({ method: 'GET', url: '/pay/local/portal', headers: { cookie: u.cookie } })).statusCode, 404);
  });
});
