// Requests that really overlap, against the real HTTP server on both dialects:
// each request goes over its own socket and all are released at once
// (helpers/barrier.ts). After every case the database's invariants are read
// straight from the tables (helpers/invariants.ts). test/reliability/races.test.ts
// runs one round of each case, test/long/races.test.ts many.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { after, afterEach, before, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { utcDate } from '../../src/domain/market-calendar.js';
import { PeriodicJob } from '../../src/jobs/periodic-job.js';
import { settlementJob } from '../../src/jobs/settlement.js';
import { FakeClock } from '../../src/lib/clock.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser, uniqueName } from './app.js';
import { type RawRequest, type RawResponse, together } from './barrier.js';
import { forEachDialect } from './db.js';
import { FakeStripe, stripeDriver, WEBHOOK_SECRET } from './fake-stripe.js';
import { assertDatabaseInvariants } from './invariants.js';
import { FakePriceProvider } from './prices.js';
import { insertTestUsers } from './users.js';

/** A fake clock that, while `step` is set, moves on by that much at every reading: time passes during a request. */
class SteppingClock extends FakeClock {
  step = 0;
  override now(): number {
    const t = super.now();
    if (this.step) this.advance(this.step);
    return t;
  }
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const count = (rs: RawResponse[], status: number) => rs.filter((r) => r.status === status).length;

export function racesSuite(opts: { rounds: number }): void {
  forEachDialect('races: overlapping requests on the real server', (dialect) => {
    let t: TestApp;
    let server: Server;
    const clock = new SteppingClock();
    const prices = new FakePriceProvider();
    const fake = new FakeStripe();
    const stripe = stripeDriver(() => t, fake);
    const logs: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    });

    before(async () => {
      await fake.start();
      t = await createTestApp(dialect, {
        clock,
        deps: { prices, logger: { level: 'info', stream } },
        config: { stripe: { secretKey: 'sk_test_fake', webhookSecret: WEBHOOK_SECRET, apiUrl: fake.url } },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      server = t.app.server;
    });
    after(async () => {
      await t.close();
      await fake.stop();
    });
    afterEach(async () => {
      clock.step = 0;
      await assertDatabaseInvariants(t);
    });

    // The embedded base capacities (10 open bets, 20 follows): small enough to fill in one burst.
    const { baseBets, baseFollows } = testConfig().capacities;
    const as = (u: TestUser) => ({ cookie: u.cookie });
    const openReq = (u: TestUser, body: Record<string, unknown> = { ticker: 'AAPL', direction: 'LONG' }): RawRequest => ({
      method: 'POST',
      path: '/bet/open',
      headers: as(u),
      body,
    });
    const closeReq = (u: TestUser, betId: number): RawRequest => ({ method: 'POST', path: '/bet/close', headers: as(u), body: { bet_id: betId } });
    const cancelReq = (u: TestUser, betId: number): RawRequest => ({ method: 'DELETE', path: `/bet/${betId}`, headers: as(u) });
    async function open(u: TestUser, body?: Record<string, unknown>): Promise<number> {
      const res = await t.app.inject({ method: 'POST', url: '/bet/open', payload: openReq(u, body).body as object, headers: as(u) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().bet_id;
    }
    /** A new price, and the clock moved past the cached one. */
    const setPrice = (ticker: string, price: number) => {
      prices.set(ticker, price);
      clock.advance(t.ctx.config.prices.cacheTtlMs + 1000);
    };
    const betRow = (id: number) => t.ctx.db.selectFrom('bets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const assertError = (r: RawResponse, status: number) => {
      assert.equal(r.status, status, r.body);
      assert.deepEqual(Object.keys(r.json<object>()), ['error'], r.body);
    };

    test('50 parallel opens at capacity: exactly the free slots succeed, the rest get the 403 limit error', async () => {
      for (let round = 0; round < opts.rounds; round++) {
        const u = await registerAndLogin(t.app);
        const already = 7;
        for (let i = 0; i < already; i++) await open(u);
        // Another user's opens in the same burst are not held back by this user's capacity.
        const v = await registerAndLogin(t.app);
        const burst = await together(server, [...Array.from({ length: 50 }, () => openReq(u)), ...Array.from({ length: 5 }, () => openReq(v))]);
        const responses = burst.responses.slice(0, 50);
        assert.equal(count(burst.responses.slice(50), 200), 5);
        assert.equal(count(responses, 200), baseBets - already, responses.map((r) => r.status).join(','));
        for (const r of responses.filter((x) => x.status !== 200)) {
          assert.equal(r.status, 403, r.body);
          const body = r.json<{ error: string; limit: number }>();
          assert.deepEqual(Object.keys(body).sort(), ['error', 'limit', 'message']);
          assert.equal(body.error, 'LIMIT_REACHED');
          assert.equal(body.limit, baseBets);
        }
        const ids = new Set(responses.filter((r) => r.status === 200).map((r) => r.json<{ bet_id: number }>().bet_id));
        assert.equal(ids.size, baseBets - already, 'every success names its own bet');
        const openRows = await t.ctx.db.selectFrom('bets').select('id').where('user_id', '=', u.id).where('status', '=', 'OPEN').execute();
        assert.equal(openRows.length, baseBets);
      }
    });

    test('50 parallel follows: capacity holds, and following one target many times makes one row', async () => {
      for (let round = 0; round < opts.rounds; round++) {
        const f = await registerAndLogin(t.app);
        const targets = await insertTestUsers(t.ctx, 55);
        const already = 5;
        for (const id of targets.slice(0, already)) {
          const res = await t.app.inject({ method: 'POST', url: '/follow', payload: { followed_id: id, action: 'follow' }, headers: as(f) });
          assert.equal(res.statusCode, 200, res.body);
        }
        const followReq = (id: number): RawRequest => ({
          method: 'POST',
          path: '/follow',
          headers: as(f),
          body: { followed_id: id, action: 'follow' },
        });
        const { responses } = await together(server, targets.slice(already).map(followReq));
        assert.equal(count(responses, 200), baseFollows - already, responses.map((r) => r.status).join(','));
        for (const r of responses) {
          if (r.status === 200) assert.deepEqual(r.json(), { success: true });
          else {
            const body = r.json<{ error: string; limit: number }>();
            assert.deepEqual([r.status, body.error, body.limit], [403, 'LIMIT_REACHED', baseFollows], r.body);
          }
        }
        const rows = await t.ctx.db.selectFrom('follows').select('followed_id').where('follower_id', '=', f.id).execute();
        assert.equal(rows.length, baseFollows);
        const following = (await t.app.inject({ method: 'GET', url: '/following', headers: as(f) })).json();
        assert.deepEqual(
          [...following].sort((a: number, b: number) => a - b),
          rows.map((r) => Number(r.followed_id)).sort((a, b) => a - b),
        );

        const g = await registerAndLogin(t.app);
        const same: RawRequest = { method: 'POST', path: '/follow', headers: as(g), body: { followed_id: targets[0], action: 'follow' } };
        const again = await together(
          server,
          Array.from({ length: 20 }, () => same),
        );
        assert.equal(count(again.responses, 200), 20, again.responses.map((r) => r.body).join(','));
        const gRows = await t.ctx.db.selectFrom('follows').select('followed_id').where('follower_id', '=', g.id).execute();
        assert.deepEqual(
          gRows.map((r) => Number(r.followed_id)),
          [targets[0]],
        );
      }
    });

    test('two closes of one bet: one succeeds, the other gets 400, the gain counts once', async () => {
      for (let round = 0; round < opts.rounds; round++) {
        const u = await registerAndLogin(t.app);
        const bets: number[] = [];
        for (let i = 0; i < 5; i++) bets.push(await open(u));
        setPrice('AAPL', 110);
        try {
          const { responses } = await together(
            server,
            bets.flatMap((id) => [closeReq(u, id), closeReq(u, id)]),
          );
          bets.forEach((_, i) => {
            const pair = responses.slice(2 * i, 2 * i + 2);
            assert.equal(count(pair, 200), 1, pair.map((r) => r.body).join(' | '));
            assertError(pair.find((r) => r.status !== 200)!, 400);
            assert.equal(pair.find((r) => r.status === 200)!.json<{ gain_percent: number }>().gain_percent, 10);
          });
        } finally {
          setPrice('AAPL', 100);
        }
        const row = await t.ctx.db.selectFrom('leaderboard').selectAll().where('user_id', '=', u.id).executeTakeFirstOrThrow();
        assert.equal(row.total_trades, bets.length);
        assert.ok(Math.abs(row.total_score - 10 * bets.length) < 1e-9);
      }
    });

    test('close against cancel of one bet: exactly one wins and the bet agrees with the winner', async () => {
      for (let round = 0; round < opts.rounds; round++) {
        const u = await registerAndLogin(t.app);
        const bets: number[] = [];
        for (let i = 0; i < 6; i++) bets.push(await open(u));
        // Half the pairs send the close first, half the cancel.
        const requests = bets.flatMap((id, i) => (i % 2 === 0 ? [closeReq(u, id), cancelReq(u, id)] : [cancelReq(u, id), closeReq(u, id)]));
        const { responses } = await together(server, requests);
        for (let i = 0; i < bets.length; i++) {
          const pair = responses.slice(2 * i, 2 * i + 2);
          const [close, cancel] = i % 2 === 0 ? pair : [pair[1]!, pair[0]!];
          assert.equal(count(pair, 200), 1, `close ${close!.status} ${close!.body}, cancel ${cancel!.status} ${cancel!.body}`);
          assertError(close!.status === 200 ? cancel! : close!, 400);
          const bet = await betRow(bets[i]!);
          assert.equal(bet.status, close!.status === 200 ? 'CLOSED' : 'CANCELLED');
          if (cancel!.status === 200) assert.deepEqual(cancel!.json(), { message: cancel!.json<{ message: string }>().message, bet_id: bets[i] });
        }
      }
    });

    test('a close that read the bet OPEN and waits for its price loses to a cancel that commits meanwhile', async () => {
      for (let round = 0; round < opts.rounds; round++) {
        const u = await registerAndLogin(t.app);
        const bets: number[] = [];
        for (let i = 0; i < 3; i++) bets.push(await open(u));
        clock.advance(t.ctx.config.prices.cacheTtlMs + 1000); // the closes must ask the provider, which holds them
        prices.hold();
        try {
          const { responses } = await together(
            server,
            bets.flatMap((id) => [closeReq(u, id), cancelReq(u, id)]),
            async () => {
              // Every close is waiting for its price; the cancels do not need one and commit.
              await waitFor('the cancels commit', async () => {
                const rows = await t.ctx.db.selectFrom('bets').select('status').where('id', 'in', bets).execute();
                return rows.every((r) => r.status === 'CANCELLED');
              });
              prices.unhold();
            },
          );
          for (let i = 0; i < bets.length; i++) {
            assertError(responses[2 * i]!, 400);
            assert.equal(responses[2 * i + 1]!.status, 200, responses[2 * i + 1]!.body);
          }
        } finally {
          prices.unhold();
        }
      }
    });

    test('cancel at the edge of the 5-minute window: succeeds or is refused as a whole', async () => {
      const u = await registerAndLogin(t.app);
      // Frozen clock: a bet opened exactly 5 minutes ago may still be cancelled (once), one opened 1 ms earlier not.
      const t0 = clock.now() + 60_000;
      clock.set(t0 - 1);
      const past = await open(u);
      clock.set(t0);
      const edge = await open(u);
      clock.set(t0 + 5 * 60_000);
      const copies = 5 * opts.rounds;
      const { responses } = await together(server, [
        ...Array.from({ length: copies }, () => cancelReq(u, edge)),
        ...Array.from({ length: copies }, () => cancelReq(u, past)),
      ]);
      const onEdge = responses.slice(0, copies);
      const onPast = responses.slice(copies);
      assert.equal(count(onEdge, 200), 1, onEdge.map((r) => r.body).join(' | '));
      for (const r of onEdge.filter((x) => x.status !== 200)) assertError(r, 400);
      for (const r of onPast) {
        assert.equal(r.status, 403, r.body);
        assert.deepEqual(Object.keys(r.json<object>()).sort(), ['error', 'message']);
      }
      assert.equal((await betRow(edge)).status, 'CANCELLED');
      const untouched = await betRow(past);
      assert.deepEqual([untouched.status, untouched.closed_at, untouched.exit_price], ['OPEN', null, null]);

      // Moving clock: time passes at every reading while cancels of bets whose windows end around now race.
      assert.equal((await t.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: past }, headers: as(u) })).statusCode, 200);
      const start = clock.now() + 60_000;
      const staggered: Array<{ id: number; until: number }> = [];
      for (let i = 0; i < Math.min(baseBets - 1, 8 * opts.rounds); i++) {
        clock.set(start - 5 * 60_000 - 40 + 10 * i);
        staggered.push({ id: await open(u), until: clock.now() + 5 * 60_000 });
      }
      clock.set(start);
      clock.step = 1;
      const moving = await together(
        server,
        staggered.map((b) => cancelReq(u, b.id)),
      );
      clock.step = 0;
      for (let i = 0; i < staggered.length; i++) {
        const r = moving.responses[i]!;
        const bet = await betRow(staggered[i]!.id);
        if (r.status === 200) {
          assert.equal(bet.status, 'CANCELLED');
          assert.ok(bet.closed_at! <= staggered[i]!.until, `cancelled at ${bet.closed_at}, window until ${staggered[i]!.until}`);
        } else {
          assert.equal(r.status, 403, r.body);
          assert.deepEqual([bet.status, bet.closed_at], ['OPEN', null], `refused, yet ${bet.status}`);
        }
      }
      assert.equal(moving.responses[0]!.status, 403, 'a window that ended before the requests arrived');
      for (const b of staggered) {
        if ((await betRow(b.id)).status === 'OPEN')
          await t.app.inject({ method: 'POST', url: '/bet/close', payload: { bet_id: b.id }, headers: as(u) });
      }
    });

    test('duplicate registrations in parallel: exactly one 201, the rest 409 naming the value taken', async () => {
      for (let round = 0; round < opts.rounds; round++) {
        const username = uniqueName('dup');
        const byName = await together(
          server,
          Array.from({ length: 10 }, (_, i) => ({
            method: 'POST' as const,
            path: '/register',
            body: { username: i % 2 ? username.toUpperCase() : username, email: `${uniqueName()}@x.test`, password: PASSWORD },
          })),
        );
        const email = `${uniqueName()}@dup.test`;
        const byEmail = await together(
          server,
          Array.from({ length: 10 }, (_, i) => ({
            method: 'POST' as const,
            path: '/register',
            body: { username: uniqueName('dup'), email: i % 2 ? email.toUpperCase() : email, password: PASSWORD },
          })),
        );
        for (const [{ responses }, error] of [
          [byName, 'Username already exists'],
          [byEmail, 'Email already registered'],
        ] as const) {
          assert.equal(count(responses, 201), 1, responses.map((r) => `${r.status} ${r.body}`).join(' | '));
          for (const r of responses.filter((x) => x.status !== 201)) {
            assertError(r, 409);
            assert.deepEqual(r.json(), { error });
          }
        }
        const rows = await t.ctx.db
          .selectFrom('users')
          .select('id')
          .where((eb) => eb.or([eb('username_lower', '=', username.toLowerCase()), eb('email', '=', email)]))
          .execute();
        assert.equal(rows.length, 2);
      }
    });

    test('concurrent deliveries of one Stripe event: the plan is applied once, one event row', async () => {
      for (let round = 0; round < opts.rounds; round++) {
        const { u, sub } = await stripe.customerWithSubscription('active', 'price_pro');
        const event = stripe.completed(sub, u);
        const { payload, headers } = stripe.signed(event);
        const { responses } = await together(
          server,
          Array.from({ length: 8 }, () => ({ method: 'POST' as const, path: '/api/pay/webhook', headers, body: payload })),
        );
        for (const r of responses) assert.deepEqual([r.status, r.json()], [200, { received: true }], r.body);
        const rows = await t.ctx.db
          .selectFrom('pay_events')
          .select('event_id')
          .where('event_id', '=', event.id as string)
          .execute();
        assert.equal(rows.length, 1);
        const outcomes = logs.filter((l) => l.eventId === event.id).map((l) => l.outcome);
        assert.equal(outcomes.length, 8);
        assert.deepEqual(
          outcomes.filter((o) => o !== 'replay'),
          ['applied'],
        );
        const user = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', u.id).executeTakeFirstOrThrow();
        assert.deepEqual([user.pay_subscription_id, user.extra_bets, user.extra_slots], [sub.id, 40, 80]);
      }
    });

    test('the settlement worker against users closing the same due bets: each settles exactly once, at its due instant, and no close gets a later price', async () => {
      const worker = new PeriodicJob(settlementJob(t.ctx, quiet));
      for (let round = 0; round < opts.rounds; round++) {
        const u = await registerAndLogin(t.app);
        const today = utcDate(clock.now());
        const bets: number[] = [];
        for (let i = 0; i < baseBets; i++) bets.push(await open(u, { ticker: 'BTC-USD', direction: i % 2 ? 'LONG' : 'SHORT', target_date: today }));
        const due = Math.max(...(await Promise.all(bets.map(async (id) => (await betRow(id)).settle_at!))));
        clock.set(due + 1000);
        setPrice('BTC-USD', 51_000);
        try {
          const race = await together(
            server,
            bets.map((id) => closeReq(u, id)),
            () => worker.runOnce(),
          );
          // Past its settlement instant a bet is settled at that instant's quote, by whichever comes first: the close (which then answers 400) or the worker.
          assert.ok(race.alongside!.settled <= bets.length);
          for (let i = 0; i < bets.length; i++) {
            assertError(race.responses[i]!, 400);
            const bet = await betRow(bets[i]!);
            assert.equal(bet.status, 'CLOSED');
            assert.equal(bet.close_reason, 'settlement');
            assert.equal(bet.closed_at, bet.settle_at);
            assert.equal(bet.exit_price, 51_000);
          }
          const entries = await t.ctx.db
            .selectFrom('record_entries')
            .select('bet_id')
            .where('bet_id', 'in', bets)
            .where('kind', '=', 'settled')
            .execute();
          assert.equal(entries.length, bets.length, 'one settlement entry per bet');
          assert.equal(new Set(entries.map((e) => e.bet_id)).size, bets.length);
        } finally {
          setPrice('BTC-USD', 50_000);
        }
      }
    });
  });
}
