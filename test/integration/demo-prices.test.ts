// npm run demo's data (issue 36 item 3): the generated bets repriced at the
// simulated market the demo's server quotes (bench/lib/demo-prices.ts). The
// service itself, built on that database with the same seed, must agree with
// every price; the ranked board, the rankings and the statistics are
// populated; and every user's record verifies as `npm run verify-log` does it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { priceDemoBets } from '../../bench/lib/demo-prices.js';
import { databaseUrlOf, generate, type GenerateTarget } from '../../bench/lib/generate.js';
import { PRESETS } from '../../bench/lib/presets.js';
import { ROLES } from '../../bench/lib/roles.js';
import { buildApp } from '../../src/app.js';
import { loadConfig, parseDatabaseUrl } from '../../src/config.js';
import { type DatabaseHandle, type Dialect, openDatabase } from '../../src/db/database.js';
import { verifyUserRecord } from '../../src/domain/verify-record.js';
import { FakeClock } from '../../src/lib/clock.js';
import type { CachedPriceService } from '../../src/services/prices.js';
import type { UserRecord } from '../../src/schemas/record.js';
import { forEachDialect, PG_URL } from '../helpers/db.js';

const SEED = 'demo-prices-test-seed-not-a-secret-0123456789';

forEachDialect("the demo's data at the service's own prices", (dialect: Dialect) => {
  let target: GenerateTarget;
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  let dir: string | null = null;
  const now = Date.now();
  let priced: Awaited<ReturnType<typeof priceDemoBets>>;

  before(async () => {
    if (dialect === 'sqlite') {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-prices-'));
      target = { dialect: 'sqlite', path: path.join(dir, 'demo.db') };
    } else {
      target = { dialect: 'postgres', url: PG_URL!, schema: `demo_p_${randomBytes(4).toString('hex')}` };
    }
    await generate(PRESETS.tiny, target, () => undefined, now);
    const config = loadConfig({
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrlOf(target),
      RATE_LIMITS: 'off',
      WORKERS: 'off',
      MARKET_SEED: SEED,
      LOG_LEVEL: 'warn',
    });
    config.mailbox = null;
    priced = await priceDemoBets(target, config.marketSeed, config.marketCalendar, now);
    handle = openDatabase(parseDatabaseUrl(databaseUrlOf(target)), target.dialect === 'postgres' ? { pgSchema: target.schema } : {});
    app = await buildApp(config, { logger: false, database: handle, clock: new FakeClock(now) });
  });
  after(async () => {
    await app?.close();
    await handle?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (target.dialect === 'postgres') {
      const c = new pg.Client({ connectionString: PG_URL! });
      await c.connect();
      await c.query(`drop schema if exists ${target.schema} cascade`);
      await c.end();
    }
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json() as T;
  };

  test("every bet's prices are the service's own quotes at its instants", async () => {
    assert.equal(priced.bets, PRESETS.tiny.finishedBets + PRESETS.tiny.openBets);
    assert.ok(priced.ranked > PRESETS.tiny.finishedBets / 2, `most closes are ranked (${priced.ranked})`);
    // The market the service quotes from: its own provider, as the server builds it from the seed.
    const provider = (app.ctx.prices as CachedPriceService).provider;
    const bets = await handle.db.selectFrom('bets').selectAll().orderBy('id').execute();
    // Every 7th bet, and every one of the demo user's: a few thousand checks, a few dozen hashes each.
    for (const bet of bets.filter((b, i) => i % 7 === 0 || b.user_id === ROLES.demo.id)) {
      const at = (t: number) => provider.priceAt(bet.ticker, t);
      assert.equal(bet.entry_price, await at(bet.opened_at), `bet ${bet.id} entry`);
      assert.equal(bet.unranked_reason, null, `bet ${bet.id} is never flagged unquoted`);
      if (bet.status === 'CLOSED') {
        assert.equal(bet.exit_price, await at(bet.closed_at!), `bet ${bet.id} exit`);
        if (bet.committed_price !== null) {
          assert.equal(bet.committed_price, await at(bet.opened_at + 5 * 60_000), `bet ${bet.id} committed`);
          assert.ok(bet.closed_at! >= bet.opened_at + 5 * 60_000, `bet ${bet.id} was held past its window`);
          assert.notEqual(bet.ranked_gain, null);
        } else assert.equal(bet.ranked_gain, null);
      }
      if (bet.status === 'OPEN') assert.equal(bet.committed_price, await at(bet.opened_at + 5 * 60_000), `open bet ${bet.id} committed`);
    }
    // The demo user's open bets are marked at the price a trader sees now.
    const detail = await get<{ entry_price: number; ticker: string; entry_date: string }>(
      `/bet/${bets.find((b) => b.user_id === ROLES.demo.id && b.status === 'CLOSED')!.id}`,
    );
    assert.equal(detail.entry_price, await provider.priceAt(detail.ticker, Date.parse(detail.entry_date)));
  });

  test('the ranked board, the rankings and the statistics are populated', async () => {
    const ranked = await get<Array<{ id: number; total_trades: number }>>('/leaderboard/ranked?period=all');
    assert.ok(ranked.length > 10, `ranked board rows: ${ranked.length}`);
    const rankings = await get<{ rows?: unknown[] } | unknown[]>('/rankings?period=all&min_trades=1');
    const rows = Array.isArray(rankings) ? rankings : (Object.values(rankings).find(Array.isArray) as unknown[]);
    assert.ok(rows && rows.length > 10, 'the rankings list traders');
    const stats = await get<{ ranked_trades: number; closed_trades: number }>(`/user/${ROLES.demo.id}/stats`);
    assert.ok(stats.ranked_trades > 0 && stats.ranked_trades <= stats.closed_trades);
  });

  test("every user's record verifies, bets against their latest events", async () => {
    const users = await handle.db.selectFrom('bets').select('user_id').distinct().execute();
    assert.ok(priced.recordEntries > priced.bets, 'openings, commitments and ends');
    for (const { user_id } of users) {
      const record = await get<UserRecord>(`/record/user/${user_id}`);
      assert.deepEqual(verifyUserRecord(record), [], `user ${user_id}`);
      assert.ok(record.bets.length > 0);
    }
  });
});
