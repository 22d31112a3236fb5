// Leagues through the API on both dialects: every endpoint's success, error
// and security cases; what counts on the board; the frozen final board.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { computeBoard } from '../../src/domain/leagues.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { upsertLink } from '../../src/repositories/chat-links.js';
import { runLeagueSteps } from '../../src/services/league-notices.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { DAY, HOUR, leagueApi } from '../helpers/leagues.js';
import { FakePriceProvider } from '../helpers/prices.js';
import { assertNoPrivateFields } from '../helpers/users.js';

const quietLog = { info: () => {}, warn: () => {}, error: () => {} };

forEachDialect('leagues', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider({ AAPL: 100, MSFT: 400, 'BTC-USD': 50_000, SPY: 500, 'ETH-USD': 3000 });
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices, logger: process.env.DEBUG_LOG ? { level: 'error' } : false }, config: { leagueLimit: 3 } });
  });
  after(() => t.close());
  const { call, create, join, open, close, board } = leagueApi(() => t, { scoringVersion: 1 });
  /** Moves past the price cache, so the next quote is the provider's current price. */
  const setPrice = (ticker: string, price: number) => {
    prices.set(ticker, price);
    t.clock.advance(10_000);
  };

  describe('create and read', () => {
    test('POST /leagues answers 201 with the league, its invite code and the owner as first member', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const league = await create(owner, { member_limit: 4 });
      assert.match(league.invite_code, /^[A-Z2-9]{10}$/);
      assert.deepEqual(
        league.members.map((m) => m.id),
        [owner.id],
      );
      const res = await call(owner, 'GET', `/leagues/${league.id}`);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.status, 'upcoming');
      assert.equal(body.owner.id, owner.id);
      assert.equal(body.member_limit, 4);
      assert.deepEqual(body.rules, { instruments: 'all', min_closed_bets: 1, scoring: 'gain' });
      assert.equal(body.invite_code, league.invite_code);
      assertNoPrivateFields(body);
    });

    test('bad windows and bodies are 400; no session is 401', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const now = t.clock.now();
      const body = (over: object) => ({
        name: 'X',
        starts_at: new Date(now + HOUR).toISOString(),
        ends_at: new Date(now + DAY).toISOString(),
        visibility: 'public',
        rules: { instruments: 'all', min_closed_bets: 0, scoring: 'gain' },
        ...over,
      });
      const past = await call(owner, 'POST', '/leagues', body({ starts_at: new Date(now - DAY).toISOString() }));
      assert.equal(past.statusCode, 400);
      assert.match(past.json().error, /now or in the future/);
      const long = await call(owner, 'POST', '/leagues', body({ ends_at: new Date(now + 400 * DAY).toISOString() }));
      assert.equal(long.statusCode, 400);
      assert.match(long.json().error, /one year/);
      assert.equal(
        (await call(owner, 'POST', '/leagues', body({ rules: { instruments: 'bonds', min_closed_bets: 0, scoring: 'gain' } }))).statusCode,
        400,
      );
      assert.equal((await call(owner, 'POST', '/leagues', body({ extra: 1 }))).statusCode, 400);
      assert.equal((await call(null, 'POST', '/leagues', body({}))).statusCode, 401);
      // A start "now" (the moment the client sent it) is accepted and counts from now.
      const nowStart = await call(owner, 'POST', '/leagues', body({ starts_at: new Date(now - 30_000).toISOString() }));
      assert.equal(nowStart.statusCode, 201, nowStart.body);
      assert.equal(nowStart.json().starts_at, new Date(now).toISOString());
      assert.equal(nowStart.json().status, 'running');
    });

    test('a private league is 404 to visitors and non-members on every read; a public one is readable by anyone, without its code', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const stranger = await registerAndLogin(t.app, 'ls');
      const priv = await create(owner);
      const pub = await create(owner, { visibility: 'public' });
      for (const path of ['', '/board', '/feed', '/proof']) {
        assert.equal((await call(null, 'GET', `/leagues/${priv.id}${path}`)).statusCode, 404, path);
        assert.equal((await call(stranger, 'GET', `/leagues/${priv.id}${path}`)).statusCode, 404, path);
      }
      assert.equal((await call(null, 'GET', '/leagues/999999999')).statusCode, 404);
      const seen = await call(null, 'GET', `/leagues/${pub.id}`);
      assert.equal(seen.statusCode, 200);
      assert.equal(seen.json().invite_code, null);
      assert.equal(seen.json().is_member, false);
      assert.equal((await call(null, 'GET', `/leagues/${pub.id}/board`)).statusCode, 200);
      assert.equal((await call(null, 'GET', `/leagues/${pub.id}/feed`)).statusCode, 200);
      assert.equal((await call(null, 'GET', `/leagues/${pub.id}/proof`)).statusCode, 404, 'no proof before the end');
      assert.equal((await call(null, 'GET', '/leagues/abc')).statusCode, 400);
    });

    test("GET /leagues lists the caller's leagues and public ones open to join, paged; visitors see only the open public ones", async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const viewer = await registerAndLogin(t.app, 'lv');
      const mine = await create(viewer, { name: 'Mine' });
      const pub = await create(owner, { visibility: 'public', name: 'Open one' });
      const priv = await create(owner, { name: 'Hidden' });
      const list = await call(viewer, 'GET', '/leagues?limit=500');
      assert.equal(list.statusCode, 200);
      const ids = list.json().leagues.map((l: { id: number }) => l.id);
      assert.ok(ids.includes(mine.id) && ids.includes(pub.id));
      assert.ok(!ids.includes(priv.id));
      assert.ok(ids.indexOf(mine.id) < ids.indexOf(pub.id), 'mine first');
      assert.equal(list.json().leagues.find((l: { id: number }) => l.id === mine.id).is_member, true);
      const onlyMine = (await call(viewer, 'GET', '/leagues?scope=mine')).json();
      assert.deepEqual(
        onlyMine.leagues.map((l: { id: number }) => l.id),
        [mine.id],
      );
      assert.equal(onlyMine.total, 1);
      const page = (await call(viewer, 'GET', '/leagues?limit=1&offset=1')).json();
      assert.equal(page.leagues.length, 1);
      assert.ok(page.total >= 2);
      const anon = (await call(null, 'GET', '/leagues?limit=500')).json();
      const anonIds = anon.leagues.map((l: { id: number }) => l.id);
      assert.ok(anonIds.includes(pub.id) && !anonIds.includes(priv.id) && !anonIds.includes(mine.id));
      // An invite code shows its league before joining (the invite link's page), to anyone.
      const byCode = (await call(null, 'GET', `/leagues?code=${priv.invite_code}`)).json();
      assert.equal(byCode.leagues[0].id, priv.id);
      assert.equal(byCode.leagues[0].name, 'Hidden');
      assert.deepEqual((await call(null, 'GET', '/leagues?code=NOSUCHCODE')).json(), { leagues: [], total: 0 });
      assert.equal((await call(null, 'GET', '/leagues?limit=0')).statusCode, 400);
    });
  });

  describe('membership', () => {
    test('join by code; again is a success; a bad code is 404; after the start 409; no session 401', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const friend = await registerAndLogin(t.app, 'lf');
      const late = await registerAndLogin(t.app, 'll');
      const league = await create(owner);
      const joined = await join(friend, league.invite_code);
      assert.equal(joined.is_member, true);
      assert.equal(joined.members.length, 2);
      assert.equal(joined.invite_code, league.invite_code, 'members see the code to share it');
      assert.equal((await join(friend, league.invite_code)).members.length, 2);
      assert.equal((await call(friend, 'POST', '/leagues/join', { code: 'ZZZZZZZZZZ' })).statusCode, 404);
      assert.equal((await call(friend, 'POST', '/leagues/join', { code: 'bad code' })).statusCode, 400);
      assert.equal((await call(null, 'POST', '/leagues/join', { code: league.invite_code })).statusCode, 401);
      t.clock.advance(HOUR);
      const refused = await call(late, 'POST', '/leagues/join', { code: league.invite_code });
      assert.equal(refused.statusCode, 409);
      assert.match(refused.json().error, /already started/);
    });

    test('join a public league by id; a private one by id is 404; a full league is 409', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      const b = await registerAndLogin(t.app, 'lb');
      const pub = await create(owner, { visibility: 'public', member_limit: 2 });
      const priv = await create(owner);
      assert.equal((await call(a, 'POST', `/leagues/${priv.id}/join`)).statusCode, 404);
      assert.equal((await call(a, 'POST', `/leagues/${pub.id}/join`)).statusCode, 200);
      const full = await call(b, 'POST', `/leagues/${pub.id}/join`);
      assert.equal(full.statusCode, 409);
      assert.match(full.json().error, /full/);
      assert.equal((await call(null, 'POST', `/leagues/${pub.id}/join`)).statusCode, 401);
    });

    test('the league limit: 403 LIMIT_REACHED with the limit; ended leagues free a place; a plan adds extra_leagues', async () => {
      const u = await registerAndLogin(t.app, 'lc');
      const owner = await registerAndLogin(t.app, 'lo');
      const short = await create(u, { ends_at: new Date(t.clock.now() + 2 * HOUR).toISOString() });
      await create(u);
      await create(u);
      const refused = await call(u, 'POST', '/leagues', {
        name: 'One too many',
        starts_at: new Date(t.clock.now() + HOUR).toISOString(),
        ends_at: new Date(t.clock.now() + DAY).toISOString(),
        visibility: 'private',
        rules: { instruments: 'all', min_closed_bets: 0, scoring: 'gain' },
      });
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(Object.keys(refused.json()).sort(), ['error', 'limit', 'message']);
      assert.equal(refused.json().error, 'LIMIT_REACHED');
      assert.equal(refused.json().limit, 3);
      const other = await create(owner);
      const joinRefused = await call(u, 'POST', '/leagues/join', { code: other.invite_code });
      assert.equal(joinRefused.statusCode, 403);
      assert.equal(joinRefused.json().limit, 3);
      // A paid plan adds its extra_leagues (plans.json), and the limit error says so.
      await t.ctx.db
        .updateTable('users')
        .set({ pay_price_id: 'local_price_plus_monthly', pay_subscription_status: 'active', pay_subscription_id: 'sub_x' })
        .where('id', '=', u.id)
        .execute();
      assert.equal((await call(u, 'POST', '/leagues/join', { code: other.invite_code })).statusCode, 200);
      // The plan's extras stay out of SPEC's plan shape.
      const plans = (await call(null, 'GET', '/api/pay/plans')).json().plans;
      for (const p of plans) assert.equal('extra_leagues' in p, false);
      await t.ctx.db.updateTable('users').set({ pay_subscription_status: 'past_due' }).where('id', '=', u.id).execute();
      const third = await create(owner);
      assert.equal((await call(u, 'POST', '/leagues/join', { code: third.invite_code })).statusCode, 403);
      // Leaving before the start frees a place, and so does a league that ended.
      assert.equal((await call(u, 'POST', `/leagues/${other.id}/leave`)).statusCode, 200);
      assert.equal((await call(u, 'POST', '/leagues/join', { code: third.invite_code })).statusCode, 403);
      t.clock.advance(2 * HOUR + 1);
      assert.equal((await call(u, 'GET', `/leagues/${short.id}`)).json().status, 'ended');
      assert.equal(
        (await call(u, 'POST', '/leagues/join', { code: (await create(owner)).invite_code })).statusCode,
        200,
        'an ended league frees its place',
      );
    });

    test('leave: before the start the membership goes; after it the member stays on the board; the owner cannot leave', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      const b = await registerAndLogin(t.app, 'lb');
      const league = await create(owner);
      await join(a, league.invite_code);
      await join(b, league.invite_code);
      assert.equal((await call(a, 'POST', `/leagues/${league.id}/leave`)).statusCode, 200);
      assert.equal((await call(a, 'GET', `/leagues/${league.id}`)).statusCode, 404, 'gone from a private league');
      assert.equal((await call(a, 'POST', `/leagues/${league.id}/leave`)).statusCode, 404);
      const ownerLeaves = await call(owner, 'POST', `/leagues/${league.id}/leave`);
      assert.equal(ownerLeaves.statusCode, 400);
      assert.equal((await call(null, 'POST', `/leagues/${league.id}/leave`)).statusCode, 401);
      t.clock.advance(HOUR);
      assert.equal((await call(b, 'POST', `/leagues/${league.id}/leave`)).statusCode, 200);
      const rows = (await board(b, league.id)).rows;
      assert.deepEqual(
        rows.map((r: { user: { id: number }; left: boolean }) => [r.user.id, r.left]).sort(),
        [
          [owner.id, false],
          [b.id, true],
        ].sort(),
      );
      t.clock.advance(3 * DAY);
      assert.equal((await call(b, 'POST', `/leagues/${league.id}/leave`)).statusCode, 409);
    });

    test('the owner removes members and rotates the code before the start; others get 403; after the start 409', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      const b = await registerAndLogin(t.app, 'lb');
      const league = await create(owner);
      await join(a, league.invite_code);
      await join(b, league.invite_code);
      assert.equal((await call(a, 'DELETE', `/leagues/${league.id}/members/${b.id}`)).statusCode, 403);
      assert.equal((await call(a, 'POST', `/leagues/${league.id}/code`)).statusCode, 403);
      assert.equal((await call(owner, 'DELETE', `/leagues/${league.id}/members/${owner.id}`)).statusCode, 400);
      assert.equal((await call(owner, 'DELETE', `/leagues/${league.id}/members/999999`)).statusCode, 404);
      assert.equal((await call(owner, 'DELETE', `/leagues/${league.id}/members/${b.id}`)).statusCode, 200);
      assert.equal((await call(b, 'GET', `/leagues/${league.id}`)).statusCode, 404);
      const rotated = await call(owner, 'POST', `/leagues/${league.id}/code`);
      assert.equal(rotated.statusCode, 200);
      assert.notEqual(rotated.json().invite_code, league.invite_code);
      assert.equal((await call(b, 'POST', '/leagues/join', { code: league.invite_code })).statusCode, 404, 'the old code is dead');
      assert.equal((await call(b, 'POST', '/leagues/join', { code: rotated.json().invite_code })).statusCode, 200);
      const stranger = await registerAndLogin(t.app, 'ls');
      assert.equal((await call(stranger, 'POST', `/leagues/${league.id}/code`)).statusCode, 404);
      assert.equal((await call(null, 'POST', `/leagues/${league.id}/code`)).statusCode, 401);
      t.clock.advance(HOUR);
      assert.equal((await call(owner, 'DELETE', `/leagues/${league.id}/members/${a.id}`)).statusCode, 409);
      assert.equal((await call(owner, 'POST', `/leagues/${league.id}/code`)).statusCode, 409);
    });

    test('PATCH: the owner edits before the start; members 403; after the start 409; any member sets their daily standing', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      const stranger = await registerAndLogin(t.app, 'ls');
      const league = await create(owner);
      await join(a, league.invite_code);
      const edited = await call(owner, 'PATCH', `/leagues/${league.id}`, { name: 'Renamed', rules: { scoring: 'skill', min_closed_bets: 3 } });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(edited.json().name, 'Renamed');
      assert.deepEqual(edited.json().rules, { instruments: 'all', min_closed_bets: 3, scoring: 'skill' });
      assert.equal((await call(a, 'PATCH', `/leagues/${league.id}`, { name: 'Mine now' })).statusCode, 403);
      assert.equal((await call(stranger, 'PATCH', `/leagues/${league.id}`, { name: 'Mine now' })).statusCode, 404);
      assert.equal((await call(null, 'PATCH', `/leagues/${league.id}`, { name: 'Mine now' })).statusCode, 401);
      assert.equal((await call(owner, 'PATCH', `/leagues/${league.id}`, { member_limit: 1 })).statusCode, 400);
      const badWindow = await call(owner, 'PATCH', `/leagues/${league.id}`, { ends_at: new Date(t.clock.now() - DAY).toISOString() });
      assert.equal(badWindow.statusCode, 400);
      const optOut = await call(a, 'PATCH', `/leagues/${league.id}`, { daily_standing: false });
      assert.equal(optOut.statusCode, 200);
      assert.equal(optOut.json().daily_standing, false);
      t.clock.advance(HOUR);
      const late = await call(owner, 'PATCH', `/leagues/${league.id}`, { rules: { scoring: 'gain' } });
      assert.equal(late.statusCode, 409);
      assert.equal((await call(a, 'PATCH', `/leagues/${league.id}`, { daily_standing: true })).statusCode, 200, 'still allowed after the start');
    });

    test('DELETE: the owner before the start; members 403; after the start 409', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      const gone = await create(owner);
      await join(a, gone.invite_code);
      assert.equal((await call(a, 'DELETE', `/leagues/${gone.id}`)).statusCode, 403);
      assert.equal((await call(null, 'DELETE', `/leagues/${gone.id}`)).statusCode, 401);
      assert.equal((await call(owner, 'DELETE', `/leagues/${gone.id}`)).statusCode, 200);
      assert.equal((await call(owner, 'GET', `/leagues/${gone.id}`)).statusCode, 404);
      const kept = await create(owner);
      t.clock.advance(HOUR);
      assert.equal((await call(owner, 'DELETE', `/leagues/${kept.id}`)).statusCode, 409);
    });
  });

  describe('board, feed and the final board', () => {
    test('counts only bets in the window on counted instruments; cancellations shown; open bets marked; frozen at the end', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      const gone = await registerAndLogin(t.app, 'lg');
      setPrice('AAPL', 100);
      setPrice('MSFT', 400);
      setPrice('BTC-USD', 50_000);
      const league = await create(owner, { rules: { instruments: 'stocks', min_closed_bets: 2, scoring: 'gain' }, visibility: 'public' });
      await join(a, league.invite_code);
      await join(gone, league.invite_code);
      // Before the start: not counted.
      const early = await open(a, 'AAPL');
      t.clock.set(Date.parse(league.starts_at) + 60_000);
      setPrice('AAPL', 100);
      // In the window: two closed AAPL bets for a (+10, +5), a crypto bet (excluded), a cancelled one.
      const a1 = await open(a, 'AAPL');
      const a2 = await open(a, 'AAPL');
      const crypto = await open(a, 'BTC-USD');
      const cancelled = await open(a, 'MSFT');
      assert.equal((await call(a, 'DELETE', `/bet/${cancelled}`)).statusCode, 200);
      // The owner: one closed bet (+20) and one open at the end (marked).
      const o1 = await open(owner, 'AAPL');
      const oOpen = await open(owner, 'MSFT', 'SHORT');
      setPrice('AAPL', 110);
      await close(a, a1);
      await close(owner, o1);
      setPrice('AAPL', 105);
      await close(a, a2);
      setPrice('BTC-USD', 100_000);
      await close(a, crypto);
      await close(a, early);
      // The member whose account is deleted: one closed bet, kept under the anonymous name.
      setPrice('AAPL', 100);
      const g1 = await open(gone, 'AAPL');
      setPrice('AAPL', 102);
      await close(gone, g1);
      const deleted = await call(gone, 'DELETE', '/me', { password: gone.password });
      assert.equal(deleted.statusCode, 200, deleted.body);

      const live = await board(null, league.id);
      assert.equal(live.status, 'running');
      assert.equal(live.final, false);
      type Row = Record<string, unknown> & { user: { id: number; username: string } };
      const rowOf = (b: { rows: Row[] }, id: number) => b.rows.find((r) => r.user.id === id)!;
      assert.equal(rowOf(live, a.id).trades, 2);
      assert.equal(rowOf(live, a.id).cancels, 1);
      assert.equal(rowOf(live, a.id).cancel_rate, 1 / 3);
      assert.ok(Math.abs((rowOf(live, a.id).score as number) - 15) < 1e-9);
      assert.equal(rowOf(live, owner.id).trades, 2, 'the open bet is marked and counts toward the minimum');
      assert.equal(rowOf(live, owner.id).marked, 1);
      assert.match(rowOf(live, gone.id).user.username, /^deleted/);

      const feed = await call(null, 'GET', `/leagues/${league.id}/feed?limit=100`);
      assert.equal(feed.statusCode, 200);
      const items = feed.json().items as Array<{ bet_id: number; counted: boolean; status: string }>;
      assert.ok(!items.some((i) => i.bet_id === early), 'opened before the start: not in the league');
      assert.equal(items.find((i) => i.bet_id === crypto)!.counted, false);
      assert.equal(items.find((i) => i.bet_id === cancelled)!.status, 'CANCELLED');
      assert.equal(items.length, 7);

      // At the end MSFT stands at 360: the commitments job publishes that quote a second after the end,
      // the first at or after it, which marks the owner's SHORT at +10; the price a minute later, when
      // the worker passes, is not the end's. Closing it afterwards changes nothing.
      t.clock.set(Date.parse(league.ends_at) - 1000);
      setPrice('MSFT', 360);
      t.clock.set(Date.parse(league.ends_at) + 1000);
      await commitDueBets(t.ctx, quietLog);
      t.clock.set(Date.parse(league.ends_at) + 60_000);
      setPrice('MSFT', 300);
      const ended = await board(null, league.id);
      assert.equal(ended.status, 'ended');
      assert.equal(ended.final, false);
      assert.ok(Math.abs((rowOf(ended, owner.id).score as number) - 20) < 1e-9, "before the worker: already at the end instant's price");
      const steps = await runLeagueSteps(t.ctx);
      assert.equal(steps.settled >= 1, true);
      setPrice('MSFT', 200);
      await close(owner, oOpen);
      const after = await open(a, 'AAPL');
      assert.ok(after > 0);
      const final = await board(null, league.id);
      assert.equal(final.final, true);
      assert.equal(final.status, 'final');
      assert.ok(final.settled_at);
      assert.equal(final.as_of, league.ends_at);
      assert.deepEqual(
        final.rows.map((r: { user: { id: number }; rank: number | null }) => [r.user.id, r.rank]),
        [
          [owner.id, 1],
          [a.id, 2],
          [gone.id, null],
        ],
      );
      assert.ok(Math.abs((rowOf(final, owner.id).score as number) - 20) < 1e-9, 'AAPL +10 closed, MSFT SHORT +10 marked at the end');
      assert.equal(rowOf(final, owner.id).marked, 1);
      assert.ok(Math.abs((rowOf(final, a.id).score as number) - 15) < 1e-9);
      // Frozen: another pass changes nothing.
      await runLeagueSteps(t.ctx);
      assert.deepEqual(await board(null, league.id), final);
      const page = (await call(a, 'GET', `/leagues/${league.id}`)).json();
      assert.equal(page.status, 'final');
      assert.equal(page.settled_at, final.settled_at);
    });

    test('an ended league whose open bet has no quote at the end yet waits for the next pass, then marks it at the first quote published after the end', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      setPrice('ETH-USD', 3000);
      const league = await create(owner, { rules: { instruments: 'crypto', min_closed_bets: 0, scoring: 'gain' } });
      t.clock.set(Date.parse(league.starts_at) + 1000);
      await open(owner, 'ETH-USD');
      t.clock.set(Date.parse(league.ends_at) - 1000);
      setPrice('ETH-USD', 3300);
      t.clock.set(Date.parse(league.ends_at) + 1000);
      prices.failing.add('ETH-USD');
      try {
        const steps = await runLeagueSteps(t.ctx);
        assert.equal(steps.deferred, 1, "no stand-in price: the last known one is not the end's");
        const waiting = await board(owner, league.id);
        assert.equal(waiting.final, false);
        assert.equal(waiting.status, 'ended');
        assert.equal(waiting.rows[0].rank, null, 'unmarked until the price is known');
      } finally {
        prices.failing.delete('ETH-USD');
      }
      // The provider answers again ten minutes later: the first quote published then is the end's mark
      // (no quote was published at or after the end before it); a price after that quote is never used.
      t.clock.advance(10 * 60_000);
      setPrice('ETH-USD', 3600);
      const steps = await runLeagueSteps(t.ctx);
      assert.equal(steps.settled, 1);
      setPrice('ETH-USD', 6000);
      const b = await board(owner, league.id);
      assert.equal(b.final, true);
      assert.equal(b.rows[0].marked, 1);
      assert.ok(Math.abs(b.rows[0].score - 20) < 1e-9, '3000 → 3600, the first quote published after the end, not a later 6000');
      const proof = await call(owner, 'GET', `/leagues/${league.id}`);
      assert.equal(proof.json().status, 'final');
    });

    test('the board is counted from tallies kept as bets finish, which always agree with a recount of the bets', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      setPrice('AAPL', 100);
      setPrice('BTC-USD', 50_000);
      const league = await create(owner, { rules: { instruments: 'stocks', min_closed_bets: 1, scoring: 'skill' } });
      const other = await create(a, { rules: { instruments: 'crypto', min_closed_bets: 1, scoring: 'gain' } });
      await join(a, league.invite_code);
      await join(owner, other.invite_code);
      const before = await open(a, 'AAPL');
      t.clock.set(Date.parse(league.starts_at) + 1000);
      const bets: number[] = [];
      for (const [i, ticker] of ['AAPL', 'MSFT', 'BTC-USD', 'AAPL'].entries()) {
        setPrice(ticker, 100 + i);
        bets.push(await open(a, ticker, i % 2 === 0 ? 'LONG' : 'SHORT'));
      }
      const cancelled = await open(owner, 'AAPL');
      assert.equal((await call(owner, 'DELETE', `/bet/${cancelled}`)).statusCode, 200);
      t.clock.advance(HOUR);
      setPrice('AAPL', 120);
      setPrice('MSFT', 90);
      setPrice('SPY', 510);
      for (const id of [before, ...bets.slice(0, 3)]) await close(a, id);
      const tallies = await t.ctx.db
        .selectFrom('league_members')
        .select(['league_id', 'user_id', 'trades', 'cancels', 'gain_sum', 'alpha_n'])
        .where('league_id', 'in', [league.id, other.id])
        .orderBy('league_id')
        .orderBy('user_id')
        .execute();
      const of = (l: number, u: number) => tallies.find((r) => r.league_id === l && r.user_id === u)!;
      // The stock league: a's AAPL and MSFT bets in the window (not the one before it, not the crypto one), the owner's cancellation.
      assert.equal(of(league.id, a.id).trades, 2);
      assert.equal(of(league.id, a.id).alpha_n, 2, 'benchmark prices known at both ends');
      assert.equal(of(league.id, owner.id).cancels, 1);
      // The crypto league: a's BTC-USD bet only.
      assert.equal(of(other.id, a.id).trades, 1);
      assert.equal(of(other.id, owner.id).cancels, 0, 'an AAPL cancellation does not count in a crypto league');
      // The board from tallies and open bets equals the rules' recount of every bet in the window.
      const rows = await t.ctx.db.selectFrom('bets').selectAll().where('user_id', 'in', [owner.id, a.id]).execute();
      const live = await board(owner, league.id);
      const recount = computeBoard(
        { instruments: 'stocks', min_closed_bets: 1, scoring: 'skill' },
        { starts_at: Date.parse(league.starts_at), ends_at: Date.parse(league.ends_at) },
        [owner.id, a.id].map((user_id) => ({ user_id, left_at: null })),
        rows,
        t.clock.now(),
        new Map([
          ['AAPL', 120],
          ['SPY', 510],
        ]),
      );
      for (const r of recount) {
        const shown = live.rows.find((x: { user: { id: number } }) => x.user.id === r.user_id);
        assert.equal(shown.trades, r.trades);
        assert.equal(shown.marked, r.marked);
        assert.equal(shown.cancels, r.cancels);
        assert.equal(shown.rank, r.rank);
        assert.ok(r.score === null ? shown.score === null : Math.abs(shown.score - r.score) < 1e-9, `${shown.score} vs ${r.score}`);
      }
      assert.equal(live.rows.find((x: { user: { id: number } }) => x.user.id === a.id).marked, 1, 'the last AAPL bet is open: marked');
    });
  });

  describe('notices', () => {
    test('the start, a daily standing (opt-out), the final result', async () => {
      const owner = await registerAndLogin(t.app, 'lo');
      const a = await registerAndLogin(t.app, 'la');
      const quiet = await registerAndLogin(t.app, 'lq');
      const league = await create(owner, { ends_at: new Date(t.clock.now() + 3 * DAY).toISOString() });
      await join(a, league.invite_code);
      await join(quiet, league.invite_code);
      await call(quiet, 'PATCH', `/leagues/${league.id}`, { daily_standing: false });
      const kinds = async (userId: number) =>
        (await t.ctx.db.selectFrom('user_notices').select(['kind', 'link', 'text']).where('user_id', '=', userId).orderBy('id').execute()).filter(
          (n) => n.kind.startsWith('league_'),
        );
      // A member with a linked chat also gets each notice there, through the outbox.
      await upsertLink(t.ctx.db, a.id, { transport: t.ctx.chatTransport.name, chatId: `chat-${a.id}` }, t.clock.now());
      t.clock.set(Date.parse(league.starts_at) + 1000);
      await runLeagueSteps(t.ctx);
      await runLeagueSteps(t.ctx);
      assert.deepEqual(
        (await kinds(a.id)).map((n) => n.kind),
        ['league_started'],
      );
      const queued = await t.ctx.db
        .selectFrom('notifications')
        .select(['kind', 'text', 'chat_id'])
        .where('user_id', '=', a.id)
        .where('kind', '=', 'league_notice')
        .execute();
      assert.equal(queued.length, 1);
      assert.equal(queued[0].kind, 'league_notice');
      assert.equal(queued[0].chat_id, `chat-${a.id}`);
      assert.match(queued[0].text, new RegExp(`has started[\\s\\S]*/leagues/${league.id}$`));
      assert.equal((await kinds(a.id))[0].link, `leagues/${league.id}`);
      t.clock.advance(DAY);
      await runLeagueSteps(t.ctx);
      await runLeagueSteps(t.ctx);
      assert.deepEqual(
        (await kinds(a.id)).map((n) => n.kind),
        ['league_started', 'league_standing'],
      );
      assert.deepEqual(
        (await kinds(quiet.id)).map((n) => n.kind),
        ['league_started'],
      );
      t.clock.set(Date.parse(league.ends_at) + 1000);
      await runLeagueSteps(t.ctx);
      const last = (await kinds(a.id)).at(-1)!;
      assert.equal(last.kind, 'league_final');
      assert.match(last.text, /has ended/);
      assert.equal((await kinds(quiet.id)).at(-1)!.kind, 'league_final');
    });
  });
});
