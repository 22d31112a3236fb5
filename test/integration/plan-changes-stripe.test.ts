// Plan changes through Stripe's customer portal (issue 24, item 10): the
// portal is opened with a configuration that lets a subscriber switch between
// our plans' prices with proration and cancel at the end of the period;
// capacities follow the customer.subscription.updated / deleted events the
// Stripe fake sends.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakeStripe, stripeDriver, WEBHOOK_SECRET } from '../helpers/fake-stripe.js';

const DAY_S = 86_400;

forEachDialect('plan changes: Stripe customer portal', (dialect) => {
  let t: TestApp;
  const fake = new FakeStripe();
  const stripeConfig = () => ({ stripe: { secretKey: 'sk_test_fake', webhookSecret: WEBHOOK_SECRET, apiUrl: fake.url } });
  before(async () => {
    await fake.start();
    t = await createTestApp(dialect, { config: stripeConfig() });
  });
  after(async () => {
    await t.close();
    await fake.stop();
  });

  const stripe = stripeDriver(() => t, fake);
  const { deliver, completed, customerWithSubscription, nowSeconds } = stripe;
  const base = () => ({ extra_bets: 0, extra_slots: 0 });
  /** The user's plan columns (read from the row: sessions expire while the clock moves a month). */
  const plan = async (u: TestUser) =>
    t.ctx.db
      .selectFrom('users')
      .select(['extra_bets', 'extra_slots', 'pay_subscription_id', 'pay_price_id'])
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
  /** Opens the portal as the user and answers the configuration its session was made with. */
  const openPortal = async (u: TestUser): Promise<string> => {
    const res = await t.app.inject({ method: 'POST', url: '/api/pay/portal', headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    const session = fake.calls('POST', '/v1/billing_portal/sessions').at(-1);
    assert.equal(session?.params.customer, await stripe.customerOf(u.id));
    assert.ok(session?.params.configuration);
    return session.params.configuration;
  };
  const subscribed = async (priceId: string, periodDays = 30) => {
    const { u, sub } = await customerWithSubscription('active', priceId);
    sub.periodEnd = nowSeconds() + periodDays * DAY_S;
    assert.equal((await deliver(completed(sub, u))).statusCode, 200);
    return { u, sub };
  };

  test('the portal session uses a configuration allowing our plan prices, prorated, and cancelling at period end', async () => {
    const { u } = await subscribed('price_plus');
    const id = await openPortal(u);
    const config = fake.portalConfiguration(id);
    const p = config.params;
    assert.equal(p['features[subscription_update][enabled]'], 'true');
    assert.equal(p['features[subscription_update][default_allowed_updates][0]'], 'price');
    assert.equal(p['features[subscription_update][proration_behavior]'], 'create_prorations');
    assert.equal(p['features[subscription_cancel][enabled]'], 'true');
    assert.equal(p['features[subscription_cancel][mode]'], 'at_period_end');
    // Both plans, each under its product; the prices that are not plans are not offered.
    assert.deepEqual(
      Object.entries(p)
        .filter(([k]) => k.startsWith('features[subscription_update][products]'))
        .sort(),
      [
        ['features[subscription_update][products][0][prices][0]', 'price_plus'],
        ['features[subscription_update][products][0][product]', 'prod_plus'],
        ['features[subscription_update][products][1][prices][0]', 'price_pro'],
        ['features[subscription_update][products][1][product]', 'prod_pro'],
      ],
    );
    assert.deepEqual(FakeStripe.switchablePrices(config).sort(), ['price_plus', 'price_pro']);
  });

  test('the configuration is made once: later openings and another instance reuse it', async () => {
    const { u } = await subscribed('price_plus');
    const first = await openPortal(u);
    const made = fake.calls('POST', '/v1/billing_portal/configurations').length;
    assert.equal(await openPortal(u), first);
    const other = await createTestApp(dialect, { config: stripeConfig() });
    try {
      const v = await registerAndLogin(other.app);
      assert.equal(
        (await other.app.inject({ method: 'POST', url: '/api/pay/checkout', payload: { price_id: 'price_pro' }, headers: { cookie: v.cookie } }))
          .statusCode,
        200,
      );
      assert.equal((await other.app.inject({ method: 'POST', url: '/api/pay/portal', headers: { cookie: v.cookie } })).statusCode, 200);
      assert.equal(fake.calls('POST', '/v1/billing_portal/sessions').at(-1)?.params.configuration, first);
    } finally {
      await other.close();
    }
    assert.equal(fake.calls('POST', '/v1/billing_portal/configurations').length, made);
  });

  test('switching up, then down, changes capacities when the updated event arrives', async () => {
    const { u, sub } = await subscribed('price_plus');
    assert.deepEqual(await plan(u), { extra_bets: 10, extra_slots: 5, pay_subscription_id: sub.id, pay_price_id: 'price_plus' });
    const portal = await openPortal(u);

    const up = fake.portalSwitch(portal, sub.id, 'price_pro');
    // Stripe has switched; nothing changes here until its event arrives.
    assert.equal((await plan(u)).extra_bets, 10);
    assert.equal((await deliver(up)).statusCode, 200);
    assert.deepEqual(await plan(u), { extra_bets: 40, extra_slots: 80, pay_subscription_id: sub.id, pay_price_id: 'price_pro' });

    assert.equal((await deliver(fake.portalSwitch(portal, sub.id, 'price_plus'))).statusCode, 200);
    assert.deepEqual(await plan(u), { extra_bets: 10, extra_slots: 5, pay_subscription_id: sub.id, pay_price_id: 'price_plus' });
    // A redelivered event changes nothing more.
    assert.equal((await deliver(up)).statusCode, 200);
    assert.equal((await plan(u)).pay_price_id, 'price_plus');
  });

  test('cancel at period end keeps capacities until the period ends, then the deleted event drops them', async () => {
    const { u, sub } = await subscribed('price_pro', 30);
    const portal = await openPortal(u);
    assert.equal((await deliver(fake.portalCancel(portal, sub.id))).statusCode, 200);
    assert.deepEqual(await plan(u), { extra_bets: 40, extra_slots: 80, pay_subscription_id: sub.id, pay_price_id: 'price_pro' });

    t.clock.advance(29 * DAY_S * 1000);
    assert.deepEqual(fake.advanceTo(nowSeconds()), []);
    assert.equal((await plan(u)).extra_bets, 40);

    t.clock.advance(DAY_S * 1000);
    const ended = fake.advanceTo(nowSeconds());
    assert.deepEqual(
      ended.map((e) => e.type),
      ['customer.subscription.deleted'],
    );
    for (const e of ended) assert.equal((await deliver(e)).statusCode, 200);
    assert.deepEqual(await plan(u), { ...base(), pay_subscription_id: null, pay_price_id: null });
  });

  test("another user's subscription is untouchable: events act on the subscription's own customer, forged ones are refused", async () => {
    const a = await subscribed('price_plus');
    const b = await subscribed('price_plus');
    const portalA = await openPortal(a.u);
    // A's portal session is for A's customer only (checked in openPortal); B's switch lands on B.
    assert.notEqual(a.sub.customer, b.sub.customer);
    const bUp = fake.portalSwitch(portalA, b.sub.id, 'price_pro');
    // An event whose body names A's customer still acts on the subscription as Stripe has it (B's).
    const data = bUp.data as { object: Record<string, unknown> };
    data.object.customer = a.sub.customer;
    assert.equal((await deliver(bUp)).statusCode, 200);
    assert.equal((await plan(a.u)).pay_price_id, 'price_plus');
    assert.equal((await plan(b.u)).pay_price_id, 'price_pro');

    // A forged upgrade for A (signed with another secret, or not signed, or altered) is refused.
    const forged = fake.portalSwitch(portalA, a.sub.id, 'price_pro');
    fake.subscriptions.get(a.sub.id)!.priceId = 'price_plus';
    assert.equal((await deliver(forged, { secret: 'whsec_someone_else' })).statusCode, 400);
    assert.equal((await deliver(forged, { body: JSON.stringify({ ...forged, id: 'evt_altered' }) })).statusCode, 400);
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/api/pay/webhook',
      payload: JSON.stringify(forged),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(unsigned.statusCode, 400);
    assert.equal((await plan(a.u)).pay_price_id, 'price_plus');
  });

  test('the portal: 401 without a session; a Stripe failure preparing the configuration is 500 and the next opening retries', async () => {
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/pay/portal' })).statusCode, 401);
    const other = await createTestApp(dialect, { config: stripeConfig() });
    try {
      const v = await registerAndLogin(other.app);
      assert.equal(
        (await other.app.inject({ method: 'POST', url: '/api/pay/checkout', payload: { price_id: 'price_pro' }, headers: { cookie: v.cookie } }))
          .statusCode,
        200,
      );
      fake.failing = true;
      const failed = await other.app.inject({ method: 'POST', url: '/api/pay/portal', headers: { cookie: v.cookie } });
      fake.failing = false;
      assert.equal(failed.statusCode, 500);
      assert.deepEqual(failed.json(), { error: 'Failed to create portal session' });
      assert.equal((await other.app.inject({ method: 'POST', url: '/api/pay/portal', headers: { cookie: v.cookie } })).statusCode, 200);
    } finally {
      await other.close();
    }
  });
});
