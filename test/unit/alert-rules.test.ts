// The price alerts' pure rules (src/domain/alerts.ts): when a quote meets an
// alert, the bounds of its value, the sentence of its notice.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { alertMet, alertValueProblem, firedText, readQuote } from '../../src/domain/alerts.js';
import { MAIL } from '../../src/domain/mail.js';
import { dailyChange } from '../../src/domain/instruments.js';
import { extraAlertsOf, parsePlanExtras } from '../../src/domain/payments.js';
import { loadConfig } from '../../src/config.js';

describe('alert rules', () => {
  test('above and below are met at the level itself and beyond it, not short of it', () => {
    assert.equal(alertMet({ kind: 'above', value: 100 }, 99.99, null), false);
    assert.equal(alertMet({ kind: 'above', value: 100 }, 100, null), true);
    assert.equal(alertMet({ kind: 'above', value: 100 }, 130, null), true);
    assert.equal(alertMet({ kind: 'below', value: 100 }, 100.01, null), false);
    assert.equal(alertMet({ kind: 'below', value: 100 }, 100, null), true);
    assert.equal(alertMet({ kind: 'below', value: 100 }, 42, null), true);
  });

  test("move is met by the directory's change_percent reaching the value either way", () => {
    const rule = { kind: 'move' as const, value: 5 };
    assert.equal(alertMet(rule, 104.99, 100), false);
    assert.equal(alertMet(rule, 105, 100), true);
    assert.equal(alertMet(rule, 95, 100), true, 'a fall counts as much as a rise');
    assert.equal(alertMet(rule, 95.01, 100), false);
    // Rounded to 2 decimals as the directory shows it: 4.996 % shows as 5.00 %.
    assert.equal(dailyChange(104.996, 100)?.changePercent, 5);
    assert.deepEqual(readQuote(rule, 104.996, 100), { met: true, changePercent: 5 });
    assert.deepEqual(readQuote(rule, 90, 100), { met: true, changePercent: -10 });
    // Nothing to measure from: not met.
    assert.equal(alertMet(rule, 1000, null), false);
    assert.equal(alertMet(rule, 1000, 0), false);
    // Price alerts carry no change.
    assert.deepEqual(readQuote({ kind: 'above', value: 1 }, 2, 1), { met: true, changePercent: null });
  });

  test('values: a positive price for above/below, 0.01 to 1000 % for move', () => {
    assert.equal(alertValueProblem({ kind: 'above', value: 0.0001 }), null);
    assert.equal(alertValueProblem({ kind: 'below', value: 1_000_000_000 }), null);
    assert.match(alertValueProblem({ kind: 'below', value: 0 }) ?? '', /above 0/);
    assert.match(alertValueProblem({ kind: 'above', value: -3 }) ?? '', /above 0/);
    assert.match(alertValueProblem({ kind: 'above', value: 2e9 }) ?? '', /at most/);
    assert.equal(alertValueProblem({ kind: 'move', value: 0.01 }), null);
    assert.equal(alertValueProblem({ kind: 'move', value: 1000 }), null);
    assert.match(alertValueProblem({ kind: 'move', value: 0.001 }) ?? '', /percentage/);
    assert.match(alertValueProblem({ kind: 'move', value: 1500 }) ?? '', /percentage/);
    assert.equal(alertValueProblem({ kind: 'move', value: Number.NaN }), 'value must be a number');
  });

  test('the notice names the quote that fired it, its instant, and the rule, with no URL', () => {
    const at = Date.parse('2026-03-02T15:04:00Z');
    const above = firedText('AAPL', { kind: 'above', value: 190 }, { price: 191.25, at, changePercent: null });
    assert.equal(above, 'Alert: AAPL at 191.25 (2026-03-02 15:04 UTC), at or above your level 190.');
    const move = firedText('BTC-USD', { kind: 'move', value: 5 }, { price: 47_000, at, changePercent: -6.1 });
    assert.match(move, /BTC-USD moved -6\.10 % since its previous close, at 47,000 \(2026-03-02 15:04 UTC; your alert: 5 % either way\)/);
    assert.doesNotMatch(above + move, /https?:/);
    // By email: the sentence as subject and body, a button to the alerts page.
    const mail = MAIL.alertNotice(above, 'https://app.example/alerts');
    assert.equal(mail.subject, 'Alert: AAPL at 191.25 (2026-03-02 15:04 UTC), at or above your level 190');
    assert.deepEqual(mail.paragraphs, [above]);
    assert.deepEqual(mail.action, { label: 'See your alerts', url: 'https://app.example/alerts' });
  });

  test("a plan's extra_alerts count only while it is paid up; the shipped plans.json lists them", () => {
    const extras = parsePlanExtras({ plus: 30 }, 'extra_alerts');
    assert.equal(extraAlertsOf({ pay_price_id: 'plus', pay_subscription_status: 'active' }, extras), 30);
    assert.equal(extraAlertsOf({ pay_price_id: 'plus', pay_subscription_status: 'canceled' }, extras), 0);
    assert.equal(extraAlertsOf({ pay_price_id: null, pay_subscription_status: null }, extras), 0);
    assert.throws(() => parsePlanExtras({ plus: -1 }, 'extra_alerts'), /extra_alerts of plus/);
    assert.throws(() => parsePlanExtras([1], 'extra_alerts'), /extra_alerts must map/);
    const config = loadConfig({});
    assert.ok(config.alertExtras.size >= 1);
    assert.equal(config.alertCapacity, 20);
    assert.equal(loadConfig({ BASE_ALERT_CAPACITY: '3' }).alertCapacity, 3);
    assert.throws(() => loadConfig({ BASE_ALERT_CAPACITY: '-1' }));
  });
});
