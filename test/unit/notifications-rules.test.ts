import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatPrice } from '../../src/domain/price-format.js';
import { backoffMs, escapeTelegramHtml, MAX_ATTEMPTS, openedText, parseChatText, settledText } from '../../src/domain/notifications.js';

describe('notification rules', () => {
  test('chat commands: /start with or without code, /stop, a bare code, anything else', () => {
    const code = 'AbCdEf0123456789_-xyzQ';
    assert.deepEqual(parseChatText(`/start ${code}`), { kind: 'start', code });
    assert.deepEqual(parseChatText(`/start@paper_bot ${code}`), { kind: 'start', code });
    assert.deepEqual(parseChatText('/start'), { kind: 'start', code: null });
    assert.deepEqual(parseChatText(' /STOP '), { kind: 'stop' });
    assert.deepEqual(parseChatText(code), { kind: 'code', code });
    assert.deepEqual(parseChatText('hello there'), { kind: 'other' });
    assert.deepEqual(parseChatText('short'), { kind: 'other' });
  });

  test('backoff doubles from 5 s and is capped at 30 minutes', () => {
    assert.deepEqual([1, 2, 3, 4].map(backoffMs), [5_000, 10_000, 20_000, 40_000]);
    assert.equal(backoffMs(40), 30 * 60_000);
    assert.ok(MAX_ATTEMPTS > 1);
  });

  test('Telegram HTML escaping covers &, < and >', () => {
    assert.equal(escapeTelegramHtml('a < b && c > d'), 'a &lt; b &amp;&amp; c &gt; d');
    assert.equal(escapeTelegramHtml('<b>x</b>'), '&lt;b&gt;x&lt;/b&gt;');
  });

  test('texts name who, ticker, direction, price and the bet link', () => {
    const bet = { id: 7, ticker: 'BRK.B', direction: 'SHORT' as const, entry_price: 412.5 };
    assert.equal(openedText('alice', bet, 'https://w.example/app/'), 'alice opened SHORT BRK.B at 412.5.\nhttps://w.example/app/bet/7');
    assert.match(
      settledText({ ...bet, exit_price: 400, percentage_gain: 3.0303 }, 'https://w.example/app/'),
      /settled at 400 \(entry 412.5\): \+3\.03%/,
    );
    assert.match(settledText({ ...bet, exit_price: 420, percentage_gain: -1.8181 }, 'https://w.example/app/'), /: -1\.82%/);
  });
});

test('a price in a notice reads as toLocaleString wrote it: grouped, up to six decimals, negatives and tiny values too', () => {
  for (const p of [0, 1, 187.5, 1234.5, 1234567.123456789, 0.000001, 0.0000004, -42.1234567, 99999999.99, 1e21, Number.NaN]) {
    assert.equal(formatPrice(p), p.toLocaleString('en-US', { maximumFractionDigits: 6 }));
  }
});
