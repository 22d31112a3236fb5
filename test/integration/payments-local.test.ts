import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { DEFAULT_PLANS_FILE, loadPlansFile } from '../../src/providers/payments/local.js';
import { endDueLocalSubscriptions } from '../../src/services/local-payments.js';

forEachDialect('payments: local provider', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const me = async (cookie: string) => (await t.app.inject({ method: 'GET', url: '/me', headers: { cookie } })).json();
  const checkout = (cookie: string | undefined, payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/pay/checkout', payload: payload as object, headers: cookie ? { cookie } : {} });
  const form = (url: string, cookie?: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    });

  test('plans come from the shipped plans file, in SPEC shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/pay/plans' });
    assert.equal(res.statusCode, 200);
    const { plans } = res.json();
    assert.ok(plans.length >= 2);
    assert.deepEqual(plans, loadPlansFile(DEFAULT_PLANS_FILE));
    for (const p of plans) {
      assert.deepEqual(Object.keys(p).sort(), ['amount', 'currency', 'description', 'extra_bets', 'extra_slots', 'interval', 'name', 'price_id']);
    }
  });

  test('checkout → page → confirm raises capacities; portal → cancel returns them to base at the end of the period', async () => {
    const u = await registerAndLogin(t.app);
    const base = await me(u.cookie);
    const { plans } = (await t.app.inject({ method: 'GET', url: '/api/pay/plans' })).json();
    const plan = plans[0];

    const res = await checkout(u.cookie, { price_id: plan.price_id });
    assert.equal(res.statusCode, 200);
    const url = new URL(res.json().url);
    assert.match(url.pathname, /^\/pay\/local\/checkout\/[^/]+$/);
    // A checkout address alone changes nothing.
    assert.deepEqual(await me(u.cookie), base);

    const pageRes = await t.app.inject({ method: 'GET', url: url.pathname, headers: { cookie: u.cookie } });
    assert.equal(pageRes.statusCode, 200);
    assert.match(String(pageRes.headers['content-type']), /^text\/html/);
    assert.equal(pageRes.headers['cache-control'], 'no-store');
    assert.match(pageRes.body, /simulation/i);
    assert.match(pageRes.body, new RegExp(`action="${url.pathname}/confirm"`));
    assert.doesNotMatch(pageRes.body, /<script/i);

    const confirm = await form(`${url.pathname}/confirm`, u.cookie);
    assert.equal(confirm.statusCode, 303);
    assert.equal(confirm.headers.location, `${t.ctx.config.webUrl}?checkout=success`);

    const after1 = await me(u.cookie);
    assert.equal(after1.bet_capacity, base.bet_capacity + plan.extra_bets);
    assert.equal(after1.follow_capacity, base.follow_capacity + plan.extra_slots);
    assert.match(after1.pay_subscription_id, /^lsub_/);

    // Subscribed: a second checkout is refused, a second confirmation too.
    assert.equal((await checkout(u.cookie, { price_id: plan.price_id })).statusCode, 409);
    assert.equal((await form(`${url.pathname}/confirm`, u.cookie)).statusCode, 409);

    const portal = await t.app.inject({ method: 'POST', url: '/api/pay/portal', headers: { cookie: u.cookie } });
    assert.equal(portal.statusCode, 200);
    const portalUrl = new URL(portal.json().url);
    assert.equal(portalUrl.pathname, '/pay/local/portal');
    const portalPage = await t.app.inject({ method: 'GET', url: portalUrl.pathname, headers: { cookie: u.cookie } });
    assert.equal(portalPage.statusCode, 200);
    assert.equal(portalPage.headers['cache-control'], 'no-store');
    assert.match(portalPage.body, /action="\/pay\/local\/portal\/cancel"/);

    // Cancelling ends the plan at the end of the period (a month after the confirmation), not at once.
    const cancel = await form('/pay/local/portal/cancel', u.cookie);
    assert.equal(cancel.statusCode, 303);
    assert.deepEqual(await me(u.cookie), after1);
    t.clock.advance(31 * 24 * 3600 * 1000);
    assert.equal(await endDueLocalSubscriptions(t.ctx), 1);
    const relogged = (await t.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } })).headers['set-cookie'];
    u.cookie = String(Array.isArray(relogged) ? relogged[0] : relogged).split(';')[0] as string;
    assert.deepEqual(await me(u.cookie), { ...base, pay_subscription_id: null });
    assert.equal((await form('/pay/local/portal/cancel', u.cookie)).statusCode, 400);

    // After cancelling, a new plan can be bought.
    const again = await checkout(u.cookie, { price_id: plans[1].price_id });
    assert.equal(again.statusCode, 200);
  });

  const startCheckout = async (u: TestUser, priceId = 'local_price_plus_monthly') => {
    const res = await checkout(u.cookie, { price_id: priceId });
    assert.equal(res.statusCode, 200);
    return new URL(res.json().url).pathname;
  };

  test('checkout and portal: 401 without a session, 400 unknown price or no customer yet', async () => {
    assert.equal((await checkout(undefined, { price_id: 'local_price_plus_monthly' })).statusCode, 401);
    const u = await registerAndLogin(t.app);
    const bad = await checkout(u.cookie, { price_id: 'price_from_elsewhere' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(Object.keys(bad.json()), ['error']);
    const portal = await t.app.inject({ method: 'POST', url: '/api/pay/portal', headers: { cookie: u.cookie } });
    assert.equal(portal.statusCode, 400);
    assert.deepEqual(Object.keys(portal.json()), ['error']);
  });

  test('a checkout belongs to its user: another user can neither see nor confirm it', async () => {
    const owner = await registerAndLogin(t.app);
    const other = await registerAndLogin(t.app);
    const path = await startCheckout(owner);
    const seen = await t.app.inject({ method: 'GET', url: path, headers: { cookie: other.cookie } });
    assert.equal(seen.statusCode, 404);
    assert.match(String(seen.headers['content-type']), /^text\/html/);
    assert.equal((await form(`${path}/confirm`, other.cookie)).statusCode, 404);
    assert.equal((await me(other.cookie)).pay_subscription_id, null);
    assert.equal((await me(owner.cookie)).pay_subscription_id, null);
    // Without a session: an HTML page saying to log in, nothing changes.
    const anonymous = await t.app.inject({ method: 'GET', url: path });
    assert.equal(anonymous.statusCode, 401);
    assert.match(anonymous.body, /Log in/);
    assert.equal((await form(`${path}/confirm`)).statusCode, 401);
  });

  test('a checkout id with a NUL character is a 400 page on view and confirm, never a 500', async () => {
    const u = await registerAndLogin(t.app);
    const seen = await t.app.inject({ method: 'GET', url: '/pay/local/checkout/a%00b', headers: { cookie: u.cookie } });
    assert.equal(seen.statusCode, 400);
    assert.match(String(seen.headers['content-type']), /^text\/html/);
    assert.equal((await form('/pay/local/checkout/a%00b/confirm', u.cookie)).statusCode, 400);
  });

  test('confirm refuses cross-site posts, JSON bodies and expired checkouts', async () => {
    const u = await registerAndLogin(t.app);
    const path = await startCheckout(u);
    const crossSite = await form(`${path}/confirm`, u.cookie, { origin: 'https://evil.test' });
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await form(`${path}/confirm`, u.cookie, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
    const json = await t.app.inject({ method: 'POST', url: `${path}/confirm`, payload: {}, headers: { cookie: u.cookie } });
    assert.equal(json.statusCode, 415);
    assert.equal((await me(u.cookie)).pay_subscription_id, null);

    t.clock.advance(25 * 3600 * 1000);
    const page = await t.app.inject({ method: 'GET', url: path, headers: { cookie: u.cookie } });
    assert.match(page.body, /expired/);
    assert.doesNotMatch(page.body, /\/confirm"/);
    assert.equal((await form(`${path}/confirm`, u.cookie, { origin: 'http://localhost:3000' })).statusCode, 400);
    assert.equal((await me(u.cookie)).pay_subscription_id, null);
  });

  test('parallel confirmations: one plan, whatever the number of checkouts or clicks', async () => {
    const u = await registerAndLogin(t.app);
    const a = await startCheckout(u, 'local_price_plus_monthly');
    const b = await startCheckout(u, 'local_price_pro_monthly');
    const results = await Promise.all([a, a, b, b].map((p) => form(`${p}/confirm`, u.cookie)));
    const codes = results.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [303, 409, 409, 409]);
    const user = await me(u.cookie);
    const extras = user.bet_capacity - t.ctx.config.capacities.baseBets;
    assert.ok(extras === 10 || extras === 40, `extras ${extras}`);
  });

  test('pages: no-store, CSP without scripts, plainly a simulation', async () => {
    const u = await registerAndLogin(t.app);
    const path = await startCheckout(u);
    const page = await t.app.inject({ method: 'GET', url: path, headers: { cookie: u.cookie } });
    assert.equal(page.headers['cache-control'], 'no-store');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /form-action 'self'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(page.body, /no money moves/);
    assert.match(page.body, /\$5\.00/);
  });
});
