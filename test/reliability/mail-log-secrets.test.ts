// The log mail transport through every mail flow (verification, resend,
// forgot and reset, change of address, notices by email, unsubscribe): the log says which
// mail went to whom and carries no token, not even in part of a link; the
// local mailbox holds each message in full, and its links work (issue 34).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { queueDueDigests } from '../../src/services/email.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { finishBet, follow, insertOpenBet } from '../helpers/messaging.js';

const WEB = 'https://web.example/app/';
const NEW_PASSWORD = 'another perfectly fine passphrase';

interface LogEntry {
  msg?: string;
  mail?: { to?: string; subject?: string };
}

forEachDialect('log mail transport', (dialect) => {
  let t: TestApp;
  let dir: string;
  let mailbox: string;
  const lines: string[] = [];
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbox-'));
    mailbox = path.join(dir, 'data', 'mailbox.mbox');
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await createTestApp(dialect, { config: { webUrl: WEB, mailbox }, deps: { logger: { level: 'trace', stream } } });
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const inject = (method: 'GET' | 'POST' | 'PUT', url: string, opts: { user?: TestUser; payload?: object } = {}) =>
    t.app.inject({ method, url, headers: opts.user ? { cookie: opts.user.cookie } : {}, ...(opts.payload ? { payload: opts.payload } : {}) });
  const drainMail = async () => {
    for (;;) {
      await queueDueDigests(t.ctx);
      if ((await t.ctx.outbox.runOnce('email')) === 0) break;
    }
  };
  /** The token of the last link to that page in the mailbox's last message to that address. */
  const tokenFromMailbox = async (to: string, page: string): Promise<string> => {
    await drainMail();
    const messages = fs.readFileSync(mailbox, 'utf8').split(/^(?=From )/m);
    const mine = messages.filter((m) => m.includes(`\nTo: ${to}\n`)).at(-1);
    assert.ok(mine, `a message to ${to} in the mailbox`);
    const token = [...mine.matchAll(new RegExp(`${WEB.replace(/[.?/]/g, '\\$&')}${page}\\?token=([\\w-]+)`, 'g'))].at(-1)?.[1];
    assert.ok(token, `a ${page} link in:\n${mine}`);
    return token;
  };

  test('through every mail flow the log names each mail and its recipient, and no token reaches it', async () => {
    const u = await registerAndLogin(t.app, 'mlog');
    const first = await tokenFromMailbox(u.email, 'verify-email');
    assert.equal((await inject('POST', '/email/verify/resend', { user: u })).statusCode, 202);
    const resent = await tokenFromMailbox(u.email, 'verify-email');
    assert.notEqual(resent, first);
    assert.equal((await inject('GET', `/email/verify?token=${resent}`)).statusCode, 200);

    assert.equal((await inject('POST', '/password/forgot', { payload: { email: u.email } })).statusCode, 202);
    const reset = await tokenFromMailbox(u.email, 'reset-password');
    assert.equal((await inject('POST', '/password/reset', { payload: { token: reset, new_password: NEW_PASSWORD } })).statusCode, 200);

    const v = await registerAndLogin(t.app, 'mlog');
    const to = `new_${v.username}@example.test`;
    assert.equal((await inject('POST', '/me/email', { user: v, payload: { new_email: to, password: PASSWORD } })).statusCode, 202);
    const confirm = await tokenFromMailbox(to, 'confirm-email');
    assert.equal((await inject('GET', `/email/confirm?token=${confirm}`)).statusCode, 200);

    const w = await registerAndLogin(t.app, 'mlog');
    await tokenFromMailbox(w.email, 'verify-email');
    const each = { email_notices: 'each', digest_hour: 8, time_zone: 'UTC' };
    assert.equal((await inject('PUT', '/me/notice-settings', { user: v, payload: each })).statusCode, 200);
    await follow(t, v, w);
    await finishBet(t, await insertOpenBet(t, w.id), 'settled');
    await drainMail();
    // Unsubscribe by the page and by RFC 8058's one-click POST, with the link of v's last message.
    const unsubscribe = [...fs.readFileSync(mailbox, 'utf8').matchAll(/^List-Unsubscribe: <[^>]*(\/email\/unsubscribe\?token=[\w.-]+)>$/gm)].at(
      -1,
    )?.[1];
    assert.ok(unsubscribe, 'the unsubscribe header in the mailbox');
    assert.equal((await inject('GET', unsubscribe)).statusCode, 200);
    const oneClick = await t.app.inject({
      method: 'POST',
      url: unsubscribe,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    assert.equal(oneClick.statusCode, 200, oneClick.body);

    const box = fs.readFileSync(mailbox, 'utf8');
    const secrets = new Set([...box.matchAll(/token=([\w.-]{16,})/g)].map((m) => m[1]!));
    assert.ok(secrets.size >= 6, `the mailbox holds the flows' tokens (${secrets.size})`);
    const log = lines.join('\n');
    for (const s of secrets) {
      // Not the token, nor a long enough piece of it to narrow a search.
      for (const piece of [s, s.slice(0, 16), s.slice(-16)]) assert.ok(!log.includes(piece), `a token (${piece.slice(0, 4)}…) reached the log`);
    }
    const entries = lines.map((l) => JSON.parse(l) as LogEntry);
    const sent = entries.filter((e) => e.mail !== undefined);
    const messages = box.split(/^(?=From )/m).filter(Boolean);
    assert.equal(sent.length, messages.length, 'one log line a mail');
    for (const address of [u.email, v.email, to, w.email]) {
      assert.ok(
        sent.some((e) => e.mail?.to === address && typeof e.mail.subject === 'string'),
        `the log says a mail went to ${address}`,
      );
    }
    assert.ok(sent.some((e) => /Reset your password/.test(e.mail?.subject ?? '')));
    assert.ok(
      sent.every(
        (e) =>
          Object.keys(e.mail ?? {})
            .sort()
            .join() === 'subject,to',
      ),
      'no body, link or header in the log',
    );
  });

  test('the mailbox is readable by its owner only', () => {
    assert.equal(fs.statSync(mailbox).mode & 0o077, 0);
  });
});
