// Email through a real SMTP server (smtp-server on 127.0.0.1): what nodemailer
// sends is received, parsed, and its links followed. Verification, password
// reset, change of address, notices by email (each and the daily digest),
// unsubscribe without a session, and the outbox's retries; time moves by the
// injected clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { queueDueDigests } from '../../src/services/email.js';
import { evaluateAlerts } from '../../src/services/price-alerts.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { finishBet, insertOpenBet } from '../helpers/messaging.js';
import { type ReceivedMail, TestSmtpServer, tokenOf } from '../helpers/smtp.js';

const WEB = 'https://web.example/app/';
const NEW_PASSWORD = 'another perfectly fine passphrase';

forEachDialect('email', (dialect) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await new TestSmtpServer().start();
    t = await createTestApp(dialect, {
      config: { webUrl: WEB, mail: { smtpUrl: smtp.url, from: 'Paper Bets <no-reply@example.test>', perAddressPerHour: 5 } },
    });
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  const inject = (method: 'GET' | 'POST' | 'PUT', url: string, opts: { user?: TestUser; cookie?: string; payload?: object } = {}) =>
    t.app.inject({
      method,
      url,
      headers: opts.user || opts.cookie ? { cookie: opts.cookie ?? opts.user!.cookie } : {},
      ...(opts.payload ? { payload: opts.payload } : {}),
    });
  /** Queues the digests now due and runs the mail channel, until nothing is due (the two jobs' work). */
  const drainMail = async () => {
    for (;;) {
      await queueDueDigests(t.ctx);
      if ((await t.ctx.outbox.runOnce('email')) === 0) break;
    }
  };
  const mailsTo = async (address: string) => {
    await drainMail();
    return smtp.to(address);
  };
  const lastMailTo = async (address: string, subject: RegExp): Promise<ReceivedMail> => {
    const found = (await mailsTo(address)).filter((m) => subject.test(m.subject)).at(-1);
    assert.ok(found, `no mail "${subject}" to ${address}`);
    return found;
  };
  const linkOf = (m: ReceivedMail, page: string) => {
    const link = m.links.find((l) => l.startsWith(`${WEB}${page}?token=`));
    assert.ok(link, `no ${page} link in:\n${m.text}`);
    return link;
  };
  const verify = async (u: TestUser) => {
    const mail = await lastMailTo(u.email, /Confirm your email address/);
    const res = await inject('GET', `/email/verify?token=${tokenOf(linkOf(mail, 'verify-email'))}`);
    assert.equal(res.statusCode, 200, res.body);
  };

  test('registration sends a verification link: text and HTML parts, unsubscribe headers; it verifies once', async () => {
    const u = await registerAndLogin(t.app, 'ver');
    assert.deepEqual((await inject('GET', '/me/email', { user: u })).json(), { email: u.email, email_verified: false, pending_email: null });
    const mail = await lastMailTo(u.email, /Confirm your email address/);
    assert.match(mail.subject, /Paper Bets/);
    assert.match(mail.html, /<a href="https:\/\/web\.example\/app\/verify-email\?token=/);
    const unsubscribe = mail.header('list-unsubscribe');
    assert.match(unsubscribe, /^<http:\/\/localhost:3000\/email\/unsubscribe\?token=\d+\.[\w-]+>$/);
    assert.equal(mail.header('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
    const token = tokenOf(linkOf(mail, 'verify-email'));
    assert.equal(Buffer.from(token, 'base64url').length, 32, '256-bit token');
    // Only the hash is stored.
    const stored = await t.ctx.db.selectFrom('email_tokens').select('token_hash').where('user_id', '=', u.id).execute();
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.token_hash, token);

    const ok = await inject('GET', `/email/verify?token=${token}`);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { message: 'Your email address is verified', email: u.email });
    assert.equal((await inject('GET', '/me/email', { user: u })).json().email_verified, true);
    // Used: refused. Forged: refused alike.
    const again = await inject('GET', `/email/verify?token=${token}`);
    assert.equal(again.statusCode, 400);
    assert.deepEqual(again.json(), { error: 'This link is unknown, already used or expired' });
    assert.equal((await inject('GET', `/email/verify?token=${'A'.repeat(43)}`)).statusCode, 400);
    assert.equal((await inject('GET', '/email/verify?token=short')).statusCode, 400);
    // Verified: nothing to resend.
    assert.equal((await inject('POST', '/email/verify/resend', { user: u })).statusCode, 409);
    // Token mails never reach the app's notices.
    const notices = (await inject('GET', '/notifications', { user: u })).json() as Array<{ text: string }>;
    assert.ok(notices.every((n) => !n.text.includes(token)));
  });

  test('an expired verification link is refused; a resent link replaces the earlier one', async () => {
    const u = await registerAndLogin(t.app, 'exp');
    const first = tokenOf(linkOf(await lastMailTo(u.email, /Confirm your email/), 'verify-email'));
    t.clock.advance(24 * 3_600_000 + 1);
    assert.equal((await inject('GET', `/email/verify?token=${first}`)).statusCode, 400);
    const resend = await inject('POST', '/email/verify/resend', { user: u });
    assert.equal(resend.statusCode, 202, resend.body);
    const mails = (await mailsTo(u.email)).filter((m) => /Confirm your email/.test(m.subject));
    assert.equal(mails.length, 2);
    const second = tokenOf(linkOf(mails[1]!, 'verify-email'));
    assert.notEqual(second, first);
    assert.equal((await inject('GET', `/email/verify?token=${second}`)).statusCode, 200);
    assert.equal((await inject('POST', '/email/verify/resend')).statusCode, 401);
    assert.equal((await inject('GET', '/me/email')).statusCode, 401);
  });

  test('password reset: the same answer for an unknown address; the link resets once, signs out every session and says so', async () => {
    const u = await registerAndLogin(t.app, 'rst');
    await drainMail();
    const unknown = await inject('POST', '/password/forgot', { payload: { email: `nobody_${u.username}@example.test` } });
    const known = await inject('POST', '/password/forgot', { payload: { email: u.email.toUpperCase() } });
    assert.equal(unknown.statusCode, 202);
    assert.equal(known.statusCode, 202);
    assert.equal(unknown.body, known.body);
    assert.equal((await mailsTo(`nobody_${u.username}@example.test`)).length, 0);
    const mail = await lastMailTo(u.email, /Reset your password/);
    const token = tokenOf(linkOf(mail, 'reset-password'));

    assert.equal((await inject('POST', '/password/reset', { payload: { token, new_password: 'short' } })).statusCode, 400);
    assert.equal((await inject('POST', '/password/reset', { payload: { token: 'B'.repeat(43), new_password: NEW_PASSWORD } })).statusCode, 400);
    const ok = await inject('POST', '/password/reset', { payload: { token, new_password: NEW_PASSWORD } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(Object.keys(ok.json()), ['message']);
    // Used once only.
    assert.equal((await inject('POST', '/password/reset', { payload: { token, new_password: `${NEW_PASSWORD}!` } })).statusCode, 400);

    // Every session ended; the old password no longer works, the new one does.
    assert.equal((await inject('GET', '/me', { user: u })).statusCode, 401);
    assert.equal((await inject('POST', '/login', { payload: { email: u.email, password: PASSWORD } })).statusCode, 401);
    const login = await inject('POST', '/login', { payload: { email: u.email, password: NEW_PASSWORD } });
    assert.equal(login.statusCode, 200);
    const cookie = `auth_token=${login.cookies.find((c) => c.name === 'auth_token')!.value}`;
    await lastMailTo(u.email, /Your password was changed/);
    const notices = (await inject('GET', '/notifications', { cookie })).json() as Array<{ kind: string; text: string }>;
    assert.equal(notices[0]!.kind, 'account_password_changed');
    assert.ok(notices.every((n) => !n.text.includes(token)));
  });

  test('an expired reset link is refused', async () => {
    const u = await registerAndLogin(t.app, 'rse');
    await inject('POST', '/password/forgot', { payload: { email: u.email } });
    const token = tokenOf(linkOf(await lastMailTo(u.email, /Reset your password/), 'reset-password'));
    t.clock.advance(30 * 60_000 + 1);
    assert.equal((await inject('POST', '/password/reset', { payload: { token, new_password: NEW_PASSWORD } })).statusCode, 400);
    assert.equal((await inject('GET', '/me', { user: u })).statusCode, 200, 'nothing changed');
  });

  test('the outbox retries while the SMTP server refuses, then delivers once', async () => {
    const u = await registerAndLogin(t.app, 'rty');
    await drainMail();
    const before = smtp.to(u.email).length;
    smtp.refuseNext = 2;
    assert.equal((await inject('POST', '/password/forgot', { payload: { email: u.email } })).statusCode, 202);
    await drainMail();
    assert.equal(smtp.refuseNext, 1, 'first attempt refused');
    const row = () =>
      t.ctx.db.selectFrom('notifications').selectAll().where('email', '=', u.email).where('kind', '=', 'password_reset').executeTakeFirstOrThrow();
    assert.equal((await row()).status, 'pending');
    assert.equal((await row()).attempts, 1);
    await drainMail();
    assert.equal(smtp.refuseNext, 1, 'not before the back-off');
    t.clock.advance(5_000);
    await drainMail();
    assert.equal(smtp.refuseNext, 0, 'second attempt refused');
    t.clock.advance(10_000);
    await drainMail();
    t.clock.advance(60_000);
    await drainMail();
    assert.equal((await row()).status, 'sent');
    const resets = smtp
      .to(u.email)
      .slice(before)
      .filter((m) => /Reset your password/.test(m.subject));
    assert.equal(resets.length, 1, 'delivered once');
    // The delivered link is the one that works.
    assert.equal(
      (await inject('POST', '/password/reset', { payload: { token: tokenOf(linkOf(resets[0]!, 'reset-password')), new_password: NEW_PASSWORD } }))
        .statusCode,
      200,
    );
  });

  test('change of address: password checked, taken and reserved addresses refused; the old address is told; the link confirms it', async () => {
    const u = await registerAndLogin(t.app, 'chg');
    const other = await registerAndLogin(t.app, 'oth');
    const to = `new_${u.username}@example.test`;
    assert.equal((await inject('POST', '/me/email', { user: u, payload: { new_email: to, password: 'wrong password entirely' } })).statusCode, 403);
    assert.equal((await inject('POST', '/me/email', { user: u, payload: { new_email: other.email, password: PASSWORD } })).statusCode, 409);
    assert.equal(
      (await inject('POST', '/me/email', { user: u, payload: { new_email: 'deleted:1@deleted.invalid', password: PASSWORD } })).statusCode,
      400,
    );
    assert.equal((await inject('POST', '/me/email', { payload: { new_email: to, password: PASSWORD } })).statusCode, 401);
    const asked = await inject('POST', '/me/email', { user: u, payload: { new_email: to, password: PASSWORD } });
    assert.equal(asked.statusCode, 202, asked.body);
    const told = await lastMailTo(u.email, /about to change/);
    assert.match(told.text, /n\*\*\*@example\.test/);
    assert.equal((await inject('GET', '/me/email', { user: u })).json().pending_email, to);
    const confirm = await lastMailTo(to, /Confirm your new email address/);
    const res = await inject('GET', `/email/confirm?token=${tokenOf(linkOf(confirm, 'confirm-email'))}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual((await inject('GET', '/me/email', { user: u })).json(), { email: to, email_verified: true, pending_email: null });
    assert.equal((await inject('POST', '/login', { payload: { email: to, password: PASSWORD } })).statusCode, 200);
    assert.equal((await inject('GET', `/email/confirm?token=${tokenOf(linkOf(confirm, 'confirm-email'))}`)).statusCode, 400, 'single use');
  });

  test('a deleted account keeps no verified address, token, email choice or stored notice', async () => {
    const u = await registerAndLogin(t.app, 'del');
    await verify(u);
    await inject('PUT', '/me/notice-settings', { user: u, payload: { email_notices: 'each', digest_hour: 8, time_zone: 'UTC' } });
    await inject('POST', '/email/verify/resend', { user: u });
    await drainMail();
    const del = await t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie: u.cookie }, payload: { password: PASSWORD } });
    assert.equal(del.statusCode, 200, del.body);
    for (const table of ['email_tokens', 'email_verified', 'notice_settings', 'user_notices', 'notice_reads', 'notifications'] as const) {
      const left = await t.ctx.db.selectFrom(table).select('user_id').where('user_id', '=', u.id).execute();
      assert.equal(left.length, 0, table);
    }
  });

  test('a fired price alert is mailed to whoever wants each notice by email, with a button to the alerts page', async () => {
    const u = await registerAndLogin(t.app, 'alm');
    await verify(u);
    await inject('PUT', '/me/notice-settings', { user: u, payload: { email_notices: 'each', digest_hour: 8, time_zone: 'UTC' } });
    const created = await inject('POST', '/alerts', { user: u, payload: { ticker: 'AAPL', kind: 'above', value: 0.01 } });
    assert.equal(created.statusCode, 201, created.body);
    assert.ok((await evaluateAlerts(t.ctx, 'AAPL', t.ctx.clock.now())) >= 1);
    const mail = await lastMailTo(u.email, /^Alert: AAPL at /);
    assert.match(mail.text, /at or above your level 0\.01\./);
    assert.ok(mail.links.includes(`${WEB}alerts`), mail.text);
  });

  test('notice settings: defaults, validation, verified address needed; each notice by email; unsubscribe without a session', async () => {
    const trader = await registerAndLogin(t.app, 'trd');
    const f = await registerAndLogin(t.app, 'fol');
    assert.deepEqual((await inject('GET', '/me/notice-settings', { user: f })).json(), { email_notices: 'off', digest_hour: 8, time_zone: 'UTC' });
    const each = { email_notices: 'each', digest_hour: 8, time_zone: 'UTC' };
    assert.equal((await inject('PUT', '/me/notice-settings', { user: f, payload: each })).statusCode, 409, 'unverified');
    await verify(f);
    assert.equal((await inject('PUT', '/me/notice-settings', { user: f, payload: { ...each, time_zone: 'Mars/Olympus' } })).statusCode, 400);
    assert.equal((await inject('PUT', '/me/notice-settings', { user: f, payload: { ...each, digest_hour: 24 } })).statusCode, 400);
    assert.equal((await inject('PUT', '/me/notice-settings', { payload: each })).statusCode, 401);
    const put = await inject('PUT', '/me/notice-settings', { user: f, payload: each });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual((await inject('GET', '/me/notice-settings', { user: f })).json(), each);
    assert.deepEqual((await inject('GET', '/me/notice-settings', { user: trader })).json().email_notices, 'off', 'settings are per user');

    assert.equal((await inject('POST', '/follow', { user: f, payload: { followed_id: trader.id, action: 'follow' } })).statusCode, 200);
    const bet = await insertOpenBet(t, trader.id, 'NVDA');
    const opened = await lastMailTo(f.email, new RegExp(`${trader.username} opened LONG NVDA`));
    assert.ok(opened.links.includes(`${WEB}bet/${bet.id}`));
    await finishBet(t, bet, 'cancelled');
    await lastMailTo(f.email, new RegExp(`${trader.username} cancelled the LONG NVDA bet`));

    // Unsubscribe: the page without a session, then RFC 8058's one-click POST.
    const link = opened.header('list-unsubscribe').slice(1, -1);
    const path = new URL(link).pathname + new URL(link).search;
    const page = await inject('GET', path);
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(page.body, /<form method="post"/);
    const json = await t.app.inject({ method: 'POST', url: path, payload: { 'List-Unsubscribe': 'One-Click' } });
    assert.equal(json.statusCode, 415, 'form bodies only');
    const forged = await t.app.inject({
      method: 'POST',
      url: `/email/unsubscribe?token=${f.id}.${'x'.repeat(43)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    assert.equal(forged.statusCode, 400);
    const oneClick = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    assert.equal(oneClick.statusCode, 200, oneClick.body);
    assert.equal((await inject('GET', '/me/notice-settings', { user: f })).json().email_notices, 'off');
    const count = (await mailsTo(f.email)).length;
    await insertOpenBet(t, trader.id, 'AMD');
    assert.equal((await mailsTo(f.email)).length, count, 'no more notices by email');
  });

  test('the daily digest goes out at the chosen hour in the chosen time zone, listing what happened since the last one', async () => {
    const trader = await registerAndLogin(t.app, 'dtr');
    const f = await registerAndLogin(t.app, 'dig');
    await verify(f);
    // 07:30 in Paris (06:30 UTC in winter); the digest at 09:00 Paris = 08:00 UTC. (Later than every other test's clock.)
    t.clock.set('2026-03-10T06:30:00Z');
    await inject('POST', '/follow', { user: f, payload: { followed_id: trader.id, action: 'follow' } });
    const put = await inject('PUT', '/me/notice-settings', {
      user: f,
      payload: { email_notices: 'digest', digest_hour: 9, time_zone: 'Europe/Paris' },
    });
    assert.equal(put.statusCode, 200, put.body);
    t.clock.advance(60_000);
    await insertOpenBet(t, trader.id, 'AAPL');
    await insertOpenBet(t, trader.id, 'MSFT');
    const digests = async () => (await mailsTo(f.email)).filter((m) => /from traders you follow/.test(m.subject));
    assert.equal((await digests()).length, 0, 'no mail for each notice');
    t.clock.set('2026-03-10T07:59:59Z');
    assert.equal((await digests()).length, 0, 'not before the hour');
    t.clock.set('2026-03-10T08:00:00Z');
    const [digest] = await digests();
    assert.ok(digest, 'sent at 09:00 Paris');
    assert.match(digest.subject, /^2 notices from traders you follow/);
    assert.match(digest.text, new RegExp(`${trader.username} opened LONG AAPL`));
    assert.match(digest.text, new RegExp(`${trader.username} opened LONG MSFT`));
    // The next day lists only what came after.
    t.clock.set('2026-03-10T12:00:00Z');
    await insertOpenBet(t, trader.id, 'TSLA');
    t.clock.set('2026-03-11T08:00:00Z');
    await drainMail();
    const all = await digests();
    assert.equal(all.length, 2);
    assert.match(all[1]!.subject, /^1 notice from/);
    assert.doesNotMatch(all[1]!.text, /AAPL/);
    // A day with nothing sends nothing.
    t.clock.set('2026-03-12T08:00:00Z');
    await drainMail();
    assert.equal((await digests()).length, 2);
  });
});

const MAIL_PER_CLIENT = 6;

forEachDialect('email rate limits', (dialect) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await new TestSmtpServer().start();
    const base = (await import('../../src/config.js')).testConfig();
    t = await createTestApp(dialect, {
      config: {
        rateLimits: { ...base.rateLimits, enabled: true, authPerMinute: 1000, mailPerClientPerHour: MAIL_PER_CLIENT },
        mail: { smtpUrl: smtp.url, from: 'no-reply@example.test', perAddressPerHour: 3 },
      },
    });
  });
  after(async () => {
    await t.close();
    await smtp.stop();
  });

  test('forgot and reset are limited per email address (and per token), whichever client asks', async () => {
    const email = 'limited@example.test';
    for (let i = 0; i < 3; i++) assert.equal((await t.app.inject({ method: 'POST', url: '/password/forgot', payload: { email } })).statusCode, 202);
    const limited = await t.app.inject({ method: 'POST', url: '/password/forgot', payload: { email: email.toUpperCase() } });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await t.app.inject({ method: 'POST', url: '/password/forgot', payload: { email: 'other@example.test' } })).statusCode, 202);
    const token = 'C'.repeat(43);
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.app.inject({ method: 'POST', url: '/password/reset', payload: { token, new_password: NEW_PASSWORD } })).statusCode, 400);
    }
    assert.equal((await t.app.inject({ method: 'POST', url: '/password/reset', payload: { token, new_password: NEW_PASSWORD } })).statusCode, 429);
  });

  const changeEmail = (u: TestUser, to: string, ip: string) =>
    t.app.inject({
      method: 'POST',
      url: '/me/email',
      headers: { cookie: u.cookie },
      payload: { new_email: to, password: PASSWORD },
      remoteAddress: ip,
    });
  const forgot = (email: string, ip: string) => t.app.inject({ method: 'POST', url: '/password/forgot', payload: { email }, remoteAddress: ip });
  const drain = async () => {
    while ((await t.ctx.outbox.runOnce('email')) > 0);
  };

  test('changes of address to one stranger are limited per recipient, whichever accounts and clients ask', async () => {
    const victim = 'bombed@example.test';
    const accounts: TestUser[] = [];
    for (let i = 0; i < 6; i++) accounts.push(await registerAndLogin(t.app, 'bomb'));
    const answers: number[] = [];
    for (const [i, u] of accounts.entries()) {
      for (let n = 0; n < 6; n++) answers.push((await changeEmail(u, n % 2 ? victim.toUpperCase() : victim, `10.40.${i}.${n}`)).statusCode);
    }
    assert.deepEqual(answers.slice(0, 3), [202, 202, 202]);
    assert.ok(
      answers.slice(3).every((s) => s === 429),
      `past 3 to the address, 429: ${answers.join(' ')}`,
    );
    await drain();
    assert.equal(smtp.to(victim).length, 3, 'three confirmation mails reach the stranger in the hour');
    const fresh = await registerAndLogin(t.app, 'bomb');
    assert.equal((await changeEmail(fresh, `${fresh.username}.new@example.test`, '10.40.9.9')).statusCode, 202, 'another address is not affected');
  });

  test('mail-sending requests are limited per client address, whatever the recipients and accounts', async () => {
    const ip = '10.41.0.1';
    const a = await registerAndLogin(t.app, 'client');
    const b = await registerAndLogin(t.app, 'client');
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await changeEmail(a, `a${i}.${a.username}@example.test`, ip)).statusCode);
    for (let i = 0; i < 2; i++) statuses.push((await changeEmail(b, `b${i}.${b.username}@example.test`, ip)).statusCode);
    for (let i = 0; i < MAIL_PER_CLIENT - 4; i++) statuses.push((await forgot(`f${i}.${a.username}@example.test`, ip)).statusCode);
    assert.deepEqual(statuses, [202, 202, 202, 202, 202, 202]);
    const refused = await forgot(`late.${a.username}@example.test`, ip);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal((await changeEmail(b, `late.${b.username}@example.test`, ip)).statusCode, 429);
    const resend = await t.app.inject({ method: 'POST', url: '/email/verify/resend', headers: { cookie: a.cookie }, remoteAddress: ip });
    assert.equal(resend.statusCode, 429, 'a resend is mail from this client too');
    assert.equal((await forgot(`late.${a.username}@example.test`, '10.41.0.2')).statusCode, 202, 'another client is not affected');
  });
});
