// The commitment job's reads (src/jobs/commitments.ts), which run every
// second on every instance: what they return, and that each reads only what
// is pending (the few uncommitted bets, the ended leagues) through an index,
// never every open bet.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { CANCEL_WINDOW_MS } from '../../src/domain/bets.js';
import { listUncommittedBets, oldestPendingInstants } from '../../src/repositories/bets.js';
import * as m0037 from '../../src/db/migrations/0037_uncommitted_by_status.js';
import { tickersAtLeagueEnds } from '../../src/repositories/leagues.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { betRow } from '../helpers/bet-rows.js';
import { forEachDialect } from '../helpers/db.js';
import { capturedQueries, explain } from '../helpers/explain.js';
import { insertTestUser } from '../helpers/users.js';

const MIN = 60_000;
const DAY = 86_400_000;

forEachDialect('the commitment job reads', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const analyze = () => (dialect === 'postgres' ? sql`analyze`.execute(t.ctx.db) : sql`analyze`.execute(t.ctx.db));

  test('uncommitted bets past their window come through bets_uncommitted_idx, not a walk of the open bets', async () => {
    const id = await insertTestUser(t.ctx, `cr_${dialect}_${Date.now()}`);
    const now = t.clock.now();
    const due = now - CANCEL_WINDOW_MS - MIN;
    const rows = [
      // Open and committed: the common case, and what a walk of the open bets would read.
      ...Array.from({ length: 300 }, (_, i) => ({ ...betRow({ userId: id, openedAt: due - i * MIN }), committed_price: 100 })),
      betRow({ userId: id, openedAt: due }), // due
      betRow({ userId: id, openedAt: due - DAY }), // due long ago (a quote could not be had)
      betRow({ userId: id, openedAt: now - MIN }), // still inside its window
      { ...betRow({ userId: id, openedAt: due }), unranked_reason: 'settles_in_window' }, // never ranked
      betRow({ userId: id, openedAt: due, end: { status: 'CLOSED', at: now, exit: 101, gain: 1 } }), // finished
    ];
    const inserted = await t.ctx.db.insertInto('bets').values(rows).returning(['id']).execute();
    const ids = inserted.map((r) => r.id);
    await analyze();

    const got = await listUncommittedBets(t.ctx.db, now - CANCEL_WINDOW_MS, 0, 200);
    const mine = got.filter((b) => b.user_id === id).map((b) => b.id);
    assert.deepEqual(mine, [ids[300], ids[301]]);
    assert.deepEqual(
      (await listUncommittedBets(t.ctx.db, now - CANCEL_WINDOW_MS, ids[300]!, 200)).filter((b) => b.user_id === id).map((b) => b.id),
      [ids[301]],
      'paged by id',
    );
    const oldest = await oldestPendingInstants(t.ctx.db);
    assert.ok(oldest.opened !== null && oldest.opened <= due - DAY);

    const planOf = async (read: (db: typeof t.ctx.db) => Promise<unknown>) => {
      const [query] = await capturedQueries(t.ctx.db, read);
      return explain(t.database, query!, { noSeqScan: true });
    };
    const list = await planOf((db) => listUncommittedBets(db, now - CANCEL_WINDOW_MS, 0, 200));
    assert.match(
      list,
      dialect === 'sqlite' ? /SEARCH bets USING INDEX bets_uncommitted_idx \(status=\? AND opened_at<\?\)/ : /bets_uncommitted_idx/,
      list,
    );
    assert.doesNotMatch(list, /bets_open_settle_idx|Seq Scan on bets|\bSCAN bets\b/, list);
    // Its first part (the earliest uncommitted opening) through the same index; the second (the earliest settlement) a seek on bets_open_settle_idx, which holds only OPEN bets with a settlement time (migration 0041).
    const oldestPlan = await planOf((db) => oldestPendingInstants(db));
    assert.match(
      oldestPlan,
      dialect === 'sqlite' ? /SEARCH bets USING INDEX bets_uncommitted_idx \(status=\?\)/ : /bets_uncommitted_idx/,
      oldestPlan,
    );
    assert.match(oldestPlan, /bets_open_settle_idx/, oldestPlan);
    assert.doesNotMatch(oldestPlan, /Seq Scan on bets|\bSCAN bets\b/, oldestPlan);
  });

  test('league ends: none ended is one read of leagues; an ended one gives its members’ open bets’ tickers, starting from the league', async () => {
    const now = t.clock.now();
    const owner = await insertTestUser(t.ctx, `cl_${dialect}_${Date.now()}`);
    const other = await insertTestUser(t.ctx, `cm_${dialect}_${Date.now()}`);
    const league = (starts: number, ends: number, settled: number | null) =>
      t.ctx.db
        .insertInto('leagues')
        .values({
          owner_id: owner,
          name: 'Ends',
          description: '',
          visibility: 'private',
          invite_code: `c${Math.random().toString(36).slice(2, 12)}`,
          starts_at: starts,
          ends_at: ends,
          member_limit: 50,
          instruments: 'all',
          min_closed_bets: 0,
          scoring: 'gain',
          created_at: starts - DAY,
          start_noticed_at: null,
          standing_day: null,
          settled_at: settled,
          final_document: null,
          board_hash: null,
          record_day: null,
          record_leaf_idx: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();

    const running = await league(now - DAY, now + DAY, null);
    await t.ctx.db
      .insertInto('league_members')
      .values({ league_id: running.id, user_id: owner, joined_at: now - DAY, left_at: null })
      .execute();
    await t.ctx.db
      .insertInto('bets')
      .values(betRow({ userId: owner, ticker: 'MSFT', openedAt: now - MIN }))
      .execute();
    const quiet = await capturedQueries(t.ctx.db, (db) => tickersAtLeagueEnds(db, now, 200));
    assert.equal(quiet.length, 1, 'no ended league: the bets are not read');
    assert.match(await explain(t.database, quiet[0]!, { noSeqScan: true }), /leagues_ends_idx/);
    assert.deepEqual(await tickersAtLeagueEnds(t.ctx.db, now, 200), []);

    const ended = await league(now - 3 * DAY, now - MIN, null);
    const settled = await league(now - 3 * DAY, now - MIN, now);
    for (const l of [ended, settled]) {
      for (const u of [owner, other]) {
        await t.ctx.db
          .insertInto('league_members')
          .values({ league_id: l.id, user_id: u, joined_at: now - 3 * DAY, left_at: null })
          .execute();
      }
    }
    await t.ctx.db
      .insertInto('bets')
      .values([
        betRow({ userId: owner, ticker: 'AAPL', openedAt: now - DAY }), // in the league, open: its end needs a quote
        betRow({ userId: other, ticker: 'BTC-USD', openedAt: now - 2 * DAY }),
        betRow({ userId: other, ticker: 'BTC-USD', openedAt: now - DAY }), // the same ticker once
        betRow({ userId: other, ticker: 'NVDA', openedAt: now - 4 * DAY }), // opened before the league
        betRow({ userId: owner, ticker: 'TSLA', openedAt: now - DAY, end: { status: 'CLOSED', at: now - 2 * MIN, exit: 1, gain: 1 } }),
      ])
      .execute();
    await analyze();
    const got = await tickersAtLeagueEnds(t.ctx.db, now, 200);
    assert.deepEqual(
      got.map((r) => `${r.ticker}@${r.at}`).sort(),
      [`AAPL@${now - MIN}`, `BTC-USD@${now - MIN}`],
      'MSFT is held in a league still running, NVDA was opened before the start, TSLA is closed, and the settled league asks nothing',
    );
    const queries = await capturedQueries(t.ctx.db, (db) => tickersAtLeagueEnds(db, now, 200));
    assert.equal(queries.length, 2);
    const plan = await explain(t.database, queries[1]!, { noSeqScan: true });
    if (dialect === 'sqlite') assert.match(plan.split('\n')[0]!, /^SEARCH l USING (INTEGER PRIMARY KEY|INDEX)/, plan);
    assert.doesNotMatch(plan, /bets_open_settle_idx|Seq Scan on bets|\bSCAN b\b/, plan);
  });

  test('migration 0037: down gives back 0022’s index on opened_at, up keys it by status again', async () => {
    const definition = async () => {
      if (dialect === 'sqlite') {
        const row = t.database.sqlite!.prepare("select sql from sqlite_master where name = 'bets_uncommitted_idx'").get() as { sql: string };
        return row.sql;
      }
      const { rows } = await sql<{
        indexdef: string;
      }>`select indexdef from pg_indexes where schemaname = current_schema() and indexname = 'bets_uncommitted_idx'`.execute(t.ctx.db);
      return rows[0]!.indexdef;
    };
    const db = t.ctx.db as unknown as Parameters<typeof m0037.down>[0];
    assert.match(await definition(), /\("?status"?, "?opened_at"?\)/);
    await m0037.down(db);
    assert.match(await definition(), /\("?opened_at"?\) where \(*"?status"?\)?(::text)? = 'OPEN'/i);
    await m0037.up(db);
    assert.match(await definition(), /\("?status"?, "?opened_at"?\) where \(?\(?"?committed_price"? is null/i);
  });
});
