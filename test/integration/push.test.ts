// Web Push end to end on both dialects: devices registered through the API
// (only push services' endpoints), notices queued per device and kind, and
// delivered by the outbox's push channel to a local push service that checks
// the VAPID signature and decrypts each payload (test/helpers/fake-push.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { saveExitRule } from '../../src/repositories/exit-rules.js';
import { claimDue } from '../../src/repositories/outbox.js';
import { appendQuote } from '../../src/repositories/quotes.js';
import { exitRulesWatcher } from '../../src/services/exit-rules.js';
import { evaluateAlerts } from '../../src/services/price-alerts.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePushService, type FakeSubscription } from '../helpers/fake-push.js';
import { finishBet, follow, insertOpenBet } from '../helpers/messaging.js';

forEachDialect('web push', (dialect) => {
  let t: TestApp;
  let push: FakePushService;
  before(async () => {
    push = await new FakePushService().start();
    t = await createTestApp(dialect, {
      config: {
        webUrl: 'https://web.example/app/',
        push: { vapidKeys: null, vapidSubject: 'mailto:ops@example.test', extraOrigins: [push.origin], timeoutMs: 5000 },
      },
    });
    push.expectedKey = t.ctx.push.publicKey;
  });
  after(async () => {
    await t.close();
    await push.stop();
  });

  const subscribe = (u: TestUser, body: object) =>
    t.app.inject({ method: 'POST', url: '/push/subscriptions', headers: { cookie: u.cookie }, payload: body });
  const register = async (u: TestUser, sub: FakeSubscription, kinds?: string[]) => {
    const res = await subscribe(u, { ...sub, expirationTime: null, ...(kinds ? { kinds } : {}) });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    return res.json() as { id: number; kinds: string[] };
  };
  const rowsOf = (deviceId: number) =>
    t.ctx.db
      .selectFrom('notifications')
      .selectAll()
      .where('transport', '=', 'push')
      .where('push_subscription_id', '=', deviceId)
      .orderBy('id')
      .execute();

  test('the VAPID key is public, generated once and stored like the signing key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/push/key' });
    assert.equal(res.statusCode, 200);
    const key = res.json().public_key as string;
    assert.equal(Buffer.from(key, 'base64url').length, 65);
    assert.equal(key, t.ctx.push.publicKey);
    const stored = await t.ctx.db.selectFrom('settings').select('value').where('key', '=', 'vapid_keys').executeTakeFirstOrThrow();
    assert.equal(JSON.parse(stored.value).publicKey, key);
  });

  test('device endpoints need a session: 401', async () => {
    for (const [method, url] of [
      ['GET', '/push/subscriptions'],
      ['POST', '/push/subscriptions'],
      ['DELETE', '/push/subscriptions/1'],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: method === 'POST' ? push.subscribe() : undefined });
      assert.equal(res.statusCode, 401, `${method} ${url}`);
      assert.equal(typeof res.json().error, 'string');
    }
  });

  test('only push services are accepted: http, other hosts, userinfo, IP literals and ports are 400', async () => {
    const u = await registerAndLogin(t.app, 'pushbad');
    const keys = push.subscribe().keys;
    const { port } = new URL(push.origin);
    for (const endpoint of [
      'http://fcm.googleapis.com/fcm/send/x',
      'https://attacker.example/push',
      'https://fcm.googleapis.com@attacker.example/x',
      'https://attacker.example\\@fcm.googleapis.com/x',
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest/meta-data/',
      'https://fcm.googleapis.com:8443/x',
      `http://localhost:${port}/push/abc`,
      `http://127.0.0.1:${Number(port) + 1}/push/abc`,
      'gopher://fcm.googleapis.com/x',
    ]) {
      const res = await subscribe(u, { endpoint, keys });
      assert.equal(res.statusCode, 400, `${endpoint}: ${res.body}`);
      assert.equal(typeof res.json().error, 'string');
    }
    for (const bad of [
      { endpoint: `${push.origin}/push/ab`, keys: { p256dh: 'AAAA', auth: keys.auth } },
      { endpoint: `${push.origin}/push/ab`, keys: { p256dh: keys.p256dh, auth: 'short' } },
      { endpoint: `${push.origin}/push/ab`, keys, kinds: ['bet_opened', 'bet_opened'] },
      { endpoint: `${push.origin}/push/ab`, keys, kinds: ['everything'] },
      { endpoint: `${push.origin}/push/ab`, keys, extra: 1 },
      { endpoint: `${push.origin}/push/ab` },
      { endpoint: 'x'.repeat(3000), keys },
    ]) {
      const res = await subscribe(u, bad);
      assert.equal(res.statusCode, 400, JSON.stringify(bad).slice(0, 200));
      assert.equal(typeof res.json().error, 'string');
    }
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/push/subscriptions', headers: { cookie: u.cookie } })).json(), { devices: [] });
  });

  test('a device chooses its kinds; the same endpoint again updates it; another user cannot remove it', async () => {
    const u = await registerAndLogin(t.app, 'pushdev');
    const other = await registerAndLogin(t.app, 'pushoth');
    const sub = push.subscribe();
    const first = await subscribe(u, sub);
    assert.equal(first.statusCode, 201);
    assert.deepEqual(first.json().kinds, ['bet_cancelled', 'bet_exit', 'bet_opened', 'bet_settled', 'league_notice', 'price_alert']);
    const again = await subscribe(u, { ...sub, kinds: ['bet_settled'] });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().id, first.json().id);
    const list = (await t.app.inject({ method: 'GET', url: '/push/subscriptions', headers: { cookie: u.cookie } })).json();
    assert.deepEqual(
      list.devices.map((d: { kinds: string[] }) => d.kinds),
      [['bet_settled']],
    );
    const del = (who: TestUser, id: unknown) => t.app.inject({ method: 'DELETE', url: `/push/subscriptions/${id}`, headers: { cookie: who.cookie } });
    assert.equal((await del(other, first.json().id)).statusCode, 404);
    assert.equal((await del(u, 'abc')).statusCode, 400);
    assert.equal((await del(u, first.json().id)).statusCode, 200);
    assert.equal((await del(u, first.json().id)).statusCode, 404);
  });

  test('followed bets, own results and cancellations go to each device that chose them, signed and encrypted', async () => {
    const trader = await registerAndLogin(t.app, 'pushtr');
    const fan = await registerAndLogin(t.app, 'pushfan');
    await follow(t, fan, trader);
    const phone = push.subscribe();
    const laptop = push.subscribe();
    const phoneId = (await register(fan, phone)).id;
    await register(fan, laptop, ['bet_settled']);
    const traderPhone = push.subscribe();
    await register(trader, traderPhone, ['bet_settled']);

    const bet = await insertOpenBet(t, trader.id, 'AAPL');
    await t.ctx.outbox.runOnce('push');
    const got = push.messagesTo(phone.endpoint);
    assert.equal(got.length, 1);
    assert.equal(got[0]!.payload.kind, 'bet_opened');
    assert.match(String(got[0]!.payload.body), new RegExp(`${trader.username} opened LONG AAPL`));
    assert.equal(got[0]!.payload.url, `https://web.example/app/bet/${bet.id}`);
    assert.equal(got[0]!.jwt.sub, 'mailto:ops@example.test');
    assert.equal(got[0]!.vapidKey, t.ctx.push.publicKey);
    assert.equal(push.messagesTo(laptop.endpoint).length, 0, 'the laptop did not choose followed bets');
    assert.deepEqual(push.refused, []);

    await finishBet(t, bet, 'cancelled');
    await t.ctx.outbox.runOnce('push');
    assert.deepEqual(
      push.messagesTo(phone.endpoint).map((m) => m.payload.kind),
      ['bet_opened', 'bet_cancelled'],
    );
    assert.deepEqual(
      (await rowsOf(phoneId)).map((r) => r.status),
      ['sent', 'sent'],
    );

    const bet2 = await insertOpenBet(t, trader.id, 'MSFT');
    await finishBet(t, bet2, 'settled', bet2.entry_price * 1.1);
    await t.ctx.outbox.runOnce('push');
    const settled = push.messagesTo(traderPhone.endpoint);
    assert.equal(settled.length, 1);
    assert.equal(settled[0]!.payload.kind, 'bet_settled');
    assert.match(String(settled[0]!.payload.body), /\+10\.00%/);
  });

  test("an automatic close by an exit rule and a fired price alert reach the owner's devices that chose them", async () => {
    const owner = await registerAndLogin(t.app, 'pushex');
    const phone = push.subscribe();
    await register(owner, phone, ['bet_exit', 'price_alert']);
    const other = push.subscribe();
    await register(owner, other, ['bet_settled']);

    const bet = await insertOpenBet(t, owner.id, 'AAPL');
    await saveExitRule(t.ctx.db, { bet_id: bet.id, ticker: 'AAPL', stop_loss: null, take_profit: 5, set_at: t.clock.now() });
    t.clock.advance(60_000);
    await appendQuote(t.ctx.db, 'AAPL', { price: bet.entry_price * 1.2, at: t.clock.now() });
    assert.deepEqual(await exitRulesWatcher(t.ctx).evaluate(['AAPL'], t.clock.now(), new AbortController().signal), { fired: 1, failures: [] });

    const alert = await t.app.inject({
      method: 'POST',
      url: '/alerts',
      headers: { cookie: owner.cookie },
      payload: { ticker: 'MSFT', kind: 'above', value: 1 },
    });
    assert.equal(alert.statusCode, 201, alert.body);
    t.clock.advance(60_000);
    await appendQuote(t.ctx.db, 'MSFT', { price: 2, at: t.clock.now() });
    assert.equal(await evaluateAlerts(t.ctx, 'MSFT', t.clock.now()), 1);

    await t.ctx.outbox.runOnce('push');
    assert.deepEqual(
      push
        .messagesTo(phone.endpoint)
        .map((m) => m.payload.kind)
        .sort(),
      ['bet_exit', 'price_alert'],
    );
    assert.equal(push.messagesTo(other.endpoint).length, 0, 'the other device chose neither');
  });

  test('a failed send is retried with back-off; 404 or 410 drops the device and what was queued for it', async () => {
    const trader = await registerAndLogin(t.app, 'pushtr2');
    const fan = await registerAndLogin(t.app, 'pushfan2');
    await follow(t, fan, trader);
    const sub = push.subscribe();
    const id = (await register(fan, sub, ['bet_opened'])).id;
    push.answerWith(sub.endpoint, 500);
    await insertOpenBet(t, trader.id, 'AAPL');
    await t.ctx.outbox.runOnce('push');
    let [row] = await rowsOf(id);
    assert.equal(row!.status, 'pending');
    assert.equal(row!.attempts, 1);
    assert.match(row!.last_error ?? '', /500/);
    t.clock.advance(5_000);
    await t.ctx.outbox.runOnce('push');
    [row] = await rowsOf(id);
    assert.equal(row!.status, 'sent');
    assert.equal(push.messagesTo(sub.endpoint).length, 1);

    push.answerWith(sub.endpoint, 410);
    await insertOpenBet(t, trader.id, 'MSFT');
    await insertOpenBet(t, trader.id, 'NVDA');
    await t.ctx.outbox.runOnce('push');
    const rows = await rowsOf(id);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['sent', 'failed', 'dropped'],
    );
    const devices = (await t.app.inject({ method: 'GET', url: '/push/subscriptions', headers: { cookie: fan.cookie } })).json();
    assert.deepEqual(devices, { devices: [] });
  });

  test('a process killed between the send and its record sends that notice once more, never again', async () => {
    const trader = await registerAndLogin(t.app, 'pushtr3');
    const fan = await registerAndLogin(t.app, 'pushfan3');
    await follow(t, fan, trader);
    const sub = push.subscribe();
    const id = (await register(fan, sub, ['bet_opened'])).id;
    await insertOpenBet(t, trader.id, 'AAPL');
    // The dying worker: it claims the row and sends it, and is gone before it records anything.
    const channel = t.ctx.outbox.channels.find((c) => c.name === 'push')!;
    const [claimed] = await claimDue(t.ctx.db, 'push', 'dead-worker', t.clock.now(), t.clock.now() + 60_000, 20);
    assert.equal(Number(claimed!.push_subscription_id), id);
    assert.equal((await channel.send(claimed!)).ok, true);
    // Until the lease runs out nobody else takes it.
    await t.ctx.outbox.runOnce('push');
    assert.equal(push.messagesTo(sub.endpoint).length, 1);
    t.clock.advance(60_001);
    await t.ctx.outbox.runOnce('push');
    await t.ctx.outbox.runOnce('push');
    assert.equal(push.messagesTo(sub.endpoint).length, 2, 'one duplicate, no more');
    assert.deepEqual(
      (await rowsOf(id)).map((r) => r.status),
      ['sent'],
    );
  });

  test('a device that turns a kind off, or moves to another account, gets no more of the old notices', async () => {
    const trader = await registerAndLogin(t.app, 'pushtr4');
    const fan = await registerAndLogin(t.app, 'pushfan4');
    const next = await registerAndLogin(t.app, 'pushnext');
    await follow(t, fan, trader);
    const sub = push.subscribe();
    const id = (await register(fan, sub, ['bet_opened'])).id;
    await insertOpenBet(t, trader.id, 'AAPL');
    await register(fan, sub, ['bet_settled']);
    await t.ctx.outbox.runOnce('push');
    assert.deepEqual(
      (await rowsOf(id)).map((r) => r.status),
      ['dropped'],
    );
    // The browser signs in as someone else and subscribes again: the device is theirs now.
    await register(fan, sub, ['bet_opened']);
    await insertOpenBet(t, trader.id, 'MSFT');
    const moved = await register(next, sub, ['bet_opened']);
    assert.notEqual(moved.id, id);
    await t.ctx.outbox.runOnce('push');
    assert.equal(push.messagesTo(sub.endpoint).length, 0);
    assert.deepEqual(
      (await rowsOf(id)).map((r) => r.status),
      ['dropped', 'dropped'],
    );
  });

  test('a deleted account keeps no device', async () => {
    const u = await registerAndLogin(t.app, 'pushdel');
    await register(u, push.subscribe());
    const del = await t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie: u.cookie }, payload: { password: u.password } });
    assert.equal(del.statusCode, 200, del.body);
    assert.deepEqual(await t.ctx.db.selectFrom('push_subscriptions').select('id').where('user_id', '=', u.id).execute(), []);
  });

  test('a bet cancelled while its opening is on its way to the device: the device is told of the cancellation', async () => {
    const trader = await registerAndLogin(t.app, 'pushtr5');
    const fan = await registerAndLogin(t.app, 'pushfan5');
    await follow(t, fan, trader);
    const sub = push.subscribe();
    await register(fan, sub, ['bet_opened', 'bet_cancelled']);
    const bet = await insertOpenBet(t, trader.id, 'AAPL');
    const arrived = new Promise<void>((resolve) => {
      push.onMessage = resolve;
    });
    push.delayMs = 300;
    try {
      const run = t.ctx.outbox.runOnce('push');
      await arrived;
      await finishBet(t, bet, 'cancelled');
      await run;
    } finally {
      push.delayMs = 0;
      push.onMessage = null;
    }
    await t.ctx.outbox.runOnce('push');
    assert.deepEqual(
      push.messagesTo(sub.endpoint).map((m) => m.payload.kind),
      ['bet_opened', 'bet_cancelled'],
    );
  });
});
