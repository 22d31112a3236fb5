// Finished bets' stored views (migration 0040, docs/performance.md), on both
// dialects: every way a bet finishes stores the view of its own columns, byte
// for byte what the answers' serializer writes; /history sends the views as
// they are, with theses added, and its answer is what its schema says; a
// thesis cannot break out of its item; a page is one statement (two with
// theses on it); the migration writes the views of the bets finished before it.
import assert from 'node:assert/strict';
import { brotliDecompressSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fillFinishedViews } from '../../src/db/migrations/0040_finished_bet_views.js';
import type { BetRow } from '../../src/db/tables.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { settlementJob } from '../../src/jobs/settlement.js';
import { ClosedBetSchema } from '../../src/schemas/bets.js';
import { finishedView, toClosedBet } from '../../src/schemas/finished-bet-view.js';
import { FeedItemSchema } from '../../src/schemas/social.js';
import { toBetView } from '../../src/services/bet-views.js';
import { historyJson } from '../../src/services/bets.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { betRow } from '../helpers/bet-rows.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase } from '../helpers/db.js';
import { capturedQueries, explain } from '../helpers/explain.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
/** The route's answer schema, checked with its formats (date-time too): the answer is no longer made by its serializer. */
const formats = addFormats(new Ajv({ strict: false, allErrors: true }));
const isHistory = formats.compile(Type.Array(ClosedBetSchema));
const isFeed = formats.compile(Type.Array(FeedItemSchema));
/** Quotes, backslashes and what would close the item and open another, if a thesis were pasted in unescaped. */
const HOSTILE = 'he said "buy" \\ then "},{"id":1,"ticker":"X" and </script>';

forEachDialect('finished bets: stored views', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { capacities: { baseBets: 50, baseFollows: 5 } } });
  });
  after(() => t.close());

  const post = (user: TestUser, url: string, payload: object) => t.app.inject({ method: 'POST', url, payload, headers: { cookie: user.cookie } });
  const open = async (user: TestUser, body: object) => {
    const res = await post(user, '/bet/open', body);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id as number;
  };
  const rowsOf = (userId: number): Promise<BetRow[]> => t.ctx.db.selectFrom('bets').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  test('a close, a cancel and a settlement each store the view of the finished columns; an open bet has none', async () => {
    t.clock.set('2026-05-04T12:00:00Z');
    prices.set('AAPL', 187.35000000000002);
    const u = await registerAndLogin(t.app);
    const cancelled = await open(u, { ticker: 'AAPL', direction: 'SHORT' });
    const closed = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    const settled = await open(u, { ticker: 'AAPL', direction: 'LONG', target_date: '2026-05-04' });
    const stillOpen = await open(u, { ticker: 'AAPL', direction: 'LONG' });
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/bet/${cancelled}`, headers: { cookie: u.cookie } })).statusCode, 200);
    t.clock.set('2026-05-04T12:30:00Z');
    prices.set('AAPL', 190.1);
    assert.equal((await post(u, '/bet/close', { bet_id: closed })).statusCode, 200);
    t.clock.set('2026-05-05T00:10:00Z');
    await new PeriodicJob(settlementJob(t.ctx, quiet)).runOnce();

    const rows = await rowsOf(u.id);
    assert.deepEqual(
      rows.map((r) => [r.id, r.status]),
      [
        [cancelled, 'CANCELLED'],
        [closed, 'CLOSED'],
        [settled, 'CLOSED'],
        [stillOpen, 'OPEN'],
      ],
    );
    for (const row of rows) {
      if (row.status === 'OPEN') {
        assert.equal(row.view_json, null);
        continue;
      }
      assert.equal(row.view_json, finishedView(row), `bet ${row.id}`);
      assert.deepEqual(JSON.parse(row.view_json!), toClosedBet(row));
    }
    const reasons = rows.filter((r) => r.view_json !== null).map((r) => JSON.parse(r.view_json!).close_reason);
    assert.deepEqual(reasons, ['cancel', 'manual', 'target_date']);
  });

  test('/history sends each stored view with its thesis added as the viewer may see it; the answer is its schema, compressed or not', async () => {
    t.clock.set('2026-05-06T12:00:00Z');
    prices.set('MSFT', 400);
    const u = await registerAndLogin(t.app);
    const ids = [
      await open(u, { ticker: 'MSFT', direction: 'LONG', thesis: HOSTILE }),
      await open(u, { ticker: 'MSFT', direction: 'SHORT' }),
      await open(u, { ticker: 'MSFT', direction: 'LONG', thesis: 'hidden later' }),
    ];
    // Enough more for an answer worth compressing.
    for (let i = 0; i < 6; i++) ids.push(await open(u, { ticker: 'MSFT', direction: i % 2 ? 'LONG' : 'SHORT' }));
    t.clock.set('2026-05-06T12:10:00Z');
    for (const id of ids) assert.equal((await post(u, '/bet/close', { bet_id: id })).statusCode, 200);
    assert.equal((await post(u, `/bet/${ids[2]}/thesis/hide`, {})).statusCode, 200);

    const res = await t.app.inject({ method: 'GET', url: '/history', headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    const body: unknown[] = res.json();
    assert.ok(isHistory(body), JSON.stringify(isHistory.errors));
    const rows = await rowsOf(u.id);
    const theses = await t.ctx.db.selectFrom('bet_theses').select(['bet_id', 'salt']).where('user_id', '=', u.id).execute();
    const saltOf = (id: number) => theses.find((r) => Number(r.bet_id) === id)!.salt;
    const expected = rows.map(toClosedBet).reverse();
    const view = (id: number) => expected.find((b) => b.id === id)!;
    Object.assign(view(ids[0]!), { thesis: HOSTILE, thesis_salt: saltOf(ids[0]!), thesis_state: 'shown' });
    Object.assign(view(ids[2]!), { thesis: null, thesis_salt: null, thesis_state: 'hidden' });
    assert.equal(body.length, 9);
    assert.deepEqual(body, expected);

    const br = await t.app.inject({ method: 'GET', url: '/history', headers: { cookie: u.cookie, 'accept-encoding': 'br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), res.body);

    // A visitor sees the same views through the public profile.
    const profile = await t.app.inject({ method: 'GET', url: `/user/${u.id}/public` });
    assert.deepEqual(profile.json().history, expected);
    // Another user's session never reads this history.
    const other = await registerAndLogin(t.app);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/history', headers: { cookie: other.cookie } })).json(), []);
    assert.equal((await t.app.inject({ method: 'GET', url: '/history' })).statusCode, 401);
  });

  test('/feed sends a finished bet as its stored view and an OPEN one marked to market, each with its owner and thesis; the answer is its schema', async () => {
    t.clock.set('2026-05-08T12:00:00Z');
    prices.set('AMD', 150);
    prices.set('IBM', 210.5);
    const trader = await registerAndLogin(t.app);
    const other = await registerAndLogin(t.app);
    const ids = [
      await open(trader, { ticker: 'AMD', direction: 'LONG', thesis: HOSTILE }),
      await open(trader, { ticker: 'AMD', direction: 'SHORT', thesis: 'hidden later' }),
      await open(trader, { ticker: 'IBM', direction: 'SHORT' }),
      await open(other, { ticker: 'IBM', direction: 'LONG', thesis: 'still open' }),
      await open(other, { ticker: 'AMD', direction: 'LONG' }),
      await open(trader, { ticker: 'AMD', direction: 'LONG' }),
    ];
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/bet/${ids[5]}`, headers: { cookie: trader.cookie } })).statusCode, 200);
    t.clock.set('2026-05-08T12:10:00Z');
    prices.set('AMD', 151.25);
    prices.set('IBM', 209.75);
    for (const id of ids.slice(0, 3)) assert.equal((await post(trader, '/bet/close', { bet_id: id })).statusCode, 200);
    assert.equal((await post(trader, `/bet/${ids[1]}/thesis/hide`, {})).statusCode, 200);
    t.clock.set('2026-05-08T12:20:00Z');
    prices.set('IBM', 212);

    const me = await registerAndLogin(t.app);
    for (const u of [trader, other]) assert.equal((await post(me, '/follow', { followed_id: u.id, action: 'follow' })).statusCode, 200);
    const res = await t.app.inject({ method: 'GET', url: '/feed', headers: { cookie: me.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    const body: unknown[] = res.json();
    assert.ok(isFeed(body), JSON.stringify(isFeed.errors));

    const rows = [...(await rowsOf(trader.id)), ...(await rowsOf(other.id))].sort((a, b) => b.last_event_at - a.last_event_at || b.id - a.id);
    const theses = await t.ctx.db.selectFrom('bet_theses').select(['bet_id', 'salt']).where('bet_id', 'in', ids).execute();
    const saltOf = (id: number) => theses.find((r) => Number(r.bet_id) === id)!.salt;
    const now = t.clock.now();
    const expected: Record<string, unknown>[] = rows.map((r) => ({
      ...toBetView(r, r.status === 'OPEN' ? 212 : undefined, now),
      user_id: r.user_id,
      username: r.user_id === trader.id ? trader.username : other.username,
    }));
    const item = (id: number) => expected.find((b) => b.id === id)!;
    Object.assign(item(ids[0]!), { thesis: HOSTILE, thesis_salt: saltOf(ids[0]!), thesis_state: 'shown' });
    Object.assign(item(ids[1]!), { thesis: null, thesis_salt: null, thesis_state: 'hidden' });
    Object.assign(item(ids[3]!), { thesis: 'still open', thesis_salt: saltOf(ids[3]!), thesis_state: 'shown' });
    // The OPEN bets: IBM at its mark now, AMD at its mark too (151.25).
    item(ids[4]!).exit_price = 151.25;
    item(ids[4]!).percentage_gain = toBetView(rows.find((r) => r.id === ids[4])!, 151.25, now).percentage_gain;
    assert.equal(body.length, 6);
    assert.deepEqual(body, expected);
    assert.equal(item(ids[3]!).exit_date, '2026-05-08T12:20:00.000Z');
    assert.equal(item(ids[3]!).exit_price, 212);

    const br = await t.app.inject({ method: 'GET', url: '/feed?limit=3&offset=1', headers: { cookie: me.cookie, 'accept-encoding': 'br' } });
    assert.deepEqual(
      JSON.parse(br.headers['content-encoding'] === 'br' ? brotliDecompressSync(br.rawPayload).toString() : br.body),
      expected.slice(1, 4),
    );
    // A user following nobody sees nothing of it; no session, no feed.
    const stranger = await registerAndLogin(t.app);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/feed', headers: { cookie: stranger.cookie } })).json(), []);
    assert.equal((await t.app.inject({ method: 'GET', url: '/feed' })).statusCode, 401);
  });

  test("a page is one statement through the history's index; a page holding theses one more, by primary key", async () => {
    t.clock.set('2026-05-07T12:00:00Z');
    prices.set('NVDA', 900);
    const plain = await registerAndLogin(t.app);
    const reasoned = await registerAndLogin(t.app);
    for (const u of [plain, reasoned]) {
      const ids = [await open(u, { ticker: 'NVDA', direction: 'LONG' }), await open(u, { ticker: 'NVDA', direction: 'SHORT', thesis: 'why not' })];
      if (u === plain) await t.ctx.db.deleteFrom('bet_theses').where('bet_id', '=', ids[1]!).execute();
      for (const id of ids) assert.equal((await post(u, '/bet/close', { bet_id: id })).statusCode, 200);
    }
    const statementsOf = (u: TestUser) => capturedQueries(t.ctx.db, (db) => historyJson({ ...t.ctx, db }, u.id, 100, 0));
    assert.equal((await statementsOf(plain)).length, 1);
    const queries = await statementsOf(reasoned);
    assert.equal(queries.length, 2);
    for (const q of queries) {
      const plan = await explain(t.database, q, { noSeqScan: true });
      assert.doesNotMatch(plan, /Seq Scan|\bSCAN (bets|t)\b/, plan);
    }
    assert.match(await explain(t.database, queries[0]!, { noSeqScan: true }), /bets_user_history_idx/);
  });

  test('migration 0040 writes the views of the bets finished before it, and none for open ones', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0039_open_bets_by_owner');
      const { db, insertUser } = migrationFixture(handle);
      const a = await insertUser('views_a');
      const b = await insertUser('views_b');
      const row = (userId: number, end?: { status: 'CLOSED' | 'CANCELLED'; at: number }) => {
        const { view_json: _, ...r } = betRow({
          userId,
          openedAt: 1_000,
          entry: 123.45,
          ...(end ? { end: { ...end, exit: 130.1, gain: 5.38 } } : {}),
        });
        return r;
      };
      await db
        .insertInto('bets')
        .values([
          row(a, { status: 'CLOSED', at: 5_000 }),
          row(b),
          row(b, { status: 'CANCELLED', at: 2_000 }),
          row(a, { status: 'CLOSED', at: 9_000 }),
        ])
        .execute();
      await migrateTestDatabaseTo(handle, '0040_finished_bet_views');
      const rows = (await db.selectFrom('bets').selectAll().orderBy('id').execute()) as unknown as BetRow[];
      assert.equal(rows.length, 4);
      for (const r of rows) {
        const bet = { ...r, id: Number(r.id), opened_at: Number(r.opened_at), closed_at: r.closed_at === null ? null : Number(r.closed_at) };
        assert.equal(r.view_json, bet.closed_at === null ? null : finishedView(bet), `bet ${r.id}`);
      }
      // Run again (rows written straight into the table later): only the rows without a view are written.
      await fillFinishedViews(handle.db);
      assert.deepEqual(
        (await db.selectFrom('bets').select('view_json').orderBy('id').execute()).map((r) => r.view_json),
        rows.map((r) => r.view_json),
      );
    } finally {
      await handle.close();
    }
  });
});
