import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BetRow, NewBet } from '../../src/db/tables.js';
import { verifyUserRecord } from '../../src/domain/verify-record.js';
import type { BetEventKind } from '../../src/services/events.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';

forEachDialect('verifiable record', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  /** Changes a bet the way the lifecycle does: row change and event in one transaction. */
  async function change(bet: NewBet & { id?: number }, kind: BetEventKind): Promise<BetRow> {
    return t.ctx.database.transaction(async (trx) => {
      let row: BetRow;
      if (bet.id === undefined) row = await trx.insertInto('bets').values(bet).returningAll().executeTakeFirstOrThrow();
      else row = await trx.updateTable('bets').set(bet).where('id', '=', bet.id).returningAll().executeTakeFirstOrThrow();
      await t.ctx.events.emit(trx, 'betChanged', { kind, bet: row, at: t.clock.now() });
      return row;
    });
  }
  const openBet = (userId: number): NewBet => ({
    user_id: userId,
    ticker: 'MSFT',
    direction: 'SHORT',
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
  });
  const getRecord = async (userId: number) => {
    const res = await t.app.inject({ method: 'GET', url: `/record/user/${userId}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test("each bet event extends the user's chain; the published day root proves the head; tampering is detected", async () => {
    const u = await registerAndLogin(t.app);
    const other = await registerAndLogin(t.app);
    const a = await change(openBet(u.id), 'opened');
    await change(openBet(other.id), 'opened');
    t.clock.advance(60_000);
    await change(
      { ...a, status: 'CLOSED', exit_price: 380, percentage_gain: 5, closed_at: t.clock.now(), last_event_at: t.clock.now(), close_reason: 'user' },
      'closed',
    );
    const b = await change(openBet(u.id), 'opened');

    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    assert.equal((await t.app.inject({ method: 'GET', url: `/record/days/${today}` })).statusCode, 404, 'a day is published once it is over');
    assert.equal((await t.app.inject({ method: 'GET', url: '/record/days/2026-13-01' })).statusCode, 400);

    let rec = await getRecord(u.id);
    assert.deepEqual(
      rec.entries.map((e: { event: { kind: string } }) => e.event.kind),
      ['opened', 'closed', 'opened'],
    );
    assert.equal(rec.proof, null);
    assert.deepEqual(verifyUserRecord(rec), []);

    t.clock.advance(86_400_000);
    const day = await t.app.inject({ method: 'GET', url: `/record/days/${today}` });
    assert.equal(day.statusCode, 200);
    assert.equal(day.json().tree_size, 2);
    const head = await t.app.inject({ method: 'GET', url: '/record/head' });
    assert.deepEqual(head.json(), day.json());

    rec = await getRecord(u.id);
    assert.equal(rec.proof.date, today);
    assert.equal(rec.proof.root, day.json().root);
    assert.equal(rec.proof.leaf.seq, 3);
    assert.deepEqual(verifyUserRecord(rec, day.json().root), []);

    // Someone edits a bet row directly in the database.
    await t.ctx.db.updateTable('bets').set({ percentage_gain: 50 }).where('id', '=', a.id).execute();
    const problems = verifyUserRecord(await getRecord(u.id));
    assert.ok(
      problems.some((p) => p.includes(`bet ${a.id}: percentage_gain is 50`)),
      problems.join('\n'),
    );

    // … or rewrites the chain entry too: the hash no longer matches, or the head leaves the published root.
    await t.ctx.db
      .updateTable('record_entries')
      .set({
        event: (
          await t.ctx.db.selectFrom('record_entries').select('event').where('user_id', '=', u.id).where('seq', '=', 2).executeTakeFirstOrThrow()
        ).event.replace('"percentage_gain":5', '"percentage_gain":50'),
      })
      .where('user_id', '=', u.id)
      .where('seq', '=', 2)
      .execute();
    assert.ok(verifyUserRecord(await getRecord(u.id)).some((p) => p.includes('entry 2 was changed')));
    void b;
  });

  test('npm run verify-log checks an exported file and fails on a tampered one', async () => {
    const u = await registerAndLogin(t.app);
    await change(openBet(u.id), 'opened');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-'));
    const file = path.join(dir, 'record.json');
    const rec = await getRecord(u.id);
    fs.writeFileSync(file, JSON.stringify(rec));
    const run = () => execFileSync(process.execPath, ['--import', 'tsx', 'scripts/verify-log.ts', file], { encoding: 'utf8' });
    assert.match(run(), /^OK: user \d+, 1 entries/);
    rec.bets[0].entry_price = 1;
    fs.writeFileSync(file, JSON.stringify(rec));
    assert.throws(run, (err: { status: number; stdout: string }) => err.status === 1 && /entry_price is 1/.test(err.stdout));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('unknown user → 404; bad id → 400', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/record/user/999999999' })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/record/user/abc' })).statusCode, 400);
  });

  test('concurrent events of one user keep one unbroken chain', async () => {
    const u = await registerAndLogin(t.app);
    await Promise.all(Array.from({ length: 8 }, () => change(openBet(u.id), 'opened')));
    const rec = await getRecord(u.id);
    assert.equal(rec.entries.length, 8);
    assert.deepEqual(verifyUserRecord(rec), []);
  });

  test('concurrent opens, closes and cancels of one user through the API keep one unbroken chain (on PostgreSQL each reads the head in its lock statement, possibly before the lock was granted)', async () => {
    const u = await registerAndLogin(t.app);
    const call = (url: string, payload?: object) =>
      t.app.inject({ method: payload ? 'POST' : 'DELETE', url, headers: { cookie: u.cookie }, ...(payload ? { payload } : {}) });
    const opened = await Promise.all(Array.from({ length: 6 }, () => call('/bet/open', { ticker: 'AAPL', direction: 'LONG' })));
    for (const res of opened) assert.equal(res.statusCode, 200, res.body);
    const ids = opened.map((res) => res.json().bet_id as number);
    const ended = await Promise.all(ids.map((id, i) => (i % 2 === 0 ? call('/bet/close', { bet_id: id }) : call(`/bet/${id}`))));
    for (const res of ended) assert.equal(res.statusCode, 200, res.body);
    const rec = await getRecord(u.id);
    assert.deepEqual(
      rec.entries.map((e: { seq: number }) => e.seq),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    assert.deepEqual(verifyUserRecord(rec), []);
  });

  test('an append undone with its transaction leaves no trace for the next append, in the same commit or the next', async () => {
    const u = await registerAndLogin(t.app);
    await change(openBet(u.id), 'opened');
    // Queued together, so on SQLite they share one batch: the middle one appends, then fails.
    const failing = t.ctx.database.transaction(async (trx) => {
      const row = await trx.insertInto('bets').values(openBet(u.id)).returningAll().executeTakeFirstOrThrow();
      await t.ctx.events.emit(trx, 'betChanged', { kind: 'opened', bet: row, at: t.clock.now() });
      throw new Error('refused after the append');
    });
    const [before, undone, afterIt] = await Promise.allSettled([change(openBet(u.id), 'opened'), failing, change(openBet(u.id), 'opened')]);
    assert.equal(before.status, 'fulfilled');
    assert.equal(undone.status, 'rejected');
    assert.equal(afterIt.status, 'fulfilled');
    await change(openBet(u.id), 'opened');
    const rec = await getRecord(u.id);
    assert.deepEqual(
      rec.entries.map((e: { seq: number }) => e.seq),
      [1, 2, 3, 4],
    );
    assert.deepEqual(verifyUserRecord(rec), []);
  });
});
