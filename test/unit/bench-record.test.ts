// The generated record must verify with the app's own checker, against the
// generated bets: same canonical JSON, same hashes, one chain per user.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, entryHash, GENESIS, type RecordEvent, verifyChain } from '../../src/domain/record.js';
import { BET_COLUMNS, Population } from '../../bench/lib/dataset.js';
import { PRESETS } from '../../bench/lib/presets.js';
import { chainOf, fastEntry, RECORD_COLUMNS } from '../../bench/lib/record.js';
import { ROLES } from '../../bench/lib/roles.js';

test("the fast entry is the domain's canonical JSON and hash", () => {
  const events: RecordEvent[] = [
    {
      user_id: 7,
      seq: 1,
      kind: 'opened',
      at: '2026-01-02T03:04:05.678Z',
      bet_id: 9,
      ticker: 'BRK.B',
      direction: 'SHORT',
      status: 'OPEN',
      entry_price: 460.1,
      exit_price: null,
      percentage_gain: null,
      target_date: null,
    },
    {
      user_id: 7,
      seq: 2,
      kind: 'closed',
      at: '2026-01-03T03:04:05.000Z',
      bet_id: 9,
      ticker: 'BRK.B',
      direction: 'SHORT',
      status: 'CLOSED',
      entry_price: 460.1,
      exit_price: 455,
      percentage_gain: 1.1084546837644065,
      target_date: '2026-02-01',
    },
  ];
  let prev = GENESIS;
  for (const e of events) {
    const fast = fastEntry(prev, e);
    assert.equal(fast.json, canonicalJson(e));
    assert.equal(fast.hash, entryHash(prev, e));
    prev = fast.hash;
  }
});

test("every generated user's chain verifies against their bets", () => {
  const people = new Population(PRESETS.tiny, Date.parse('2026-11-22T04:00:00Z'));
  const bets = [...people.finishedBets(), ...people.openBets()].map((row) => {
    const b = Object.fromEntries(BET_COLUMNS.map((c, i) => [c, row[i]])) as Record<string, unknown>;
    return { ...b, target_date: null } as Parameters<typeof chainOf>[0][number];
  });
  for (const userId of [ROLES.demo.id, ROLES.portfolio.id, ROLES.history.id, 42]) {
    const mine = bets.filter((b) => b.user_id === userId);
    const rows = chainOf(mine);
    const col = (name: string) => RECORD_COLUMNS.indexOf(name);
    const entries = rows.map((r) => ({
      seq: r[col('seq')] as number,
      prev_hash: r[col('prev_hash')] as string,
      hash: r[col('hash')] as string,
      event: JSON.parse(r[col('event')] as string) as RecordEvent,
    }));
    assert.deepEqual(verifyChain(userId, entries, mine), [], `user ${userId}`);
    assert.equal(rows.length, 2 * mine.filter((b) => b.status !== 'OPEN').length + mine.filter((b) => b.status === 'OPEN').length);
    const times = rows.map((r) => r[col('at')] as number);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'events in time order',
    );
  }
});
