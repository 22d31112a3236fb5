// The record's one format change (docs/record.md, "Entry format"): entries of
// the first format, built here with that format's own encoding, still verify;
// a new entry verifies whether its null optional fields are written or left
// out; a changed new field does not verify; a league recount reads every kind.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { committedInstant } from '../../src/domain/bets.js';
import { betsAtHead, UnknownEntryKind } from '../../src/domain/league-record.js';
import {
  type ChainEntry,
  canonicalJson,
  encodeEntry,
  entryHash,
  eventInstantOf,
  eventJson,
  GENESIS,
  OPTIONAL_EVENT_FIELDS,
  type RecordedBet,
  type RecordEvent,
  recordCloseReason,
  recordEventOf,
  verifyChain,
} from '../../src/domain/record.js';
import type { UserRecord } from '../../src/schemas/record.js';

const USER = 7;
const T0 = Date.parse('2026-03-02T15:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** The first format's entry, exactly the fields it had. */
interface OldEvent {
  user_id: number;
  seq: number;
  kind: 'opened' | 'closed' | 'cancelled' | 'settled';
  at: string;
  bet_id: number;
  ticker: string;
  direction: 'LONG' | 'SHORT';
  status: 'OPEN' | 'CLOSED' | 'CANCELLED';
  entry_price: number;
  exit_price: number | null;
  percentage_gain: number | null;
  target_date: string | null;
}

/** The first format's encoding, as it was written: sorted keys, every field, nulls kept; SHA-256(prev ‖ "\n" ‖ JSON). */
function oldEncoding(prev: string, e: OldEvent): { json: string; hash: string } {
  const sorted = Object.fromEntries(Object.entries(e).sort(([a], [b]) => (a < b ? -1 : 1)));
  const json = JSON.stringify(sorted);
  return { json, hash: createHash('sha256').update(prev).update('\n').update(json).digest('hex') };
}

const oldEvents: OldEvent[] = [
  {
    user_id: USER,
    seq: 1,
    kind: 'opened',
    at: iso(T0),
    bet_id: 1,
    ticker: 'AAPL',
    direction: 'LONG',
    status: 'OPEN',
    entry_price: 100,
    exit_price: null,
    percentage_gain: null,
    target_date: null,
  },
  {
    user_id: USER,
    seq: 2,
    kind: 'closed',
    at: iso(T0 + 3_600_000),
    bet_id: 1,
    ticker: 'AAPL',
    direction: 'LONG',
    status: 'CLOSED',
    entry_price: 100,
    exit_price: 105,
    percentage_gain: 5,
    target_date: null,
  },
];

const bet2: RecordedBet = {
  id: 2,
  user_id: USER,
  ticker: 'BTC-USD',
  direction: 'SHORT',
  status: 'OPEN',
  entry_price: 50_000,
  exit_price: null,
  percentage_gain: null,
  target_date: '2026-03-02',
  opened_at: T0 + 7_200_000,
  closed_at: null,
  close_reason: null,
  committed_price: null,
  benchmark_committed: null,
  ranked_gain: null,
};
const opened2 = bet2.opened_at;
const committed2 = { ...bet2, committed_price: 49_000, benchmark_committed: 49_000 };
const due2 = Date.parse('2026-03-03T00:00:00.000Z');
const settled2 = {
  ...committed2,
  status: 'CLOSED' as const,
  exit_price: 48_000,
  percentage_gain: 4,
  closed_at: due2,
  close_reason: 'settlement',
  ranked_gain: 2.0408163265306123,
};

/** Old entries written with the old encoding, then new ones with the current one, in one chain; each event as read back from its stored JSON. */
function mixedChain(): ChainEntry[] {
  const entries: ChainEntry[] = [];
  let prev = GENESIS;
  for (const e of oldEvents) {
    const { json, hash } = oldEncoding(prev, e);
    entries.push({ seq: e.seq, prev_hash: prev, hash, event: JSON.parse(json) as RecordEvent });
    prev = hash;
  }
  const fresh = [
    recordEventOf('opened', bet2, 3, opened2),
    recordEventOf('committed', committed2, 4, committedInstant(opened2) + 1_000),
    // A settlement appended ten minutes after its due instant.
    recordEventOf('settled', settled2, 5, due2 + 600_000),
  ];
  for (const e of fresh) {
    const { event, hash } = encodeEntry(prev, e);
    entries.push({ seq: e.seq, prev_hash: prev, hash, event: JSON.parse(event) as RecordEvent });
    prev = hash;
  }
  return entries;
}

const betStates = [
  {
    id: 1,
    ticker: 'AAPL',
    direction: 'LONG' as const,
    status: 'CLOSED' as const,
    entry_price: 100,
    exit_price: 105,
    percentage_gain: 5,
    target_date: null,
  },
  {
    id: 2,
    ticker: 'BTC-USD',
    direction: 'SHORT' as const,
    status: 'CLOSED' as const,
    entry_price: 50_000,
    exit_price: 48_000,
    percentage_gain: 4,
    target_date: '2026-03-02',
    committed_price: 49_000,
    benchmark_committed: 49_000,
    ranked_gain: settled2.ranked_gain,
  },
];

describe('record format: old and new entries', () => {
  test('an entry of the first format encodes to the bytes it was written as, and hashes to its stored hash', () => {
    for (const e of oldEvents) {
      const prev = 'ab'.repeat(32);
      const old = oldEncoding(prev, e);
      assert.equal(eventJson(e), old.json);
      assert.equal(canonicalJson(e), old.json);
      assert.equal(entryHash(prev, e as RecordEvent), old.hash);
      // Its first-format nulls stay in the bytes: leaving one out is a change.
      assert.match(old.json, /"target_date":null/);
    }
  });

  test('old and new entries in one chain verify, against the bets too', () => {
    const entries = mixedChain();
    assert.deepEqual(verifyChain(USER, entries, betStates), []);
    assert.deepEqual(
      entries.map((e) => e.event.kind),
      ['opened', 'closed', 'opened', 'committed', 'settled'],
    );
  });

  test("a bet row's committed price, benchmark and ranked gain are checked against a new-format latest entry, absent and null alike", () => {
    const entries = mixedChain();
    const edited = (over: object) => verifyChain(USER, entries, [betStates[0], { ...betStates[1], ...over }]).join('\n');
    assert.match(edited({ ranked_gain: 50 }), /bet 2: ranked_gain is 50 but the record says 2\.04/);
    assert.match(edited({ committed_price: 48_000 }), /bet 2: committed_price is 48000 but the record says 49000/);
    assert.match(edited({ benchmark_committed: null }), /bet 2: benchmark_committed is null but the record says 49000/);
    // The opened entry has none of them: a row without them, or with nulls, agrees.
    const atOpening = entries.slice(0, 3);
    const openRow = { ...betStates[1], status: 'OPEN' as const, exit_price: null, percentage_gain: null };
    const { committed_price: _c, benchmark_committed: _b, ranked_gain: _r, ...withoutThem } = openRow;
    assert.deepEqual(verifyChain(USER, atOpening, [betStates[0], withoutThem]), []);
    assert.deepEqual(
      verifyChain(USER, atOpening, [betStates[0], { ...openRow, committed_price: null, benchmark_committed: null, ranked_gain: null }]),
      [],
    );
    // A bet whose latest entry is of the first format: its row's ranking fields are not the record's to check.
    assert.deepEqual(verifyChain(USER, entries, [{ ...betStates[0], committed_price: 101, ranked_gain: 3 }, betStates[1]]), []);
  });

  test('a new entry stores its null optional fields left out, and verifies with them written as null or left out', () => {
    const e = recordEventOf('opened', bet2, 1, opened2);
    const stored = encodeEntry(GENESIS, e);
    for (const k of ['committed_price', 'benchmark_committed', 'close_reason', 'thesis_hash', 'ranked_gain']) {
      assert.equal(e[k as keyof RecordEvent], null, k);
      assert.ok(!stored.event.includes(`"${k}"`), `${k} is left out of ${stored.event}`);
    }
    assert.match(stored.event, /"event_at":"2026-03-02T17:00:00.000Z"/);
    const omitted = JSON.parse(stored.event) as RecordEvent;
    const written = { ...omitted, committed_price: null, benchmark_committed: null, close_reason: null, thesis_hash: null, ranked_gain: null };
    assert.equal(entryHash(GENESIS, omitted), stored.hash);
    assert.equal(entryHash(GENESIS, written), stored.hash);
    assert.deepEqual(verifyChain(USER, [{ seq: 1, prev_hash: GENESIS, hash: stored.hash, event: written }]), []);
    // An old entry given the new fields as null is the same entry.
    const old = mixedChain()[0];
    const withNulls = { ...old.event, ...Object.fromEntries(OPTIONAL_EVENT_FIELDS.map((k) => [k, null])) };
    assert.equal(entryHash(old.prev_hash, withNulls as RecordEvent), old.hash);
  });

  test('a changed, added or removed new field does not verify; nor a first-format null left out', () => {
    const entries = mixedChain();
    const tamper = (seq: number, change: (e: RecordEvent) => RecordEvent) =>
      verifyChain(
        USER,
        entries.map((e) => (e.seq === seq ? { ...e, event: change({ ...e.event }) } : e)),
      ).join('\n');
    assert.match(
      tamper(4, (e) => ({ ...e, committed_price: 49_500 })),
      /entry 4 was changed/,
    );
    assert.match(
      tamper(5, (e) => ({ ...e, ranked_gain: 9 })),
      /entry 5 was changed/,
    );
    assert.match(
      tamper(5, (e) => ({ ...e, close_reason: 'manual' })),
      /entry 5 was changed/,
    );
    assert.match(
      tamper(5, (e) => ({ ...e, event_at: e.at })),
      /entry 5 was changed/,
    );
    assert.match(
      tamper(3, (e) => ({ ...e, thesis_hash: 'cd'.repeat(32) })),
      /entry 3 was changed/,
      'a null field given a value',
    );
    assert.match(
      tamper(4, ({ committed_price: _, ...e }) => e as RecordEvent),
      /entry 4 was changed/,
      'a value removed',
    );
    assert.match(
      tamper(1, (e) => ({ ...e, event_at: e.at })),
      /entry 1 was changed/,
      'an old entry given a new field',
    );
    assert.match(
      tamper(1, ({ exit_price: _, ...e }) => e as RecordEvent),
      /entry 1 was changed/,
      "an old entry's null left out",
    );
  });
});

describe('record format: what a new entry says', () => {
  test('at is the append instant, event_at the event own: opening, end of the window, a late settlement its due instant', () => {
    const [, , opened, committed, settled] = mixedChain().map((e) => e.event);
    assert.equal(opened.at, iso(opened2));
    assert.equal(opened.event_at, iso(opened2));
    assert.equal(committed.at, iso(committedInstant(opened2) + 1_000));
    assert.equal(committed.event_at, iso(committedInstant(opened2)));
    assert.equal(committed.status, 'OPEN');
    assert.equal(committed.committed_price, 49_000);
    assert.equal(committed.benchmark_committed, 49_000);
    assert.equal(settled.at, iso(due2 + 600_000));
    assert.equal(settled.event_at, iso(due2));
    assert.equal(settled.close_reason, 'target_date');
    assert.equal(settled.ranked_gain, settled2.ranked_gain);
    assert.equal(eventInstantOf(settled), due2);
    assert.equal(eventInstantOf(oldEvents[1] as RecordEvent), T0 + 3_600_000, 'an old entry: its at');
  });

  test("today's close reasons by their record names; the exit rules' pass; an unknown one fails the change", () => {
    assert.equal(recordCloseReason('user'), 'manual');
    assert.equal(recordCloseReason('settlement'), 'target_date');
    assert.equal(recordCloseReason('cancel'), 'cancel');
    assert.equal(recordCloseReason('stop_loss'), 'stop_loss');
    assert.equal(recordCloseReason('take_profit'), 'take_profit');
    assert.equal(recordCloseReason(null), null);
    assert.throws(() => recordCloseReason('whim'), /close reason "whim" has no name in the record/);
    const cancelled = recordEventOf(
      'cancelled',
      { ...bet2, status: 'CANCELLED', exit_price: 50_000, percentage_gain: 0, closed_at: opened2 + 60_000, close_reason: 'cancel' },
      9,
      opened2 + 60_000,
    );
    assert.equal(cancelled.close_reason, 'cancel');
    assert.equal(cancelled.event_at, iso(opened2 + 60_000));
  });
});

describe('record format: league recounts read every kind', () => {
  const record = (): UserRecord => ({ user_id: USER, entries: mixedChain(), bets: [], proof: null });

  test('a committed entry changes no status; instants are the events own', () => {
    const atCommit = betsAtHead(record(), 4);
    const b2 = atCommit.find((b) => b.id === 2)!;
    assert.equal(b2.status, 'OPEN');
    assert.equal(b2.closed_at, null);
    assert.equal(b2.opened_at, opened2);
    const b1 = atCommit.find((b) => b.id === 1)!;
    assert.equal(b1.opened_at, T0, 'an old entry: its at');
    assert.equal(b1.closed_at, T0 + 3_600_000);
    const settled = betsAtHead(record(), 5).find((b) => b.id === 2)!;
    assert.equal(settled.status, 'CLOSED');
    assert.equal(settled.closed_at, due2, 'the due instant, not the late append');
  });

  test('an entry of a kind the recount does not know fails it loudly', () => {
    const r = record();
    r.entries[3] = { ...r.entries[3], event: { ...r.entries[3].event, kind: 'amended' as RecordEvent['kind'] } };
    assert.throws(
      () => betsAtHead(r, 5),
      (err: Error) => err instanceof UnknownEntryKind && /entry 4 is of kind "amended"/.test(err.message),
    );
    assert.equal(betsAtHead(r, 3).length, 2, 'entries before it recount');
  });
});
