// 0012_rankings fills the day aggregates from bets closed before it ran, so
// every window counts the whole history (those bets have no benchmark, no alpha).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/database.js';
import { forEachDialect, migrateTestDatabaseTo, openTestDatabase } from '../helpers/db.js';

forEachDialect('0012_rankings backfill', (dialect) => {
  test('closed bets become per-user per-UTC-day rows; cancelled and open bets do not', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0011_record');
      // The tables as they were before 0012: no benchmark columns yet.
      const db = handle.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const user = await db
        .insertInto('users')
        .values({ username: 'old_trader', username_lower: 'old_trader', email: 'o@x.test', password_hash: 'x', created_at: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const bet = (gain: number | null, closedAt: string | null, status: string) => ({
        user_id: user.id,
        ticker: 'AAPL',
        direction: 'LONG',
        status,
        entry_price: 100,
        exit_price: closedAt ? 100 + (gain ?? 0) : null,
        percentage_gain: gain,
        opened_at: Date.parse('2026-03-01T20:00:00Z'),
        closed_at: closedAt ? Date.parse(closedAt) : null,
        last_event_at: Date.parse('2026-03-01T20:00:00Z'),
      });
      await db
        .insertInto('bets')
        .values([
          bet(5, '2026-03-01T23:59:59.999Z', 'CLOSED'),
          bet(-2, '2026-03-01T21:00:00Z', 'CLOSED'),
          bet(7, '2026-03-02T00:00:00Z', 'CLOSED'),
          bet(0, '2026-03-02T00:01:00Z', 'CANCELLED'),
          bet(null, null, 'OPEN'),
        ])
        .execute();
      await migrateToLatest(handle);
      // The raw sums (the ranked ones, added by 0023, stay zero: these bets have no ranked gain).
      const rows = await handle.db
        .selectFrom('user_day_stats')
        .select(['user_id', 'day', 'trades', 'score_sum', 'wins', 'alpha_count', 'alpha_sum', 'alpha_sq_sum', 'ranked_trades'])
        .orderBy('day')
        .execute();
      assert.deepEqual(
        rows.map((r) => ({ ...r, user_id: Number(r.user_id) })),
        [
          {
            user_id: Number(user.id),
            day: '2026-03-01',
            trades: 2,
            score_sum: 3,
            wins: 1,
            alpha_count: 0,
            alpha_sum: 0,
            alpha_sq_sum: 0,
            ranked_trades: 0,
          },
          {
            user_id: Number(user.id),
            day: '2026-03-02',
            trades: 1,
            score_sum: 7,
            wins: 1,
            alpha_count: 0,
            alpha_sum: 0,
            alpha_sq_sum: 0,
            ranked_trades: 0,
          },
        ],
      );
    } finally {
      await handle.close();
    }
  });
});
