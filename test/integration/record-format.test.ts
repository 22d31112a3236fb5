// The record's format change, end to end (docs/record.md): a bet opened,
// committed by the commitments job once its window has passed, and closed
// leaves opened, committed and closed entries with their new fields; a late
// settlement is dated when appended, its event at its due instant; a chain
// holding entries of the first format (written with that format's encoding)
// followed by new ones verifies with npm run verify-log and the browser check.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { committedInstant, percentageGain } from '../../src/domain/bets.js';
import type { RecordEvent } from '../../src/domain/record.js';
import { verifyUserRecord } from '../../src/domain/verify-record.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { settleDue } from '../../src/jobs/settlement.js';
import { findBetById } from '../../src/repositories/bets.js';
import type { UserRecord } from '../../src/schemas/record.js';
import { checkBetRecord } from '../../web/src/lib/record-proof.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const iso = (ms: number) => new Date(ms).toISOString();

forEachDialect('verifiable record: the format change', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 50, baseFollows: 5 } } });
  });
  after(() => t.close());

  async function open(user: TestUser, body: Record<string, unknown>): Promise<number> {
    const res = await t.app.inject({ method: 'POST', url: '/bet/open', payload: body, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }
  async function getRecord(userId: number): Promise<UserRecord> {
    const res = await t.app.inject({ method: 'GET', url: `/record/user/${userId}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  const storedEvents = async (userId: number) =>
    (await t.ctx.db.selectFrom('record_entries').select(['seq', 'at', 'event']).where('user_id', '=', userId).orderBy('seq').execute()).map((r) => ({
      at: r.at,
      json: r.event,
      event: JSON.parse(r.event) as RecordEvent,
    }));

  test('open, commit after the window, close: opened, committed and closed entries with their fields, and the chain verifies', async () => {
    t.clock.set('2026-03-04T10:00:00Z');
    prices.set('BTC-USD', 50_000);
    const u = await registerAndLogin(t.app);
    const opened = t.clock.now();
    const id = await open(u, { ticker: 'BTC-USD', direction: 'LONG' });

    t.clock.advance(60_000);
    prices.set('BTC-USD', 51_000);
    t.clock.set(committedInstant(opened) + 2_000);
    const result = await commitDueBets(t.ctx, quiet);
    assert.ok(result.committed >= 1, JSON.stringify(result));
    const committedAt = t.clock.now();
    const bet = (await findBetById(t.ctx.db, id))!;
    assert.equal(bet.committed_price, 51_000);

    t.clock.advance(3_600_000);
    prices.set('BTC-USD', 52_000);
    const closedAt = t.clock.now();
    const res = await t.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: id }, headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200, res.body);

    const rec = await getRecord(u.id);
    assert.deepEqual(verifyUserRecord(rec), []);
    const [o, c, x] = rec.entries.map((e) => e.event);
    assert.deepEqual(
      rec.entries.map((e) => e.event.kind),
      ['opened', 'committed', 'closed'],
    );
    assert.deepEqual([o.at, o.event_at], [iso(opened), iso(opened)]);
    assert.equal(o.committed_price, undefined, 'a null new field is left out');
    assert.equal(o.close_reason, undefined);
    assert.equal(o.thesis_hash, undefined);

    assert.equal(c.status, 'OPEN', 'a commitment changes no status');
    assert.equal(c.at, iso(committedAt));
    assert.equal(c.event_at, iso(committedInstant(opened)));
    assert.equal(c.committed_price, 51_000);
    assert.equal(c.benchmark_committed, bet.benchmark_committed ?? undefined);
    assert.equal(c.ranked_gain, undefined);

    assert.equal(x.status, 'CLOSED');
    assert.deepEqual([x.at, x.event_at], [iso(closedAt), iso(closedAt)]);
    assert.equal(x.close_reason, 'manual');
    assert.equal(x.exit_price, 52_000);
    assert.equal(x.committed_price, 51_000);
    assert.equal(x.ranked_gain, percentageGain('LONG', 51_000, 52_000));
    assert.equal(x.thesis_hash, undefined);

    // The stored bytes leave null new fields out, and are what was hashed.
    const stored = await storedEvents(u.id);
    for (const s of stored) assert.doesNotMatch(s.json, /"(event_at|committed_price|benchmark_committed|close_reason|thesis_hash|ranked_gain)":null/);
    assert.match(stored[0].json, /"exit_price":null/, "the first format's nulls stay");
    assert.deepEqual(
      stored.map((s) => s.at),
      [opened, committedAt, closedAt],
    );

    // Through the browser's check as well.
    const check = await checkBetRecord(rec as Parameters<typeof checkBetRecord>[0], id);
    assert.deepEqual(check.problems, []);
    assert.deepEqual(check.betMismatch, []);

    // Someone edits the bet's ranked gain in the database: the closed entry says otherwise.
    await t.ctx.db.updateTable('bets').set({ ranked_gain: 50 }).where('id', '=', id).execute();
    const problems = verifyUserRecord(await getRecord(u.id));
    assert.ok(
      problems.some((p) => p.startsWith(`bet ${id}: ranked_gain is 50 but the record says`)),
      problems.join('\n'),
    );
  });

  test('a settlement run late: dated when appended, its event at the due instant; dates rise with sequence numbers', async () => {
    t.clock.set('2026-03-05T20:00:00Z');
    prices.set('BTC-USD', 50_000);
    const u = await registerAndLogin(t.app);
    const id = await open(u, { ticker: 'BTC-USD', direction: 'SHORT', target_date: '2026-03-05' });
    const due = Date.parse('2026-03-06T00:00:00Z');
    assert.equal((await findBetById(t.ctx.db, id))?.settle_at, due);
    // Neither the commitments job nor settlement ran until ten minutes after the due instant.
    t.clock.set(due + 600_000);
    prices.set('BTC-USD', 49_000);
    const result = await settleDue(t.ctx, quiet);
    assert.ok(result.settled >= 1, JSON.stringify(result));
    const appended = t.clock.now();

    const rec = await getRecord(u.id);
    assert.deepEqual(verifyUserRecord(rec), []);
    assert.deepEqual(
      rec.entries.map((e) => e.event.kind),
      ['opened', 'committed', 'settled'],
    );
    const [, c, s] = rec.entries.map((e) => e.event);
    assert.equal(c.event_at, iso(committedInstant(Date.parse('2026-03-05T20:00:00Z'))));
    assert.equal(c.at, iso(appended));
    assert.equal(s.at, iso(appended), 'dated when appended');
    assert.equal(s.event_at, iso(due), 'the event at its due instant');
    assert.equal(s.close_reason, 'target_date');
    assert.equal(s.status, 'CLOSED');
    assert.notEqual(s.ranked_gain, undefined);
    const ats = (await storedEvents(u.id)).map((e) => e.at);
    assert.deepEqual(
      ats,
      [...ats].sort((a, b) => a - b),
    );
  });

  test('old-format entries, then new ones, in one chain: verify-log, the service and the browser verify it; a changed new field fails', async () => {
    t.clock.set('2026-03-07T12:00:00Z');
    prices.set('MSFT', 400);
    const u = await registerAndLogin(t.app);
    // A bet recorded under the first format: its row, and its entries written with that format's encoding.
    const oldOpened = Date.parse('2026-03-01T15:00:00Z');
    const oldClosed = Date.parse('2026-03-01T16:00:00Z');
    const old = await t.ctx.db
      .insertInto('bets')
      .values({
        user_id: u.id,
        ticker: 'AAPL',
        direction: 'LONG',
        status: 'CLOSED',
        entry_price: 100,
        exit_price: 110,
        percentage_gain: 10,
        target_date: null,
        settle_at: null,
        opened_at: oldOpened,
        closed_at: oldClosed,
        last_event_at: oldClosed,
        close_reason: 'user',
        source_bet_id: null,
        source_kind: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const base = { user_id: u.id, bet_id: old.id, ticker: 'AAPL', direction: 'LONG', entry_price: 100, target_date: null };
    const oldEvents = [
      { ...base, seq: 1, kind: 'opened', at: iso(oldOpened), status: 'OPEN', exit_price: null, percentage_gain: null },
      { ...base, seq: 2, kind: 'closed', at: iso(oldClosed), status: 'CLOSED', exit_price: 110, percentage_gain: 10 },
    ];
    let prev = '0'.repeat(64);
    for (const [i, e] of oldEvents.entries()) {
      const json = JSON.stringify(Object.fromEntries(Object.entries(e).sort(([a], [b]) => (a < b ? -1 : 1))));
      const hash = createHash('sha256').update(prev).update('\n').update(json).digest('hex');
      await t.ctx.db
        .insertInto('record_entries')
        .values({ user_id: u.id, seq: e.seq, bet_id: old.id, kind: e.kind, at: i === 0 ? oldOpened : oldClosed, event: json, prev_hash: prev, hash })
        .execute();
      prev = hash;
    }
    // New entries follow, from the service.
    const opened = t.clock.now();
    const id = await open(u, { ticker: 'MSFT', direction: 'SHORT' });
    t.clock.set(committedInstant(opened) + 1_000);
    await commitDueBets(t.ctx, quiet);

    const rec = await getRecord(u.id);
    assert.deepEqual(
      rec.entries.map((e) => [e.seq, e.event.kind, e.event.event_at ?? null]),
      [
        [1, 'opened', null],
        [2, 'closed', null],
        [3, 'opened', iso(opened)],
        [4, 'committed', iso(committedInstant(opened))],
      ],
    );
    assert.equal(rec.entries[2].prev_hash, prev, 'the first new entry links to the old head');
    assert.deepEqual(verifyUserRecord(rec), []);
    for (const betId of [old.id, id])
      assert.deepEqual((await checkBetRecord(rec as Parameters<typeof checkBetRecord>[0], betId)).problems, [], `bet ${betId}`);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-format-'));
    const file = path.join(dir, 'record.json');
    const run = () => execFileSync(process.execPath, ['--import', 'tsx', 'scripts/verify-log.ts', file], { encoding: 'utf8' });
    try {
      fs.writeFileSync(file, JSON.stringify(rec));
      assert.match(run(), /^OK: user \d+, 4 entries, 2 bets/);
      // The same record with the new entries' null fields written out verifies too.
      const withNulls = structuredClone(rec);
      for (const e of withNulls.entries.slice(2)) e.event = { ...e.event, close_reason: null, thesis_hash: null, ranked_gain: null };
      fs.writeFileSync(file, JSON.stringify(withNulls));
      assert.match(run(), /^OK: user \d+, 4 entries/);
      // A changed committed price does not.
      const changed = structuredClone(rec);
      changed.entries[3].event.committed_price = 1;
      fs.writeFileSync(file, JSON.stringify(changed));
      assert.throws(run, (err: { status: number; stdout: string }) => err.status === 1 && /entry 4 was changed/.test(err.stdout));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
