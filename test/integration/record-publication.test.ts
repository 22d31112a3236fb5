// The record's day publication reads and hashes the chain heads a slice at a
// time: with slices of 3 over more users than that it publishes the tree the
// heads give in one go (each user's last entry before the day's end, in user
// order), with every leaf; concurrent publishers share one publication.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BetRow, NewBet } from '../../src/db/tables.js';
import { inclusionProof, leafHash, merkleRoot, rootFromProof } from '../../src/domain/record.js';
import { buildDayTree, dayOf, dayProof, publishDay } from '../../src/services/record.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

forEachDialect('record publication in slices', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  async function open(userId: number): Promise<BetRow> {
    const bet: NewBet = {
      user_id: userId,
      ticker: 'MSFT',
      direction: 'LONG',
      status: 'OPEN',
      entry_price: 400,
      exit_price: null,
      percentage_gain: null,
      target_date: null,
      settle_at: null,
      opened_at: t.clock.now(),
      closed_at: null,
      last_event_at: t.clock.now(),
      close_reason: null,
      source_bet_id: null,
      source_kind: null,
    };
    return t.ctx.database.transaction(async (trx) => {
      const row = await trx.insertInto('bets').values(bet).returningAll().executeTakeFirstOrThrow();
      await t.ctx.events.emit(trx, 'betChanged', { kind: 'opened', bet: row, at: t.clock.now() });
      return row;
    });
  }

  /** The heads the whole table gives at once: each user's last entry before `end`, in user order. */
  async function headsAtOnce(end: number) {
    const rows = await t.ctx.db.selectFrom('record_entries').select(['user_id', 'seq', 'hash', 'at']).where('at', '<', end).execute();
    const last = new Map<number, { user_id: number; seq: number; hash: string }>();
    for (const r of rows) if ((last.get(r.user_id)?.seq ?? 0) < r.seq) last.set(r.user_id, { user_id: r.user_id, seq: r.seq, hash: r.hash });
    return [...last.values()].sort((a, b) => a.user_id - b.user_id);
  }

  test('slices of 3 publish the same tree and leaves as the heads read at once; concurrent callers share it', async () => {
    const users = [];
    for (let i = 0; i < 8; i++) users.push(await registerAndLogin(t.app));
    for (const [i, u] of users.entries()) {
      // 0 to 2 entries each: a user without entries has no leaf, the others their last one's.
      for (let k = 0; k < i % 3; k++) {
        await open(u.id);
        t.clock.advance(1_000);
      }
    }
    const day = dayOf(t.clock.now());
    const end = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
    t.clock.set(end + 60_000);
    // Entries of the next day are not in it.
    await open(users[1]!.id);

    const expected = await headsAtOnce(end);
    assert.ok(expected.length > 3 && expected.length % 3 !== 0, `${expected.length} heads`);
    const [a, b] = await Promise.all([publishDay(t.ctx, day, { slice: 3 }), publishDay(t.ctx, day, { slice: 3 })]);
    assert.deepEqual(a, b);
    assert.equal(a!.tree_size, expected.length);
    assert.equal(a!.root, merkleRoot(expected.map((h) => leafHash(h))));
    const leaves = await t.ctx.db
      .selectFrom('record_day_leaves')
      .select(['idx', 'user_id', 'seq', 'hash'])
      .where('day', '=', day)
      .orderBy('idx')
      .execute();
    assert.deepEqual(
      leaves,
      expected.map((h, idx) => ({ idx, ...h })),
    );
    // Proofs come from the day's tree, read back in slices of 2: the same paths as from every leaf at once.
    const hashes = expected.map((h) => leafHash(h));
    const tree = await buildDayTree(t.ctx.db, day, 2);
    assert.equal(tree.root(), a!.root);
    for (let m = 0; m < hashes.length; m++) {
      assert.deepEqual(tree.proof(m), inclusionProof(hashes, m), `leaf ${m}`);
      const path = await dayProof(t.ctx, day, m);
      assert.equal(rootFromProof(hashes[m]!, m, hashes.length, path), a!.root, `leaf ${m} through dayProof`);
    }
    // Published once: a later call answers the stored day.
    assert.deepEqual(await publishDay(t.ctx, day, { slice: 2 }), a);

    // A leaf row changed after publication gives another root: no proof is built on it.
    await t.ctx.db
      .updateTable('record_day_leaves')
      .set({ hash: '0'.repeat(64) })
      .where('day', '=', day)
      .where('idx', '=', 1)
      .execute();
    await assert.rejects(buildDayTree(t.ctx.db, day, 2), /do not give its published root/);
  });
});
