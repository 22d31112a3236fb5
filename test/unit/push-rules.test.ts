// The push endpoint allow-list (src/domain/push.ts) from an adversary's side:
// a subscription is a URL the service will call, so anything but a browser's
// push service over https on its default port is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { checkPushEndpoint, checkPushKeys, defaultVapidSubject, parseExtraOrigins, pushPayload } from '../../src/domain/push.js';

const ok = (url: string, extra: string[] = []) => {
  const r = checkPushEndpoint(url, extra);
  assert.ok(r.ok, `${url} should pass: ${r.ok ? '' : r.reason}`);
  return r.endpoint;
};
const refused = (url: string, extra: string[] = []) => assert.equal(checkPushEndpoint(url, extra).ok, false, `${url} should be refused`);

test("the browsers' push services pass", () => {
  ok('https://fcm.googleapis.com/fcm/send/abc:APA91b');
  ok('https://updates.push.services.mozilla.com/wpush/v2/gAAAA');
  ok('https://web.push.apple.com/QGuQyavXut');
  ok('https://wns2-par02p.notify.windows.com/w/?token=BQYAAA');
  // The default port written out is the same URL.
  assert.equal(ok('https://fcm.googleapis.com:443/fcm/send/x'), 'https://fcm.googleapis.com/fcm/send/x');
  // Host names are case-insensitive.
  assert.equal(ok('https://FCM.googleapis.COM/fcm/send/x'), 'https://fcm.googleapis.com/fcm/send/x');
});

test('http, other schemes and other hosts are refused', () => {
  refused('http://fcm.googleapis.com/fcm/send/x');
  refused('ftp://fcm.googleapis.com/x');
  refused('javascript:alert(1)');
  refused('file:///etc/passwd');
  refused('https://example.com/push');
  refused('https://evil.fcm.googleapis.com.attacker.net/x');
  refused('https://fcm.googleapis.com.evil.com/x');
  refused('https://googleapis.com/x');
  refused('https://notify.windows.com/x');
  refused('https://evilnotify.windows.com/x');
  refused('https://fcm.googleapis.com./x');
  refused('not a url');
  refused('');
  refused(`https://fcm.googleapis.com/${'a'.repeat(2100)}`);
});

test('userinfo tricks are refused', () => {
  refused('https://fcm.googleapis.com@evil.com/x');
  refused('https://fcm.googleapis.com:443@evil.com/x');
  refused('https://user:pass@fcm.googleapis.com/x');
  refused('https://@fcm.googleapis.com/x');
  refused('https://evil.com\\@fcm.googleapis.com/x');
  refused('https://evil.com#@fcm.googleapis.com/x');
  refused('https://fcm.googleapis.com/x#frag');
  refused('https://fcm.googleapis.com\t/x');
  refused(' https://fcm.googleapis.com/x');
});

test('IP literals and ports are refused', () => {
  refused('https://127.0.0.1/x');
  refused('https://[::1]/x');
  refused('https://[::ffff:127.0.0.1]/x');
  refused('https://2130706433/x');
  refused('https://0x7f000001/x');
  refused('https://169.254.169.254/latest/meta-data');
  refused('https://fcm.googleapis.com:8443/x');
  refused('https://fcm.googleapis.com:80/x');
});

test('configured extra origins pass exactly, nothing near them', () => {
  const extra = parseExtraOrigins('http://127.0.0.1:9100, https://push.test');
  assert.deepEqual(extra, ['http://127.0.0.1:9100', 'https://push.test']);
  ok('http://127.0.0.1:9100/push/abc', extra);
  ok('https://push.test/x', extra);
  refused('http://127.0.0.1:9101/push/abc', extra);
  refused('https://127.0.0.1:9100/push/abc', extra);
  refused('http://localhost:9100/push/abc', extra);
  refused('http://u@127.0.0.1:9100/push/abc', extra);
  refused('http://push.test/x', extra);
  assert.throws(() => parseExtraOrigins('http://127.0.0.1:9100/path'));
  assert.throws(() => parseExtraOrigins('ws://127.0.0.1:9100'));
  assert.throws(() => parseExtraOrigins('nonsense'));
});

test('subscription keys must be what a browser gives', () => {
  const point = Buffer.alloc(65, 1);
  point[0] = 4;
  const auth = Buffer.alloc(16, 2).toString('base64url');
  assert.equal(checkPushKeys(point.toString('base64url'), auth), null);
  assert.notEqual(checkPushKeys(Buffer.alloc(65, 1).toString('base64url'), auth), null, 'compressed or junk first byte');
  assert.notEqual(checkPushKeys(point.subarray(0, 33).toString('base64url'), auth), null);
  assert.notEqual(checkPushKeys(point.toString('base64url'), Buffer.alloc(8).toString('base64url')), null);
  assert.notEqual(checkPushKeys('not base64!', auth), null);
});

test('a payload carries the sentence and a link into the web app only', () => {
  const web = 'https://app.example/app/';
  const p = pushPayload({ id: 7, kind: 'bet_opened', text: 'alice opened LONG AAPL at 187.25.\nhttps://app.example/app/bet/12', bet_id: 12 }, web);
  assert.deepEqual(p, {
    title: 'A trader you follow opened a bet',
    body: 'alice opened LONG AAPL at 187.25.',
    url: 'https://app.example/app/bet/12',
    kind: 'bet_opened',
    tag: 'bet-12',
  });
  const foreign = pushPayload({ id: 8, kind: 'league_notice', text: 'x\nhttps://evil.example/', bet_id: null }, web);
  assert.equal(foreign.url, `${web}notifications`);
  assert.equal(foreign.tag, 'notice-8');
});

test('the VAPID subject defaults to the https public URL, else the sender address', () => {
  assert.equal(defaultVapidSubject('https://bets.example', 'x@y.z'), 'https://bets.example');
  assert.equal(defaultVapidSubject('http://localhost:3000', 'Paper Bets <no-reply@localhost>'), 'mailto:no-reply@localhost');
});

test('configuration: both VAPID keys or neither, a valid subject, origins only (https in production)', () => {
  const base = { NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:' };
  const pub = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
  const priv = Buffer.alloc(32, 9).toString('base64url');
  assert.deepEqual(loadConfig({ ...base, VAPID_PUBLIC_KEY: pub, VAPID_PRIVATE_KEY: priv }).push.vapidKeys, { publicKey: pub, privateKey: priv });
  assert.equal(loadConfig(base).push.vapidKeys, null);
  assert.throws(() => loadConfig({ ...base, VAPID_PUBLIC_KEY: pub }), ConfigError);
  assert.throws(() => loadConfig({ ...base, VAPID_PUBLIC_KEY: 'short', VAPID_PRIVATE_KEY: priv }), ConfigError);
  assert.throws(() => loadConfig({ ...base, VAPID_SUBJECT: 'http://example.com' }), ConfigError);
  assert.equal(loadConfig({ ...base, VAPID_SUBJECT: 'mailto:ops@example.com' }).push.vapidSubject, 'mailto:ops@example.com');
  assert.deepEqual(loadConfig({ ...base, PUSH_EXTRA_ORIGINS: 'http://127.0.0.1:9000' }).push.extraOrigins, ['http://127.0.0.1:9000']);
  assert.throws(() => loadConfig({ ...base, PUSH_EXTRA_ORIGINS: 'http://127.0.0.1:9000/x' }), ConfigError);
});
