// Plan changes on the local payment provider's portal page (issue 24, item
// 10), through HTTP as a browser's form posts make them: switch plans (new
// capacities at once), cancel at the end of the period (capacities stay until
// the injected clock passes the period's end, then drop), keep a cancelled plan.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { endDueLocalSubscriptions } from '../../src/services/local-payments.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

const DAY = 86_400_000;
const PLUS = 'local_price_plus_monthly';
const PRO = 'local_price_pro_monthly';

forEachDialect('plan changes: local provider portal', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const form = (url: string, u: TestUser | null, body = '', headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(u ? { cookie: u.cookie } : {}), ...headers },
    });
  const portalPage = async (u: TestUser) => {
    const res = await t.app.inject({ method: 'GET', url: '/pay/local/portal', headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.body;
  };
  const plan = async (u: TestUser) =>
    t.ctx.db.selectFrom('users').select(['extra_bets', 'extra_slots', 'pay_price_id']).where('id', '=', u.id).executeTakeFirstOrThrow();
  /** A user subscribed to a plan through the local checkout page. */
  const subscriber = async (priceId = PLUS) => {
    const u = await registerAndLogin(t.app);
    const res = await t.app.inject({ method: 'POST', url: '/api/pay/checkout', payload: { price_id: priceId }, headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200);
    const confirm = await form(`${new URL(res.json().url).pathname}/confirm`, u);
    assert.equal(confirm.statusCode, 303);
    return u;
  };
  const switchTo = (u: TestUser | null, priceId: string, headers: Record<string, string> = {}) =>
    form('/pay/local/portal/switch', u, `price_id=${encodeURIComponent(priceId)}`, headers);

  test('the portal page offers the other plans; switching up then down changes capacities at once', async () => {
    const u = await subscriber(PLUS);
    assert.deepEqual(await plan(u), { extra_bets: 10, extra_slots: 20, pay_price_id: PLUS });
    const page = await portalPage(u);
    assert.match(page, /action="\/pay\/local\/portal\/switch"/);
    assert.match(page, new RegExp(`name="price_id" value="${PRO}"`));
    assert.doesNotMatch(page, new RegExp(`value="${PLUS}"`), 'the current plan is not offered as a switch');
    assert.match(page, /Renews on \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

    const up = await switchTo(u, PRO);
    assert.equal(up.statusCode, 303);
    assert.equal(up.headers.location, '/pay/local/portal');
    assert.deepEqual(await plan(u), { extra_bets: 40, extra_slots: 80, pay_price_id: PRO });
    assert.equal((await switchTo(u, PLUS)).statusCode, 303);
    assert.deepEqual(await plan(u), { extra_bets: 10, extra_slots: 20, pay_price_id: PLUS });
  });

  test('a switch to the same plan, an unknown price or a malformed form is 400, as an HTML page', async () => {
    const u = await subscriber(PLUS);
    for (const res of [await switchTo(u, PLUS), await switchTo(u, 'price_elsewhere'), await form('/pay/local/portal/switch', u, 'plan=x')]) {
      assert.equal(res.statusCode, 400);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
    assert.equal((await plan(u)).pay_price_id, PLUS);
  });

  test('cancel at the end of the period: capacities stay until it ends, then drop; a new plan can be bought after', async () => {
    const subscribed = await subscriber(PRO);
    const confirmedAt = t.clock.now();
    t.clock.advance(10 * DAY);
    const u = await loginAgain(subscribed);
    const cancel = await form('/pay/local/portal/cancel', u);
    assert.equal(cancel.statusCode, 303);
    const page = await portalPage(u);
    const shown = /Cancelled: the plan ends on (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(page)?.[1];
    assert.ok(shown, 'the page says when the plan ends');
    const end = Date.parse(`${shown.replace(' ', 'T')}:00Z`);
    // A monthly plan: the period ends a calendar month after the confirmation.
    assert.equal(new Date(end).getUTCDate(), new Date(confirmedAt).getUTCDate());
    assert.ok(end - confirmedAt >= 28 * DAY && end - confirmedAt <= 31 * DAY);
    assert.match(page, /action="\/pay\/local\/portal\/resume"/);
    assert.doesNotMatch(page, /portal\/switch/);
    // While it runs out: capacities kept, no switch, no second cancel.
    assert.equal((await switchTo(u, PLUS)).statusCode, 409);
    assert.equal((await form('/pay/local/portal/cancel', u)).statusCode, 409);
    assert.equal(await endDueLocalSubscriptions(t.ctx), 0);
    assert.deepEqual(await plan(u), { extra_bets: 40, extra_slots: 80, pay_price_id: PRO });

    t.clock.set(end - 60_000);
    assert.equal(await endDueLocalSubscriptions(t.ctx), 0);
    assert.equal((await plan(u)).extra_bets, 40);
    t.clock.set(end);
    assert.equal(await endDueLocalSubscriptions(t.ctx), 1);
    assert.deepEqual(await plan(u), { extra_bets: 0, extra_slots: 0, pay_price_id: null });
    assert.equal(await endDueLocalSubscriptions(t.ctx), 0);

    const later = await loginAgain(u);
    assert.match(await portalPage(later), /no active subscription/);
    const again = await t.app.inject({ method: 'POST', url: '/api/pay/checkout', payload: { price_id: PLUS }, headers: { cookie: later.cookie } });
    assert.equal(again.statusCode, 200);
  });

  test('keeping a cancelled plan: it renews as before, and switching works again', async () => {
    const u = await subscriber(PLUS);
    assert.equal((await form('/pay/local/portal/cancel', u)).statusCode, 303);
    assert.equal((await form('/pay/local/portal/resume', u)).statusCode, 303);
    assert.equal((await form('/pay/local/portal/resume', u)).statusCode, 400);
    t.clock.advance(40 * DAY);
    await endDueLocalSubscriptions(t.ctx);
    assert.deepEqual(await plan(u), { extra_bets: 10, extra_slots: 20, pay_price_id: PLUS });
    const fresh = await loginAgain(u);
    assert.equal((await switchTo(fresh, PRO)).statusCode, 303);
    assert.equal((await plan(u)).pay_price_id, PRO);
  });

  test('security: a user acts on their own subscription only; no session 401, cross-site posts 403, JSON 415', async () => {
    const owner = await subscriber(PLUS);
    const other = await registerAndLogin(t.app);
    // Another user without a subscription has nothing to switch or cancel, whatever they post.
    assert.equal((await switchTo(other, PRO)).statusCode, 400);
    assert.equal((await form('/pay/local/portal/cancel', other)).statusCode, 400);
    assert.equal((await form('/pay/local/portal/resume', other)).statusCode, 400);
    // A subscriber's actions touch only their own plan.
    const second = await subscriber(PRO);
    assert.equal((await form('/pay/local/portal/cancel', second)).statusCode, 303);
    assert.deepEqual(await plan(owner), { extra_bets: 10, extra_slots: 20, pay_price_id: PLUS });
    assert.equal((await switchTo(owner, PRO)).statusCode, 303);
    assert.equal((await plan(second)).pay_price_id, PRO);

    assert.equal((await switchTo(null, PRO)).statusCode, 401);
    assert.equal((await form('/pay/local/portal/cancel', null)).statusCode, 401);
    assert.equal((await switchTo(owner, PLUS, { origin: 'https://evil.example' })).statusCode, 403);
    assert.equal((await form('/pay/local/portal/resume', owner, '', { origin: 'https://evil.example' })).statusCode, 403);
    const json = await t.app.inject({
      method: 'POST',
      url: '/pay/local/portal/switch',
      payload: { price_id: PLUS },
      headers: { cookie: owner.cookie },
    });
    assert.equal(json.statusCode, 415);
    assert.equal((await plan(owner)).pay_price_id, PRO);
  });

  /** A new session for a user (the clock moved past the old one's life). */
  async function loginAgain(u: TestUser): Promise<TestUser> {
    const login = await t.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } });
    assert.equal(login.statusCode, 200);
    const cookie = login.cookies.find((c) => c.name === 'auth_token');
    return { ...u, cookie: `auth_token=${cookie?.value}` };
  }
});
