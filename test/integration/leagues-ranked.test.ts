// Leagues keep their word (docs/leagues.md, issue 33): one set of bets scored
// by a version-2 league (ranked gains: committed price to exit, only bets
// committed by the end) and by a version-1 league with the same window and
// members (raw gains, as every league started before migration 0024). The
// injected clock moves bets past their cancel windows; the commitment job
// (commitDueBets) records committed prices as it does every second.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { computeBoard } from '../../src/domain/leagues.js';
import { verifyLeagueProof } from '../../src/domain/league-record.js';
import { verifyUserRecord } from '../../src/domain/verify-record.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import type { LeagueProof } from '../../src/schemas/leagues.js';
import type { UserRecord } from '../../src/schemas/record.js';
import { runLeagueSteps } from '../../src/services/league-notices.js';
import { publishYesterday } from '../../src/services/record.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { DAY, HOUR, leagueApi } from '../helpers/leagues.js';
import { FakePriceProvider } from '../helpers/prices.js';

const MIN = 60_000;
const quiet = { info() {}, warn() {}, error() {} };
const near = (a: number | null, b: number, what: string) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

interface Row {
  user: { id: number };
  rank: number | null;
  score: number | null;
  trades: number;
  marked: number;
  cancels: number;
  early_closes?: number;
}

forEachDialect('leagues: scoring versions', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 100, MSFT: 400, SPY: 500 });
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices }, config: { leagueLimit: 5 } });
  });
  after(() => t.close());
  const ranked = leagueApi(() => t);
  const raw = leagueApi(() => t, { scoringVersion: 1 });
  const { call, join, open, close, board } = ranked;
  const setPrice = (ticker: string, price: number) => {
    prices.set(ticker, price);
    t.clock.advance(10_000);
  };
  const rowOf = (b: { rows: Row[] }, id: number) => b.rows.find((r) => r.user.id === id)!;
  const betRow = (id: number) => t.ctx.db.selectFrom('bets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('version 2 scores committed price to exit, only bets committed by the end; version 1 keeps raw gains; tallies equal a recount', async () => {
    const owner = await registerAndLogin(t.app, 'ro');
    const a = await registerAndLogin(t.app, 'ra');
    const b = await registerAndLogin(t.app, 'rb');
    const window = { visibility: 'public', ends_at: new Date(t.clock.now() + HOUR + DAY).toISOString() };
    const v2 = await ranked.create(owner, window);
    const v1 = await raw.create(owner, { ...window, starts_at: v2.starts_at });
    for (const l of [v2, v1]) {
      await join(a, l.invite_code);
      await join(b, l.invite_code);
    }
    const start = Date.parse(v2.starts_at);
    const end = Date.parse(v2.ends_at);
    t.clock.set(start + MIN);
    setPrice('AAPL', 100);
    setPrice('MSFT', 400);

    // a closes one bet inside its cancel window (raw +10): shown, never scored in version 2.
    const early = await open(a, 'AAPL');
    setPrice('AAPL', 110);
    await close(a, early);
    assert.equal((await betRow(early)).ranked_gain, null);

    // a holds another past its window: committed at 120, closed at 132 (raw +20, ranked +10).
    const heldFrom = t.clock.now();
    const held = await open(a, 'AAPL');
    prices.set('AAPL', 120);
    t.clock.set(heldFrom + 5 * MIN + 1000);
    assert.ok((await commitDueBets(t.ctx, quiet)).committed >= 1);
    assert.equal((await betRow(held)).committed_price, 120);
    setPrice('AAPL', 132);
    await close(a, held);
    near((await betRow(held)).ranked_gain, 10, 'ranked gain');
    // The league's feed shows the committed price and the ranked gain beside the raw gain.
    const feed = (await call(null, 'GET', `/leagues/${v2.id}/feed`)).json().items as Array<Record<string, number | null>>;
    const shown = (id: number) => feed.find((i) => i.bet_id === id)!;
    assert.deepEqual([shown(early).percentage_gain, shown(early).committed_price, shown(early).ranked_gain], [10, null, null]);
    assert.equal(shown(held).committed_price, 120);
    near(shown(held).ranked_gain, 10, 'feed ranked gain');
    near(shown(held).percentage_gain, 20, 'feed raw gain');

    // The owner cancels one, and holds MSFT past its window: committed at 410, open at the end.
    const cancelled = await open(owner, 'AAPL');
    assert.equal((await call(owner, 'DELETE', `/bet/${cancelled}`)).statusCode, 200);
    const openFrom = t.clock.now();
    const stillOpen = await open(owner, 'MSFT');
    prices.set('MSFT', 410);
    t.clock.set(openFrom + 5 * MIN + 1000);
    await commitDueBets(t.ctx, quiet);
    assert.equal((await betRow(stillOpen)).committed_price, 410);

    const live2 = await board(null, v2.id);
    assert.equal(live2.scoring_version, 2);
    assert.deepEqual(
      [rowOf(live2, a.id).trades, rowOf(live2, a.id).early_closes, rowOf(live2, owner.id).marked, rowOf(live2, owner.id).cancels],
      [1, 1, 1, 1],
    );
    near(rowOf(live2, a.id).score, 10, 'a, ranked, while it runs');
    near(rowOf(live2, owner.id).score, 0, 'the owner: marked from the committed 410 at 410');
    const live1 = await board(null, v1.id);
    assert.equal(live1.scoring_version, 1);
    assert.equal('early_closes' in rowOf(live1, a.id), false, 'a version-1 board keeps its fields');
    assert.equal(rowOf(live1, a.id).trades, 2);
    near(rowOf(live1, a.id).score, 30, 'a, raw');

    // b opens two minutes before the end: its committed instant falls after it, so version 2 never scores it.
    t.clock.set(end - 2 * MIN);
    setPrice('AAPL', 100);
    const late = await open(b, 'AAPL');
    // At the end AAPL stands at 130 and MSFT at 430.5: the commitments job publishes those quotes a second
    // after the end, the first at or after it, which mark the bets still open; later prices are not the end's.
    t.clock.set(end - 1000);
    prices.set('AAPL', 130);
    prices.set('MSFT', 430.5);
    t.clock.set(end + 1000);
    await commitDueBets(t.ctx, quiet);
    t.clock.set(end + MIN);
    prices.set('AAPL', 200);
    prices.set('MSFT', 500);
    t.clock.set(end + 4 * MIN);
    await commitDueBets(t.ctx, quiet);
    assert.equal((await betRow(late)).committed_price, 200, 'committed after the end');
    await close(b, late);
    assert.ok((await runLeagueSteps(t.ctx)).settled >= 2);

    const final2 = await board(null, v2.id);
    assert.equal(final2.final, true);
    assert.equal(final2.scoring_version, 2);
    assert.deepEqual(
      final2.rows.map((r: Row) => [r.user.id, r.rank, r.trades, r.marked, r.cancels, r.early_closes]),
      [
        [a.id, 1, 1, 0, 0, 1],
        [owner.id, 2, 1, 1, 1, 0],
        [b.id, null, 0, 0, 0, 0],
      ],
    );
    near(rowOf(final2, owner.id).score, 5, 'MSFT marked from the committed 410 to the end price 430.5');
    assert.equal(rowOf(final2, b.id).score, null);
    const final1 = await board(null, v1.id);
    assert.equal(final1.scoring_version, 1);
    assert.deepEqual(
      final1.rows.map((r: Row) => [r.user.id, r.rank, r.trades, r.marked]),
      [
        [a.id, 1, 2, 0],
        [b.id, 2, 1, 1],
        [owner.id, 3, 1, 1],
      ],
    );
    near(rowOf(final1, b.id).score, 30, 'raw: marked from entry 100 at the end price 130');
    near(rowOf(final1, owner.id).score, 7.625, 'raw: entry 400 to 430.5');

    // The tallies and open bets give what the rules count from every bet.
    const bets = await t.ctx.db.selectFrom('bets').selectAll().where('user_id', 'in', [owner.id, a.id, b.id]).execute();
    const members = [owner.id, a.id, b.id].map((user_id) => ({ user_id, left_at: null }));
    const rules = { instruments: 'all' as const, min_closed_bets: 1, scoring: 'gain' as const };
    for (const [shown, version] of [
      [final2, 2],
      [final1, 1],
    ] as const) {
      const recount = computeBoard(
        rules,
        { starts_at: start, ends_at: end },
        members,
        bets,
        end,
        new Map([
          ['MSFT', 430.5],
          ['AAPL', 130],
        ]),
        version,
      );
      assert.deepEqual(
        shown.rows.map((r: Row) => [r.user.id, r.rank, r.trades, r.marked, r.cancels, r.early_closes, r.score?.toFixed(9)]),
        recount.map((r) => [r.user_id, r.rank, r.trades, r.marked, r.cancels, r.early_closes, r.score?.toFixed(9)]),
        `version ${version}`,
      );
    }

    // The proof says its version, in the answer and in the hashed document, and verifies.
    t.clock.advance(DAY);
    await publishYesterday(t.ctx);
    const res = await call(null, 'GET', `/leagues/${v2.id}/proof`);
    assert.equal(res.statusCode, 200, res.body);
    const proof = res.json() as LeagueProof;
    assert.equal(proof.scoring_version, 2);
    assert.equal(proof.document.league.scoring_version, 2);
    assert.equal(proof.document.board.find((r) => r.user_id === a.id)!.early_closes, 1);
    const records = new Map<number, UserRecord>();
    for (const u of [owner, a, b]) records.set(u.id, (await call(null, 'GET', `/record/user/${u.id}`)).json());
    assert.deepEqual(verifyLeagueProof(proof, { records, verifyRecord: (r) => verifyUserRecord(r) }), []);
    const forged = structuredClone(proof);
    forged.scoring_version = 1;
    assert.match(verifyLeagueProof(forged, {}).join('\n'), /says scoring version 1 but its document 2/);
    const proof1 = (await call(null, 'GET', `/leagues/${v1.id}/proof`)).json() as LeagueProof;
    assert.equal(proof1.scoring_version, 1);
    assert.equal(proof1.document.league.scoring_version, 1);
    assert.deepEqual(verifyLeagueProof(proof1, { records }), []);
  });
});
