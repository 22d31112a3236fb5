// Billing periods of the local provider's subscriptions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { periodEndAfter } from '../../src/domain/plan-periods.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

test('a monthly plan renews on the same day of each calendar month, the first renewal after now', () => {
  const anchor = at('2026-03-02T15:00:00Z');
  assert.equal(iso(periodEndAfter(anchor, 'month', anchor)), '2026-04-02T15:00:00.000Z');
  assert.equal(iso(periodEndAfter(anchor, 'month', at('2026-04-02T14:59:59Z'))), '2026-04-02T15:00:00.000Z');
  // At the renewal instant the next period has begun.
  assert.equal(iso(periodEndAfter(anchor, 'month', at('2026-04-02T15:00:00Z'))), '2026-05-02T15:00:00.000Z');
  assert.equal(iso(periodEndAfter(anchor, 'month', at('2027-11-20T00:00:00Z'))), '2027-12-02T15:00:00.000Z');
});

test('month ends clamp as calendars do; days, weeks and years', () => {
  const jan31 = at('2026-01-31T10:00:00Z');
  assert.equal(iso(periodEndAfter(jan31, 'month', jan31)), '2026-02-28T10:00:00.000Z');
  assert.equal(iso(periodEndAfter(jan31, 'month', at('2026-03-15T00:00:00Z'))), '2026-03-31T10:00:00.000Z');
  const anchor = at('2026-03-02T15:00:00Z');
  assert.equal(iso(periodEndAfter(anchor, 'day', at('2026-03-10T16:00:00Z'))), '2026-03-11T15:00:00.000Z');
  assert.equal(iso(periodEndAfter(anchor, 'week', at('2026-03-10T16:00:00Z'))), '2026-03-16T15:00:00.000Z');
  assert.equal(iso(periodEndAfter(anchor, 'year', at('2030-01-01T00:00:00Z'))), '2030-03-02T15:00:00.000Z');
});

test('a clock before the anchor still gives one full period', () => {
  const anchor = at('2026-03-02T15:00:00Z');
  assert.equal(iso(periodEndAfter(anchor, 'week', at('2026-02-01T00:00:00Z'))), '2026-03-09T15:00:00.000Z');
});
