// The web app's pure formatting rules (web/src/lib/format.ts), run in Node.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatCountdown, formatGain, formatMoney, formatPrice, gainClass, todayUtc } from '../../web/src/lib/format.js';

describe('web formatting', () => {
  test('plan prices are in the currency\'s smallest unit', () => {
    assert.match(formatMoney(500, 'usd'), /\$5\.00/);
    assert.match(formatMoney(1999, 'EUR'), /19[.,]99/);
    // The yen has no minor unit: 500 is ¥500, not ¥5.
    assert.match(formatMoney(500, 'jpy'), /500/);
    assert.doesNotMatch(formatMoney(500, 'jpy'), /5\.00/);
    assert.match(formatMoney(500, 'xx'), /5\.00 XX/);
  });

  test('gains carry their sign and colour', () => {
    assert.equal(formatGain(1.234), '+1.23%');
    assert.equal(formatGain(-0.5), '−0.50%');
    assert.equal(formatGain(0), '0.00%');
    assert.deepEqual([gainClass(2), gainClass(-2), gainClass(0)], ['gain-up', 'gain-down', 'gain-flat']);
  });

  test('prices: two decimals, more below 1', () => {
    assert.equal(formatPrice(134549.884), '134,549.88');
    assert.equal(formatPrice(0.01234), '0.01234');
  });

  test('the cancel countdown never goes negative and rounds up', () => {
    assert.equal(formatCountdown(299_001), '5:00');
    assert.equal(formatCountdown(61_000), '1:01');
    assert.equal(formatCountdown(-5), '0:00');
  });

  test('today is the UTC date (the target-date rule)', () => {
    assert.equal(todayUtc(new Date('2026-03-01T23:30:00-05:00')), '2026-03-02');
  });
});
