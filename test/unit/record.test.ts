import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  canonicalJson,
  type ChainEntry,
  encodeEntry,
  entryHash,
  GENESIS,
  inclusionProof,
  leafHash,
  MerkleFrontier,
  MerkleLevels,
  merkleRoot,
  type RecordEvent,
  rootFromProof,
  verifyChain,
} from '../../src/domain/record.js';

const ev = (seq: number, over: Partial<RecordEvent> = {}): RecordEvent => ({
  user_id: 7,
  seq,
  kind: 'opened',
  at: '2026-03-02T15:00:00.000Z',
  bet_id: 100 + seq,
  ticker: 'AAPL',
  direction: 'LONG',
  status: 'OPEN',
  entry_price: 100,
  exit_price: null,
  percentage_gain: null,
  target_date: null,
  ...over,
});

function chain(events: RecordEvent[]): ChainEntry[] {
  let prev = GENESIS;
  return events.map((event) => {
    const hash = entryHash(prev, event);
    const e = { seq: event.seq, event, prev_hash: prev, hash };
    prev = hash;
    return e;
  });
}

describe('record: canonical JSON and chains', () => {
  test('canonical JSON sorts keys at every level and has no whitespace', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }), '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    // Undefined properties are left out (as JSON.stringify does); events hold no arrays, whose undefined items stay empty as they always were.
    assert.equal(canonicalJson({ z: undefined, y: [undefined, 'a"b', -0.5], x: {} }), '{"x":{},"y":[,"a\\"b",-0.5]}');
    assert.equal(canonicalJson([]), '[]');
  });

  test('an entry as stored is the canonical JSON it hashes', () => {
    const e = ev(4, { exit_price: null });
    const stored = encodeEntry('ab'.repeat(32), e);
    assert.equal(stored.event, canonicalJson(e));
    assert.equal(stored.hash, entryHash('ab'.repeat(32), e));
  });

  test('a clean chain verifies; its bets match', () => {
    const entries = chain([ev(1), ev(2), ev(3, { bet_id: 101, kind: 'closed', status: 'CLOSED', exit_price: 110, percentage_gain: 10 })]);
    const bets = [
      {
        id: 101,
        ticker: 'AAPL',
        direction: 'LONG' as const,
        status: 'CLOSED' as const,
        entry_price: 100,
        exit_price: 110,
        percentage_gain: 10,
        target_date: null,
      },
      {
        id: 102,
        ticker: 'AAPL',
        direction: 'LONG' as const,
        status: 'OPEN' as const,
        entry_price: 100,
        exit_price: null,
        percentage_gain: null,
        target_date: null,
      },
    ];
    assert.deepEqual(verifyChain(7, entries, bets), []);
  });

  test('a changed event, a gap, a broken link and an edited bet row are all reported', () => {
    const entries = chain([ev(1), ev(2), ev(3)]);
    const changed = entries.map((e) => (e.seq === 2 ? { ...e, event: { ...e.event, entry_price: 99 } } : e));
    assert.match(verifyChain(7, changed).join('\n'), /entry 2 was changed/);
    const gap = [entries[0], entries[2]];
    assert.match(verifyChain(7, gap).join('\n'), /gap/);
    const relinked = [entries[0], { ...entries[1], prev_hash: GENESIS }];
    assert.match(verifyChain(7, relinked).join('\n'), /does not link/);
    const bets = [1, 2, 3].map((s) => ({
      id: 100 + s,
      ticker: 'AAPL',
      direction: 'LONG' as const,
      status: 'OPEN' as const,
      entry_price: 100,
      exit_price: null,
      percentage_gain: null,
      target_date: null,
    }));
    bets[1] = { ...bets[1], entry_price: 90 };
    assert.match(verifyChain(7, entries, bets).join('\n'), /bet 102: entry_price is 90/);
  });
});

describe('record: Merkle tree (RFC 6962)', () => {
  const leaves = (n: number) => Array.from({ length: n }, (_, i) => leafHash({ user_id: i + 1, seq: 1, hash: GENESIS }));

  test('every leaf of trees of size 1 to 17 proves into the root; a wrong leaf or index does not', () => {
    for (let n = 1; n <= 17; n++) {
      const ls = leaves(n);
      const root = merkleRoot(ls);
      for (let m = 0; m < n; m++) {
        const path = inclusionProof(ls, m);
        assert.equal(rootFromProof(ls[m], m, n, path), root, `n=${n} m=${m}`);
        if (n > 1) assert.notEqual(rootFromProof(ls[(m + 1) % n], m, n, path), root);
      }
    }
  });

  test('the frontier built a leaf at a time has the root of merkleRoot at every size, and a copy grows apart', () => {
    const ls = leaves(70);
    const f = new MerkleFrontier();
    assert.equal(f.root(), merkleRoot([]));
    for (let n = 1; n <= ls.length; n++) {
      f.push(ls[n - 1]);
      assert.equal(f.size, n);
      assert.equal(f.root(), merkleRoot(ls.slice(0, n)), `n=${n}`);
    }
    const c = f.copy();
    c.push(ls[0]);
    assert.equal(f.root(), merkleRoot(ls));
    assert.equal(c.root(), merkleRoot([...ls, ls[0]]));
  });

  test("the stored levels give merkleRoot's root and inclusionProof's path for every leaf of trees of size 0 to 70", () => {
    for (let n = 0; n <= 70; n++) {
      const ls = leaves(n);
      const levels = new MerkleLevels(n);
      for (const l of ls) levels.push(l);
      assert.equal(levels.complete, true);
      assert.equal(levels.root(), merkleRoot(ls), `n=${n}`);
      for (let m = 0; m < n; m++) assert.deepEqual(levels.proof(m), inclusionProof(ls, m), `n=${n} m=${m}`);
    }
  });

  test('the stored levels of a large tree: sampled leaves prove into its root; a proof before the last leaf and a leaf too many are refused', () => {
    const n = 5_000 + 37;
    const ls = leaves(n);
    const levels = new MerkleLevels(n);
    for (const l of ls.slice(0, -1)) levels.push(l);
    assert.throws(() => levels.proof(0), /not complete/);
    levels.push(ls.at(-1)!);
    assert.throws(() => levels.push(ls[0]), /full/);
    const root = merkleRoot(ls);
    assert.equal(levels.root(), root);
    for (const m of [0, 1, 2_047, 2_048, 4_095, 4_096, 4_999, 5_000, n - 2, n - 1]) {
      const path = levels.proof(m);
      assert.equal(rootFromProof(ls[m], m, n, path), root, `m=${m}`);
      assert.deepEqual(path, inclusionProof(ls, m));
    }
  });

  test('leaves and inner nodes are domain-separated', () => {
    const ls = leaves(2);
    assert.notEqual(merkleRoot(ls), ls[0]);
    assert.equal(merkleRoot([]), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
