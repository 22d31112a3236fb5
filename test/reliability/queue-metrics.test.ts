// The other parts feed the metrics: price cache hits and misses, provider
// errors, settlement lag and outbox depth read at scrape time.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { FakePriceProvider } from '../helpers/prices.js';

forEachDialect('metrics fed by prices, settlement and the outbox', (dialect) => {
  let t: TestApp;
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices } });
  });
  after(() => t.close());

  const value = (text: string, name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(name));
    return line ? Number(line.split(' ').pop()) : NaN;
  };

  test('cache hits and misses, provider errors, settlement lag and outbox depth move', async () => {
    const u = await registerAndLogin(t.app);
    const price = () => t.app.inject({ method: 'GET', url: '/price/AAPL', headers: { cookie: u.cookie } });
    assert.equal((await price()).statusCode, 200);
    assert.equal((await price()).statusCode, 200);
    prices.failing.add('MSFT');
    assert.equal((await t.app.inject({ method: 'GET', url: '/price/MSFT', headers: { cookie: u.cookie } })).statusCode, 503);

    const now = t.clock.now();
    await t.ctx.db
      .insertInto('bets')
      .values({
        user_id: u.id,
        ticker: 'AAPL',
        direction: 'LONG',
        status: 'OPEN',
        entry_price: 100,
        exit_price: null,
        percentage_gain: null,
        target_date: '2026-03-01',
        settle_at: now - 90_000,
        opened_at: now - 86_400_000,
        closed_at: null,
        last_event_at: now - 86_400_000,
        close_reason: null,
        source_bet_id: null,
        source_kind: null,
      })
      .execute();
    await t.ctx.db
      .insertInto('notifications')
      .values({
        user_id: u.id,
        transport: 'log',
        chat_id: 'x',
        kind: 'bet_opened',
        text: 'hi',
        bet_id: null,
        status: 'pending',
        next_attempt_at: now,
        claim_token: null,
        claimed_until: null,
        created_at: now,
        sent_at: null,
        last_error: null,
      } as never)
      .execute();

    const text = await t.ctx.metrics.scrape();
    assert.ok(value(text, 'price_cache_hits_total') >= 1, 'a hit');
    assert.ok(value(text, 'price_cache_misses_total') >= 2, 'misses');
    assert.ok(value(text, 'provider_errors_total{') >= 1, 'a provider error');
    assert.ok(value(text, 'settlement_lag_seconds') >= 90, 'settlement lag');
    assert.equal(value(text, 'outbox_depth{channel="log"}'), 1);
  });

  test("group commit's transactions and batches are counted on SQLite, and absent on PostgreSQL", async () => {
    const u = await registerAndLogin(t.app);
    const before = await t.ctx.metrics.scrape();
    await Promise.all(
      ['AAPL', 'MSFT', 'NVDA'].map((ticker) =>
        t.ctx.database.transaction((trx) =>
          trx
            .selectFrom('users')
            .select('id')
            .where('id', '=', u.id)
            .execute()
            .then(() => ticker),
        ),
      ),
    );
    const text = await t.ctx.metrics.scrape();
    const moved = (name: string) => value(text, name) - (value(before, name) || 0);
    if (dialect === 'sqlite') {
      assert.ok(moved('db_group_commit_transactions_total') >= 3, 'three transactions at least');
      assert.ok(moved('db_group_commit_batches_total') >= 1 && moved('db_group_commit_batches_total') <= moved('db_group_commit_transactions_total'));
    } else {
      assert.equal(value(text, 'db_group_commit_transactions_total'), 0);
    }
  });
});
