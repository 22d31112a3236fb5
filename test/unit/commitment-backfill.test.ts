// The pure rules of the commitment backfill (src/jobs/commitment-backfill.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CANCEL_WINDOW_MS } from '../../src/domain/bets.js';
import { ENTRY_SAMPLE_MS, endsBeforeCommit, entrySampleInstants } from '../../src/jobs/commitment-backfill.js';

test('the entry is sampled a second apart from the opening back to the quote cache time and a second more', () => {
  const opened = Date.parse('2026-06-01T15:00:00.400Z');
  const samples = entrySampleInstants(opened, 5000);
  assert.equal(samples.length, 7);
  assert.equal(samples[0], opened);
  assert.equal(samples.at(-1), opened - 5000 - ENTRY_SAMPLE_MS);
  // One sample in each whole second the quote in force may have been published in.
  const seconds = new Set(samples.map((t) => Math.floor(t / 1000)));
  assert.equal(seconds.size, samples.length);
  assert.deepEqual(entrySampleInstants(opened, 0), [opened, opened - ENTRY_SAMPLE_MS]);
});

test('a bet ending before its committed instant is never committed: closed, cancelled or due inside its window', () => {
  const opened = Date.parse('2026-06-01T15:00:00Z');
  const at = opened + CANCEL_WINDOW_MS;
  const open = { status: 'OPEN' as const, opened_at: opened, closed_at: null, settle_at: null };
  assert.equal(endsBeforeCommit(open), false);
  assert.equal(endsBeforeCommit({ ...open, status: 'CANCELLED', closed_at: opened + 1000 }), true);
  assert.equal(endsBeforeCommit({ ...open, status: 'CLOSED', closed_at: at - 1 }), true);
  assert.equal(endsBeforeCommit({ ...open, status: 'CLOSED', closed_at: at }), false);
  assert.equal(endsBeforeCommit({ ...open, settle_at: at - 1 }), true);
  assert.equal(endsBeforeCommit({ ...open, settle_at: at }), false);
});
