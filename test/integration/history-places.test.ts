// A finished bet's place in its owner's history (migration 0033): given in the
// finishing transaction, in exit order even when a settlement is recorded
// after a later close; pages at any offset are slices of the whole history;
// the migration numbers existing rows; a deep page is one index seek.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { chunk } from '../../src/domain/feed.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { settlementJob } from '../../src/jobs/settlement.js';
import { listFinishedBets, renumberHistory } from '../../src/repositories/bets.js';
import { fillFinishedViews } from '../../src/db/migrations/0040_finished_bet_views.js';
import { iso } from '../../src/services/bet-views.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { betRow, insertTestBets } from '../helpers/bet-rows.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';
import { capturedQueries, explain } from '../helpers/explain.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { insertTestUser } from '../helpers/users.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const MIN = 60_000;

forEachDialect('history places', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 50, baseFollows: 5 } } });
  });
  after(() => t.close());

  const places = async (userId: number) =>
    t.ctx.db
      .selectFrom('bets')
      .select(['id', 'closed_at', 'history_pos'])
      .where('user_id', '=', userId)
      .where('closed_at', 'is not', null)
      .orderBy('closed_at')
      .orderBy('id')
      .execute();
  /** Places are 1..n in (exit, id) order: the invariant every page relies on. */
  const assertPlaced = async (userId: number) => {
    const rows = await places(userId);
    assert.deepEqual(
      rows.map((r) => Number(r.history_pos)),
      rows.map((_, i) => i + 1),
      JSON.stringify(rows),
    );
    return rows;
  };
  const post = (user: TestUser, url: string, payload: object) => t.app.inject({ method: 'POST', url, payload, headers: { cookie: user.cookie } });

  test('a settlement recorded after a later close is placed before it, at its due instant; the history shows exit order', async () => {
    t.clock.set('2026-03-02T12:00:00Z');
    const u = await registerAndLogin(t.app);
    const open = async (body: object) => {
      const res = await post(u, '/bet/open', body);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().bet_id as number;
    };
    const due = await open({ ticker: 'BTC-USD', direction: 'LONG', target_date: '2026-03-02' });
    const closedFirst = await open({ ticker: 'BTC-USD', direction: 'LONG' });
    const closedLast = await open({ ticker: 'BTC-USD', direction: 'SHORT' });
    // Due at 00:00 UTC; the settlement pass runs ten minutes late, after a close at 00:05.
    t.clock.set('2026-03-03T00:05:00Z');
    assert.equal((await post(u, '/bet/close', { bet_id: closedFirst })).statusCode, 200);
    t.clock.set('2026-03-03T00:10:00Z');
    await new PeriodicJob(settlementJob(t.ctx, quiet)).runOnce();
    t.clock.set('2026-03-03T00:15:00Z');
    assert.equal((await post(u, '/bet/close', { bet_id: closedLast })).statusCode, 200);

    const rows = await assertPlaced(u.id);
    assert.deepEqual(
      rows.map((r) => r.id),
      [due, closedFirst, closedLast],
    );
    assert.equal(Number(rows[0]!.closed_at), Date.parse('2026-03-03T00:00:00Z'));
    const history = await t.app.inject({ method: 'GET', url: '/history', headers: { cookie: u.cookie } });
    assert.deepEqual(
      history.json().map((b: { id: number }) => b.id),
      [closedLast, closedFirst, due],
    );
    const second = await t.app.inject({ method: 'GET', url: '/history?limit=1&offset=1', headers: { cookie: u.cookie } });
    assert.deepEqual(
      second.json().map((b: { id: number }) => b.id),
      [closedFirst],
    );
  });

  test('a cancel takes the next place; closes of one owner racing each other take distinct places', async () => {
    t.clock.set('2026-04-01T12:00:00Z');
    const u = await registerAndLogin(t.app);
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await post(u, '/bet/open', { ticker: i % 2 ? 'AAPL' : 'MSFT', direction: 'LONG' });
      assert.equal(res.statusCode, 200, res.body);
      ids.push(res.json().bet_id);
    }
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/bet/${ids[0]}`, headers: { cookie: u.cookie } })).statusCode, 200);
    t.clock.set('2026-04-01T12:30:00Z');
    const closes = await Promise.all(ids.slice(1).map((id) => post(u, '/bet/close', { bet_id: id })));
    for (const res of closes) assert.equal(res.statusCode, 200, res.body);
    const rows = await assertPlaced(u.id);
    assert.equal(rows[0]!.id, ids[0]);
    assert.equal(rows.length, 12);
  });

  test('every page of /user/{id}/public and /history is the slice of the whole history, newest exit first, ties by id', async () => {
    const id = await insertTestUser(t.ctx, `hp_${dialect}_${Date.now()}`);
    const now = t.clock.now();
    // 57 finished bets with repeated exit instants, inserted out of order.
    const specs = Array.from({ length: 57 }, (_, i) => {
      const at = now - ((i * 37) % 19) * MIN;
      return { userId: id, openedAt: at - 10 * MIN, end: { status: i % 5 === 0 ? ('CANCELLED' as const) : ('CLOSED' as const), at } };
    });
    const rows = await insertTestBets(t.ctx, specs);
    await assertPlaced(id);
    const newestFirst = rows
      .filter((r) => r.closed_at !== null)
      .sort((a, b) => Number(b.closed_at) - Number(a.closed_at) || b.id - a.id)
      .map((r) => r.id);
    for (const limit of [1, 7, 20, 500]) {
      for (const offset of [0, 1, 6, 20, 50, 56, 57, 100]) {
        const res = await t.app.inject({ method: 'GET', url: `/user/${id}/public?limit=${limit}&offset=${offset}` });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.history_total, 57);
        assert.deepEqual(
          body.history.map((b: { id: number }) => b.id),
          newestFirst.slice(offset, offset + limit),
          `limit ${limit} offset ${offset}`,
        );
      }
    }
  });

  test('a user with no finished bet: an empty page and a total of 0 at any offset', async () => {
    const id = await insertTestUser(t.ctx, `hp0_${dialect}_${Date.now()}`);
    await insertTestBets(t.ctx, [{ userId: id, openedAt: t.clock.now() }]);
    assert.deepEqual(await listFinishedBets(t.ctx.db, id, 100, 0), []);
    const res = await t.app.inject({ method: 'GET', url: `/user/${id}/public?offset=3` });
    assert.equal(res.json().history_total, 0);
    assert.deepEqual(res.json().history, []);
  });

  test('a page at offset 10,000 is one seek on bets_user_history_idx, as at offset 0; the size is a seek too', async () => {
    const id = await insertTestUser(t.ctx, `hpd_${dialect}_${Date.now()}`);
    const now = t.clock.now();
    const bets = Array.from({ length: 12_000 }, (_, i) =>
      betRow({ userId: id, openedAt: now - (i + 1) * MIN, end: { status: 'CLOSED', at: now - i * MIN, exit: 101, gain: 1 } }),
    );
    for (const part of chunk(bets, 500)) await t.ctx.db.insertInto('bets').values(part).execute();
    await renumberHistory(t.ctx.db, [id]);
    await fillFinishedViews(t.ctx.db, [id]);
    if (dialect === 'postgres') await sql`analyze bets`.execute(t.ctx.db);
    else await sql`analyze`.execute(t.ctx.db);
    const page = await listFinishedBets(t.ctx.db, id, 100, 10_000);
    assert.equal(page.length, 100);
    assert.equal(JSON.parse(page[0]!).exit_date, iso(now - 10_000 * MIN));
    for (const offset of [0, 10_000]) {
      const [query] = await capturedQueries(t.ctx.db, (db) => listFinishedBets(db, id, 100, offset));
      const plan = await explain(t.database, query!, { noSeqScan: true });
      assert.doesNotMatch(plan, /bets_user_closed_idx|Seq Scan|\bSCAN bets\b/, plan);
      if (dialect === 'sqlite') {
        assert.match(plan, /SEARCH bets USING INDEX bets_user_history_idx \(user_id=\? AND history_pos>\? AND history_pos<\?\)/, plan);
        assert.match(plan, /SEARCH bets USING COVERING INDEX bets_user_history_idx \(user_id=\?( AND history_pos>\?)?\)/, plan);
      } else {
        assert.match(plan, /Index (Only )?Scan( Backward)? using bets_user_history_idx/, plan);
      }
    }
  });

  test('migration 0033 numbers the finished bets already there, per user, in exit order', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0026_commitment_backfill');
      const { db, insertUser } = migrationFixture(handle);
      const a = await insertUser('hist_a');
      const b = await insertUser('hist_b');
      const row = (userId: number, at: number | null) => {
        const { history_pos: _, ...r } = betRow(
          at === null ? { userId, openedAt: 1_000 } : { userId, openedAt: 1_000, end: { status: 'CLOSED', at, exit: 101, gain: 1 } },
        ) as ReturnType<typeof betRow> & { history_pos?: unknown };
        return r;
      };
      await db
        .insertInto('bets')
        .values([row(a, 5_000), row(b, 2_000), row(a, 3_000), row(a, null), row(a, 3_000), row(b, 9_000)])
        .execute();
      await migrateTestDatabaseTo(handle, '0033_history_positions');
      const rows = await db.selectFrom('bets').select(['id', 'user_id', 'closed_at', 'history_pos']).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => (r.history_pos === null ? null : Number(r.history_pos))),
        [3, 1, 1, null, 2, 2],
      );
    } finally {
      await handle.close();
    }
  });
});
