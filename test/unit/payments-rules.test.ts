import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type Stripe from 'stripe';
import { ConfigError, loadConfig } from '../../src/config.js';
import { nextSubscriptionColumns, parseExtra, standingOf } from '../../src/domain/payments.js';
import { escapeHtml, html } from '../../src/lib/html.js';
import { loadPlansFile } from '../../src/providers/payments/local.js';
import { planOf, sdkAddress } from '../../src/providers/payments/stripe.js';
import { formatAmount } from '../../src/routes/local-pay-pages.js';

test('standing: active and trialing are entitled; canceled ends; anything else holds without extras', () => {
  assert.equal(standingOf('active'), 'entitled');
  assert.equal(standingOf('trialing'), 'entitled');
  assert.equal(standingOf('canceled'), 'ended');
  assert.equal(standingOf('incomplete_expired'), 'ended');
  for (const s of ['past_due', 'unpaid', 'incomplete', 'paused', 'something_new']) assert.equal(standingOf(s), 'held', s);
});

test('parseExtra: small non-negative integers only', () => {
  assert.equal(parseExtra('0'), 0);
  assert.equal(parseExtra(' 25 '), 25);
  assert.equal(parseExtra(7), 7);
  for (const bad of ['-1', '1.5', 'ten', '', '99999999', undefined, null, -3, 2.5, '1e3']) assert.equal(parseExtra(bad), null, String(bad));
});

test('nextSubscriptionColumns: applies the current subscription, ignores the end of an older one', () => {
  const active = { subscriptionId: 'sub_1', status: 'active', priceId: 'p', extraBets: 4, extraSlots: 6 };
  assert.deepEqual(nextSubscriptionColumns(null, active), {
    pay_subscription_id: 'sub_1',
    pay_subscription_status: 'active',
    pay_price_id: 'p',
    extra_bets: 4,
    extra_slots: 6,
  });
  assert.deepEqual(nextSubscriptionColumns('sub_1', { ...active, status: 'past_due' }), {
    pay_subscription_id: 'sub_1',
    pay_subscription_status: 'past_due',
    pay_price_id: 'p',
    extra_bets: 0,
    extra_slots: 0,
  });
  assert.deepEqual(nextSubscriptionColumns('sub_1', { ...active, status: 'canceled' }), {
    pay_subscription_id: null,
    pay_subscription_status: 'canceled',
    pay_price_id: null,
    extra_bets: 0,
    extra_slots: 0,
  });
  assert.equal(nextSubscriptionColumns('sub_2', { ...active, status: 'canceled' }), null);
  assert.equal(nextSubscriptionColumns(null, { ...active, status: 'canceled' }), null);
  // A newer live subscription replaces the remembered one.
  assert.equal(nextSubscriptionColumns('sub_0', active)?.pay_subscription_id, 'sub_1');
});

const price = (over: Partial<Stripe.Price> = {}, productOver: Partial<Stripe.Product> = {}): Stripe.Price =>
  ({
    id: 'price_1',
    object: 'price',
    active: true,
    currency: 'usd',
    unit_amount: 900,
    recurring: { interval: 'month', interval_count: 1 },
    metadata: {},
    product: {
      id: 'prod_1',
      object: 'product',
      active: true,
      name: 'Gold',
      description: null,
      metadata: { extra_bets: '3', extra_slots: '4' },
      ...productOver,
    },
    ...over,
  }) as unknown as Stripe.Price;

test('planOf: extras from the price override the product; non-plans are skipped', () => {
  assert.deepEqual(planOf(price()), {
    price_id: 'price_1',
    amount: 900,
    currency: 'usd',
    interval: 'month',
    extra_bets: 3,
    extra_slots: 4,
    name: 'Gold',
    description: null,
  });
  assert.equal(planOf(price({ metadata: { extra_bets: '9' } }))?.extra_bets, 9);
  assert.equal(planOf(price({}, { metadata: { extra_bets: '3' } })), null);
  assert.equal(planOf(price({ recurring: null })), null);
  assert.equal(planOf(price({ unit_amount: null })), null);
  assert.equal(planOf(price({ active: false })), null);
  assert.equal(planOf(price({}, { active: false })), null);
  assert.equal(planOf(price({ product: 'prod_1' })), null);
});

test('sdkAddress: STRIPE_API_URL becomes the SDK host, port and protocol', () => {
  assert.deepEqual(sdkAddress(null), {});
  assert.deepEqual(sdkAddress('http://127.0.0.1:12111/'), { host: '127.0.0.1', port: 12111, protocol: 'http' });
  assert.deepEqual(sdkAddress('https://stripe-mock.internal'), { host: 'stripe-mock.internal', port: 443, protocol: 'https' });
});

test('config: STRIPE_API_URL must be an http(s) URL; a key without a webhook secret is refused', () => {
  assert.throws(() => loadConfig({ STRIPE_API_URL: 'not a url' }), ConfigError);
  assert.throws(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x' }), ConfigError);
  assert.equal(loadConfig({ STRIPE_API_URL: 'http://127.0.0.1:9' }).stripe.apiUrl, 'http://127.0.0.1:9/');
});

test('loadPlansFile: malformed files stop the service with a clear message', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plans-'));
  const write = (content: unknown) => {
    const file = path.join(dir, `${Math.random()}.json`);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const plan = { price_id: 'a', amount: 1, currency: 'usd', interval: 'month', extra_slots: 1, extra_bets: 1, name: null, description: null };
  try {
    assert.deepEqual(loadPlansFile(write({ plans: [plan] })), [plan]);
    assert.throws(() => loadPlansFile(write('{nope')), /not readable JSON/);
    assert.throws(() => loadPlansFile(write({})), /"plans" array/);
    assert.throws(() => loadPlansFile(write({ plans: [{ ...plan, interval: 'fortnight' }] })), /plan 0 is invalid/);
    assert.throws(() => loadPlansFile(write({ plans: [{ ...plan, extra: 1 }] })), /plan 0 is invalid/);
    assert.throws(() => loadPlansFile(write({ plans: [{ ...plan, extra_bets: -1 }] })), /plan 0 is invalid at \/extra_bets/);
    assert.throws(() => loadPlansFile(write({ plans: [plan, plan] })), /appears twice/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('html: every interpolation is escaped unless already safe', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const name = '<script>alert(1)</script>';
  assert.equal(html`<p>${name}</p>`.value, '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  assert.equal(html`<div>${html`<b>${'&'}</b>`}${null}${[1, '<']}</div>`.value, '<div><b>&amp;</b>1&lt;</div>');
});

test('formatAmount: smallest currency unit to a readable price', () => {
  assert.equal(formatAmount(500, 'usd'), '$5.00');
  assert.equal(formatAmount(1500, 'jpy'), '¥1,500');
  assert.equal(formatAmount(42, 'not-a-currency'), '42 not-a-currency');
});
