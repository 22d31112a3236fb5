// The web app's in-browser record check (web/src/lib/record-proof.ts, WebCrypto)
// against the server's own record functions (src/domain/record.ts, node:crypto):
// both must hash the same bytes, or a true record would show "does not verify".
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import * as server from '../../src/domain/record.js';
import {
  canonicalJson,
  checkBetRecord,
  entryHash,
  leafHash,
  rootFromProof,
  shortHash,
  type UserRecord,
  verdictOf,
} from '../../web/src/lib/record-proof.js';

const USER = 7;

const event = (seq: number, over: Partial<server.RecordEvent> = {}): server.RecordEvent => ({
  user_id: USER,
  seq,
  kind: 'opened',
  at: `2026-03-02T15:00:0${seq % 10}.000Z`,
  bet_id: 101,
  ticker: 'BTC-USD',
  direction: 'LONG',
  status: 'OPEN',
  entry_price: 64_123.45,
  exit_price: null,
  percentage_gain: null,
  target_date: null,
  ...over,
});

/**
 * A user record as GET /record/user/{id} answers it (through JSON): bet 101
 * opened and closed, bet 102 opened; the head after `publishedSeq` entries is
 * leaf `index` of a tree of `size` heads built by the server's functions.
 */
function record(publishedSeq: number | null, size = 9, index = 6): UserRecord {
  const events = [
    event(1),
    event(2, { bet_id: 102, ticker: 'AAPL', direction: 'SHORT', entry_price: 187.2, target_date: '2026-04-01' }),
    event(3, { kind: 'closed', status: 'CLOSED', exit_price: 64_500.01, percentage_gain: 0.587405 }),
  ];
  let prev = server.GENESIS;
  const entries = events.map((e) => {
    const hash = server.entryHash(prev, e);
    const entry = { seq: e.seq, prev_hash: prev, hash, event: e };
    prev = hash;
    return entry;
  });
  let proof: UserRecord['proof'] = null;
  if (publishedSeq !== null) {
    const head = { user_id: USER, seq: publishedSeq, hash: entries[publishedSeq - 1].hash };
    const leaves = Array.from({ length: size }, (_, i) =>
      i === index ? server.leafHash(head) : server.leafHash({ user_id: 100 + i, seq: i + 1, hash: 'ab'.repeat(32) }),
    );
    proof = {
      date: '2026-03-02',
      root: server.merkleRoot(leaves),
      tree_size: size,
      leaf_index: index,
      leaf: head,
      path: server.inclusionProof(leaves, index),
    };
  }
  const bets = [
    {
      id: 101,
      ticker: 'BTC-USD',
      direction: 'LONG' as const,
      status: 'CLOSED' as const,
      entry_price: 64_123.45,
      exit_price: 64_500.01,
      percentage_gain: 0.587405,
      target_date: null,
    },
    {
      id: 102,
      ticker: 'AAPL',
      direction: 'SHORT' as const,
      status: 'OPEN' as const,
      entry_price: 187.2,
      exit_price: null,
      percentage_gain: null,
      target_date: '2026-04-01',
    },
  ];
  return JSON.parse(JSON.stringify({ user_id: USER, entries, bets, proof })) as UserRecord;
}

describe('web record proof (WebCrypto) agrees with the server', () => {
  test("canonical JSON, entry hashes and leaf hashes are byte for byte the server's", async () => {
    const arbEvent = fc.record({
      user_id: fc.integer({ min: 1, max: 2 ** 31 }),
      seq: fc.integer({ min: 1, max: 1e6 }),
      kind: fc.constantFrom('opened' as const, 'closed' as const, 'cancelled' as const, 'settled' as const),
      at: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
      bet_id: fc.integer({ min: 1, max: 2 ** 31 }),
      ticker: fc.string({ minLength: 1, maxLength: 15 }),
      direction: fc.constantFrom('LONG' as const, 'SHORT' as const),
      status: fc.constantFrom('OPEN' as const, 'CLOSED' as const, 'CANCELLED' as const),
      entry_price: fc.double({ min: 1e-6, max: 1e7, noNaN: true }),
      exit_price: fc.option(fc.double({ min: 1e-6, max: 1e7, noNaN: true })),
      percentage_gain: fc.option(fc.double({ min: -1e4, max: 1e4, noNaN: true })),
      target_date: fc.option(fc.constantFrom('2026-04-01', '2030-12-31')),
    });
    await fc.assert(
      fc.asyncProperty(arbEvent, fc.stringMatching(/^[0-9a-f]{64}$/), async (e, prev) => {
        // Through JSON, as the browser receives it.
        const received = JSON.parse(JSON.stringify(e)) as server.RecordEvent;
        assert.equal(canonicalJson(received), server.canonicalJson(e));
        assert.equal(await entryHash(prev, received), server.entryHash(prev, e));
        assert.equal(await leafHash({ user_id: e.user_id, seq: e.seq, hash: prev }), server.leafHash({ user_id: e.user_id, seq: e.seq, hash: prev }));
      }),
      { numRuns: 200 },
    );
  });

  test("entries of the new format hash as the server's, their optional fields absent, null or set", async () => {
    const optional = {
      event_at: fc.option(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString())),
      committed_price: fc.option(fc.double({ min: 1e-6, max: 1e7, noNaN: true })),
      benchmark_committed: fc.option(fc.double({ min: 1e-6, max: 1e7, noNaN: true })),
      close_reason: fc.option(
        fc.constantFrom('manual' as const, 'cancel' as const, 'target_date' as const, 'stop_loss' as const, 'take_profit' as const),
      ),
      thesis_hash: fc.option(fc.stringMatching(/^[0-9a-f]{64}$/)),
      ranked_gain: fc.option(fc.double({ min: -1e4, max: 1e4, noNaN: true })),
    };
    const arbNew = fc.record(optional, { requiredKeys: [] }).map((o) => ({ ...event(3, { kind: 'committed' }), ...o }));
    await fc.assert(
      fc.asyncProperty(arbNew, async (e) => {
        const received = JSON.parse(JSON.stringify(e)) as server.RecordEvent;
        assert.equal(await entryHash(server.GENESIS, received), server.entryHash(server.GENESIS, e));
        // Its nulls left out: the same entry.
        const omitted = Object.fromEntries(
          Object.entries(received).filter(([k, v]) => v !== null || !(server.OPTIONAL_EVENT_FIELDS as readonly string[]).includes(k)),
        );
        assert.equal(await entryHash(server.GENESIS, omitted as server.RecordEvent), server.entryHash(server.GENESIS, e));
      }),
      { numRuns: 200 },
    );
  });

  test('a chain of first-format entries (their own encoding) and new ones checks out in the browser; a changed new field does not', async () => {
    const oldEvents = [event(1), event(2, { kind: 'closed', status: 'CLOSED', exit_price: 65_000, percentage_gain: 1.367 })];
    let prev = server.GENESIS;
    const entries: UserRecord['entries'] = [];
    for (const e of oldEvents) {
      // The first format as it was written: sorted keys, every field, nulls kept.
      const json = JSON.stringify(Object.fromEntries(Object.entries(e).sort(([a], [b]) => (a < b ? -1 : 1))));
      const hash = createHash('sha256').update(prev).update('\n').update(json).digest('hex');
      entries.push({ seq: e.seq, prev_hash: prev, hash, event: JSON.parse(json) });
      prev = hash;
    }
    const bet = {
      id: 102,
      user_id: USER,
      ticker: 'AAPL',
      direction: 'SHORT' as const,
      status: 'OPEN' as const,
      entry_price: 187.2,
      exit_price: null,
      percentage_gain: null,
      target_date: null,
      opened_at: Date.parse('2026-03-02T16:00:00Z'),
      closed_at: null,
      close_reason: null,
      committed_price: null,
      benchmark_committed: null,
      ranked_gain: null,
    };
    const committed = { ...bet, committed_price: 186, benchmark_committed: 500 };
    const closed = {
      ...committed,
      status: 'CLOSED' as const,
      exit_price: 180,
      percentage_gain: 3.846,
      closed_at: bet.opened_at + 3_600_000,
      close_reason: 'user',
      ranked_gain: 3.226,
    };
    const fresh = [
      server.recordEventOf('opened', bet, 3, bet.opened_at),
      server.recordEventOf('committed', committed, 4, bet.opened_at + 301_000),
      server.recordEventOf('closed', closed, 5, closed.closed_at),
    ];
    for (const e of fresh) {
      const { event: json, hash } = server.encodeEntry(prev, e);
      entries.push({ seq: e.seq, prev_hash: prev, hash, event: JSON.parse(json) });
      prev = hash;
    }
    const bets = [
      {
        id: 101,
        ticker: 'BTC-USD',
        direction: 'LONG' as const,
        status: 'CLOSED' as const,
        entry_price: 64_123.45,
        exit_price: 65_000,
        percentage_gain: 1.367,
        target_date: null,
      },
      {
        id: 102,
        ticker: 'AAPL',
        direction: 'SHORT' as const,
        status: 'CLOSED' as const,
        entry_price: 187.2,
        exit_price: 180,
        percentage_gain: 3.846,
        target_date: null,
        committed_price: 186,
        benchmark_committed: 500,
        ranked_gain: 3.226,
      },
    ];
    const rec: UserRecord = JSON.parse(JSON.stringify({ user_id: USER, entries, bets, proof: null }));
    for (const id of [101, 102]) {
      const check = await checkBetRecord(rec, id);
      assert.deepEqual(check.problems, [], `bet ${id}`);
      assert.deepEqual(check.betMismatch, []);
      assert.equal(verdictOf(check), 'unpublished');
    }
    assert.deepEqual(
      (await checkBetRecord(rec, 102)).entries.map((e) => e.event.kind),
      ['opened', 'committed', 'closed'],
    );
    // The new entries' nulls written out: the same record.
    const withNulls = structuredClone(rec);
    for (const e of withNulls.entries.slice(2))
      e.event = { ...e.event, thesis_hash: null, ...(e.seq === 3 ? { committed_price: null, ranked_gain: null } : {}) };
    assert.deepEqual((await checkBetRecord(withNulls, 102)).problems, []);
    const changed = structuredClone(rec);
    changed.entries[3].event.committed_price = 187;
    assert.match((await checkBetRecord(changed, 102)).problems.join('\n'), /entry 4 was changed/);
    // A bet row whose ranked gain was edited: the latest entry (new format) says otherwise.
    const edited = structuredClone(rec);
    edited.bets[1].ranked_gain = 9;
    assert.deepEqual((await checkBetRecord(edited, 102)).betMismatch, ['ranked_gain']);
    assert.equal(verdictOf(await checkBetRecord(edited, 102)), 'failed');
  });

  test("the audit path of every leaf of trees of 1 to 33 leaves leads to the server's root; a wrong index or size does not", async () => {
    for (let size = 1; size <= 33; size++) {
      const leaves = Array.from({ length: size }, (_, i) => server.leafHash({ user_id: i + 1, seq: 1, hash: server.GENESIS }));
      const root = server.merkleRoot(leaves);
      for (let i = 0; i < size; i++) {
        const path = server.inclusionProof(leaves, i);
        assert.equal(await rootFromProof(leaves[i], i, size, path), root, `size ${size}, leaf ${i}`);
        assert.equal(await rootFromProof(leaves[i], i, size, path), server.rootFromProof(leaves[i], i, size, path));
        if (size > 1) assert.notEqual(await rootFromProof(leaves[i], (i + 1) % size, size, path), root, `size ${size}, leaf ${i} at another index`);
      }
      assert.equal(await rootFromProof(leaves[0], size, size, []), null, 'index past the tree');
    }
  });

  test('a bet whose entries are under the published head verifies', async () => {
    const check = await checkBetRecord(record(3), 101);
    assert.deepEqual(check.problems, []);
    assert.equal(check.proof, 'verified');
    assert.deepEqual(
      check.entries.map((e) => e.seq),
      [1, 3],
    );
    assert.deepEqual(
      check.covered.map((e) => e.seq),
      [1, 3],
    );
    assert.deepEqual(check.pending, []);
    assert.equal(check.recomputedRoot, record(3).proof!.root);
    assert.equal(verdictOf(check), 'verified');
    // The published root fetched on its own agrees.
    assert.equal(verdictOf(await checkBetRecord(record(3), 101, record(3).proof!.root)), 'verified');
  });

  test('entries after the published head wait for the next root', async () => {
    const check = await checkBetRecord(record(2), 101);
    assert.equal(check.proof, 'verified');
    assert.deepEqual(
      check.covered.map((e) => e.seq),
      [1],
    );
    assert.deepEqual(
      check.pending.map((e) => e.seq),
      [3],
    );
    assert.equal(verdictOf(check), 'verified');
    const opened = await checkBetRecord(record(1), 102);
    assert.deepEqual(opened.covered, []);
    assert.equal(verdictOf(opened), 'unpublished');
    const none = await checkBetRecord(record(null), 101);
    assert.equal(none.proof, 'none');
    assert.deepEqual(none.problems, []);
    assert.equal(verdictOf(none), 'unpublished');
  });

  test('a changed entry, a changed proof, another published root or an edited bet does not verify', async () => {
    const changed = record(3);
    changed.entries[0].event.entry_price = 60_000;
    const c1 = await checkBetRecord(changed, 101);
    assert.match(c1.problems.join('\n'), /entry 1 was changed/);
    assert.equal(verdictOf(c1), 'failed');

    const badPath = record(3);
    badPath.proof!.path[0] = 'cd'.repeat(32);
    const c2 = await checkBetRecord(badPath, 101);
    assert.equal(c2.proof, 'mismatch');
    assert.match(c2.problems.join('\n'), /does not lead to the root of 2026-03-02/);
    assert.equal(verdictOf(c2), 'failed');

    const c3 = await checkBetRecord(record(3), 101, 'ef'.repeat(32));
    assert.match(c3.problems.join('\n'), /differs from the published one/);
    assert.equal(verdictOf(c3), 'failed');

    const edited = record(3);
    edited.bets[0].percentage_gain = 5;
    const c4 = await checkBetRecord(edited, 101);
    assert.deepEqual(c4.betMismatch, ['percentage_gain']);
    assert.equal(verdictOf(c4), 'failed');

    const relinked = record(3);
    relinked.entries[2].prev_hash = relinked.entries[0].hash;
    assert.match((await checkBetRecord(relinked, 101)).problems.join('\n'), /entry 3 does not link/);

    assert.equal(verdictOf(await checkBetRecord(record(3), 999)), 'failed', 'a bet with no entry at all');
  });

  test('hashes are shortened for display only when long', () => {
    assert.equal(shortHash('ab'.repeat(32)), 'ababababab…abab');
    assert.equal(shortHash('abc'), 'abc');
  });
});
