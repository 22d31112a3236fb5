import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { drainOutbox, follow, insertOpenBet, isLinked, linkCode, postUpdate, textUpdate } from '../helpers/messaging.js';

const ORIGIN = 'http://localhost:3000';

forEachDialect('messaging on the embedded log transport', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const page = (code: string) => t.app.inject({ method: 'GET', url: `/chat/local/link/${code}` });
  const confirm = (code: string, headers: Record<string, string> = { origin: ORIGIN }, payload = 'confirm=yes') =>
    t.app.inject({
      method: 'POST',
      url: `/chat/local/link/${code}`,
      payload,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });

  test('the deep link is the local page, which says it stands in for the messaging app', async () => {
    const u = await registerAndLogin(t.app);
    const { code, deep_link } = await linkCode(t, u);
    assert.equal(deep_link, `http://localhost:3000/chat/local/link/${code}`);
    const res = await page(code);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /stands in for the messaging app/);
    assert.match(res.body, new RegExp(`<strong>${u.username}</strong>`));
    assert.match(res.body, new RegExp(`<form method="post" action="/chat/local/link/${code}">`));
    assert.doesNotMatch(res.body, /<script/);
    assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
    // Viewing the page changes nothing.
    assert.equal(await isLinked(t, u), false);
  });

  test('confirming from the page links the account; the code is then used up', async () => {
    const u = await registerAndLogin(t.app);
    const { code } = await linkCode(t, u);
    const res = await confirm(code);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Done/);
    assert.equal(await isLinked(t, u), true);
    const again = await confirm(code);
    assert.equal(again.statusCode, 404);
    assert.match(again.body, /unknown, already used or expired/);
    assert.equal((await page(code)).statusCode, 404);
  });

  test('the confirmation must come from the page itself (same origin)', async () => {
    const u = await registerAndLogin(t.app);
    const { code } = await linkCode(t, u);
    const refused: Array<Record<string, string>> = [
      {},
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site', origin: ORIGIN },
      { 'sec-fetch-site': 'same-site', origin: ORIGIN },
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of refused) {
      const res = await confirm(code, headers);
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
    }
    assert.equal(await isLinked(t, u), false);
    // What a browser sends for the page's own form under Referrer-Policy: no-referrer.
    assert.equal((await confirm(code, { 'sec-fetch-site': 'same-origin', origin: 'null' })).statusCode, 200);
  });

  test('bad form bodies are refused; JSON routes still take no form bodies', async () => {
    const u = await registerAndLogin(t.app);
    const { code } = await linkCode(t, u);
    assert.equal((await confirm(code, { origin: ORIGIN }, 'confirm=no')).statusCode, 400);
    assert.equal((await confirm(code, { origin: ORIGIN }, 'confirm=yes&extra=1')).statusCode, 400);
    const form = await t.app.inject({
      method: 'POST',
      url: '/chat/unlink',
      payload: 'a=1',
      headers: { cookie: u.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
    });
    assert.equal(form.statusCode, 415);
  });

  test('an expired code shows the same polite page', async () => {
    const u = await registerAndLogin(t.app);
    const { code } = await linkCode(t, u);
    t.clock.advance(10 * 60_000 + 1);
    assert.equal((await page(code)).statusCode, 404);
    assert.equal((await confirm(code)).statusCode, 404);
    assert.equal(await isLinked(t, u), false);
  });

  test('a delivery through the log transport is logged, not listed a second time', async () => {
    const leader = await registerAndLogin(t.app, 'lead');
    const f = await registerAndLogin(t.app);
    await confirm((await linkCode(t, f)).code);
    await follow(t, f, leader);
    const bet = await insertOpenBet(t, leader.id, 'ETH-USD');
    await drainOutbox(t);
    const sent = await t.ctx.db.selectFrom('notifications').select(['kind', 'status']).where('bet_id', '=', bet.id).execute();
    assert.deepEqual(sent, [{ kind: 'bet_opened', status: 'sent' }]);
    const res = await t.app.inject({ method: 'GET', url: '/notifications', headers: { cookie: f.cookie } });
    assert.equal(res.statusCode, 200);
    const list = res.json();
    assert.equal(list.length, 1);
    assert.equal(list[0].kind, 'bet_opened');
    assert.equal(list[0].bet_id, bet.id);
    assert.equal(list[0].text, `${leader.username} opened LONG ETH-USD at 187.25.`);
  });

  test('without a Telegram bot the webhook does not exist', async () => {
    const res = await postUpdate(t, textUpdate(1, '/start x'));
    assert.equal(res.statusCode, 404);
  });
});
