// A Stripe signature is accepted only when dated within the tolerance of now,
// in either direction (issue 22, finding 10): one dated ahead would let a
// captured delivery be replayed for longer than the tolerance.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SIGNATURE_TOLERANCE_SECONDS, signatureTimestamp } from '../../src/providers/payments/stripe.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakeStripe, stripeDriver, WEBHOOK_SECRET } from '../helpers/fake-stripe.js';

test('signatureTimestamp reads t= as the SDK does', () => {
  assert.equal(signatureTimestamp('t=1700000000,v1=abc'), 1700000000);
  assert.equal(signatureTimestamp('v1=abc,t=1,t=2'), 2);
  assert.equal(signatureTimestamp('v1=abc'), null);
  assert.equal(signatureTimestamp('t=soon,v1=abc'), null);
});

forEachDialect('Stripe webhook: signature dates', (dialect) => {
  let t: TestApp;
  const fake = new FakeStripe();
  before(async () => {
    await fake.start();
    t = await createTestApp(dialect, {
      config: { stripe: { secretKey: 'sk_test_fake', webhookSecret: WEBHOOK_SECRET, apiUrl: fake.url } },
    });
  });
  after(async () => {
    await t.close();
    await fake.stop();
  });
  const stripe = stripeDriver(() => t, fake);
  const subscriptionOf = async (userId: number) =>
    (await t.ctx.db.selectFrom('users').select('pay_subscription_id').where('id', '=', userId).executeTakeFirstOrThrow()).pay_subscription_id;
  const recorded = async (eventId: string) =>
    (await t.ctx.db.selectFrom('pay_events').select('event_id').where('event_id', '=', eventId).execute()).length;

  test('a genuine signature dated beyond the tolerance ahead is 400 and changes nothing', async () => {
    const { u, sub } = await stripe.customerWithSubscription();
    const event = stripe.completed(sub, u);
    const now = stripe.nowSeconds();
    for (const ahead of [SIGNATURE_TOLERANCE_SECONDS + 1, 3600, 100_000]) {
      const res = await stripe.deliver(event, { timestamp: now + ahead });
      assert.equal(res.statusCode, 400, `${ahead} s ahead: ${res.body}`);
      assert.deepEqual(res.json(), { error: 'Invalid or expired signature' });
    }
    assert.equal(await subscriptionOf(u.id), null);
    assert.equal(await recorded(event.id as string), 0);
  });

  test('clocks a little apart still agree: within the tolerance ahead or behind, the delivery applies', async () => {
    const now = stripe.nowSeconds();
    for (const offset of [SIGNATURE_TOLERANCE_SECONDS - 1, -(SIGNATURE_TOLERANCE_SECONDS - 1)]) {
      const { u, sub } = await stripe.customerWithSubscription();
      const res = await stripe.deliver(stripe.completed(sub, u), { timestamp: now + offset });
      assert.equal(res.statusCode, 200, `${offset} s: ${res.body}`);
      assert.equal(await subscriptionOf(u.id), sub.id);
    }
  });

  test('beyond the tolerance behind is refused too', async () => {
    const { u, sub } = await stripe.customerWithSubscription();
    const res = await stripe.deliver(stripe.completed(sub, u), { timestamp: stripe.nowSeconds() - SIGNATURE_TOLERANCE_SECONDS - 1 });
    assert.equal(res.statusCode, 400);
    assert.equal(await subscriptionOf(u.id), null);
  });
});
