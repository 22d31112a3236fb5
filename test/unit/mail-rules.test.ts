// Email's pure rules: the digest's next instant in a time zone (across a
// clock change), masking, both parts of a message, unsubscribe tokens, and
// the configuration's validation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { isTimeZone, maskAddress, nextDigestAt, renderMail } from '../../src/domain/mail.js';
import { hashToken, mailKeyFrom, newOneTimeToken, unsubscribeToken, userOfUnsubscribeToken } from '../../src/services/mail-tokens.js';

test('the next digest is the next hour:00 in the zone, after now, across a clock change', () => {
  const at = (iso: string) => Date.parse(iso);
  assert.equal(nextDigestAt(at('2026-03-02T07:59:59Z'), 8, 'UTC'), at('2026-03-02T08:00:00Z'));
  assert.equal(nextDigestAt(at('2026-03-02T08:00:00Z'), 8, 'UTC'), at('2026-03-03T08:00:00Z'), 'exactly at the hour: the next day');
  // Paris is UTC+1 in winter, UTC+2 from 29 March 2026.
  assert.equal(nextDigestAt(at('2026-03-28T09:00:00Z'), 9, 'Europe/Paris'), at('2026-03-29T07:00:00Z'));
  assert.equal(nextDigestAt(at('2026-03-02T06:00:00Z'), 9, 'Europe/Paris'), at('2026-03-02T08:00:00Z'));
  assert.equal(isTimeZone('Europe/Paris'), true);
  assert.equal(isTimeZone('Mars/Olympus'), false);
});

test('an address is masked; a message has both parts, escaped, with the unsubscribe link', () => {
  assert.equal(maskAddress('someone@example.com'), 's***@example.com');
  const m = renderMail(
    { subject: 'Hi <b>', paragraphs: ['A & B'], action: { label: 'Go', url: 'https://w.example/app/x?token=a"b' } },
    'https://u.example/unsub',
  );
  assert.equal(m.subject, 'Hi <b> · Paper Bets');
  assert.match(m.text, /A & B\n\nGo: https:\/\/w\.example\/app\/x\?token=a"b/);
  assert.match(m.text, /https:\/\/u\.example\/unsub/);
  assert.match(m.html, /A &amp; B/);
  assert.match(m.html, /href="https:\/\/w\.example\/app\/x\?token=a&quot;b"/);
  assert.doesNotMatch(m.html, /<b>/);
});

test('one-time tokens are 256 bits with a SHA-256; unsubscribe tokens cannot be forged or moved to another user', () => {
  const { token, hash } = newOneTimeToken();
  assert.equal(Buffer.from(token, 'base64url').length, 32);
  assert.equal(hash, hashToken(token));
  const key = mailKeyFrom('a signing secret of at least thirty-two characters');
  const t = unsubscribeToken(key, 42);
  assert.equal(userOfUnsubscribeToken(key, t), 42);
  assert.equal(userOfUnsubscribeToken(key, t.replace(/^42\./, '43.')), null);
  assert.equal(userOfUnsubscribeToken(mailKeyFrom('another signing secret, thirty-two chars'), t), null);
  assert.equal(userOfUnsubscribeToken(key, 'garbage'), null);
});

test('SMTP_URL and MAIL_FROM are validated', () => {
  assert.equal(loadConfig({}).mail.smtpUrl, null);
  assert.equal(loadConfig({}).mail.from, 'Paper Bets <no-reply@localhost>');
  assert.equal(loadConfig({ SMTP_URL: 'smtp://u:p@mail.example:587' }).mail.smtpUrl, 'smtp://u:p@mail.example:587');
  assert.throws(() => loadConfig({ SMTP_URL: 'http://mail.example' }), ConfigError);
  assert.throws(() => loadConfig({ SMTP_URL: 'not a url' }), ConfigError);
  assert.throws(() => loadConfig({ MAIL_FROM: 'nobody' }), ConfigError);
  assert.equal(loadConfig({ MAIL_FROM: 'Bets <bets@example.com>' }).mail.from, 'Bets <bets@example.com>');
});
