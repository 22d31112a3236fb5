// The outbox's reads with one channel's backlog large (migration 0042): a
// channel's claim is one seek of notifications_pending_idx, whatever another
// channel holds; the depth gauge counts that index's entries alone; the drops
// by chat and by device read it too. On SQLite without statistics (the
// service never runs ANALYZE) and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { dropPendingOfChat } from '../../src/repositories/notifications.js';
import { claimDue } from '../../src/repositories/outbox.js';
import { dropPendingOfDevice } from '../../src/repositories/push.js';
import { observeQueues } from '../../src/services/queue-metrics.js';
import { Metrics } from '../../src/metrics.js';
import { forEachDialect, migrateTestDatabaseTo, migrationFixture, openTestDatabase, type TestDatabase } from '../helpers/db.js';
import { capturedQueries, explain } from '../helpers/explain.js';

const NOW = 1_800_000_000_000;
const BACKLOG = 3_000;

forEachDialect('outbox plans', (dialect) => {
  let handle: TestDatabase;
  let userId: number;
  before(async () => {
    handle = await openTestDatabase(dialect, { migrated: true });
    if (dialect === 'postgres') await migrateTestDatabaseTo(handle, '0042_outbox_pending_by_channel');
    userId = await migrationFixture(handle).insertUser(`ox_${dialect[0]}${Date.now()}`);
    const row = (i: number, transport: 'log' | 'email', status: 'pending' | 'sent') => ({
      user_id: userId,
      transport,
      chat_id: transport === 'log' ? `chat-${i % 7}` : null,
      email: transport === 'email' ? 'a@x.test' : null,
      kind: 'chat_reply' as const,
      text: `n${i}`,
      bet_id: null,
      status,
      next_attempt_at: NOW - BACKLOG + i,
      created_at: NOW - BACKLOG,
    });
    // One channel's backlog, the delivered past of both, and two due rows of the other channel behind the backlog.
    const rows = [
      ...Array.from({ length: BACKLOG }, (_, i) => row(i, 'log', 'pending')),
      ...Array.from({ length: BACKLOG }, (_, i) => row(i, i % 2 ? 'log' : 'email', 'sent')),
      row(BACKLOG - 2, 'email', 'pending'),
      row(BACKLOG - 1, 'email', 'pending'),
    ];
    for (let i = 0; i < rows.length; i += 500)
      await handle.db
        .insertInto('notifications')
        .values(rows.slice(i, i + 500))
        .execute();
    if (dialect === 'postgres') await sql`analyze notifications`.execute(handle.db);
  });
  after(() => handle.close());

  const planOf = async (fn: (db: Db) => Promise<unknown>) => {
    const queries = await capturedQueries(handle.db, fn);
    assert.equal(queries.length, 1);
    return explain(handle, queries[0]!, { noSeqScan: true });
  };

  test("a channel's claim seeks its own due rows, past another channel's backlog", async () => {
    const email = await claimDue(handle.db, 'email', 'tok-e', NOW, NOW + 60_000, 20);
    assert.deepEqual(
      email.map((r) => [r.transport, r.text]),
      [
        ['email', `n${BACKLOG - 2}`],
        ['email', `n${BACKLOG - 1}`],
      ],
    );
    const log = await claimDue(handle.db, 'log', 'tok-l', NOW, NOW + 60_000, 20);
    assert.deepEqual(
      log.map((r) => r.text),
      Array.from({ length: 20 }, (_, i) => `n${i}`),
    );
    for (const channel of ['email', 'log'] as const) {
      const plan = await planOf((db) => claimDue(db, channel, 'tok-x', NOW, NOW + 60_000, 20));
      if (dialect === 'sqlite') {
        assert.match(plan, /SEARCH notifications USING INDEX notifications_pending_idx \(transport=\? AND next_attempt_at<\?\)/, plan);
        assert.doesNotMatch(plan, /SCAN notifications|notifications_user_idx|TEMP B-TREE/, plan);
      } else {
        assert.match(plan, /Index Scan using notifications_pending_idx/, plan);
        assert.doesNotMatch(plan, /Seq Scan/, plan);
      }
    }
  });

  test("the depth gauge counts the pending index's entries, one figure a channel", async () => {
    const metrics = new Metrics();
    await observeQueues({ clock: { now: () => NOW } as never, db: handle.db, database: handle, metrics });
    const text = await metrics.registry.metrics();
    // Twenty-two are claimed above: claimed rows are still pending.
    assert.match(text, new RegExp(`outbox_depth\\{channel="log"\\} ${BACKLOG}\\b`), text);
    assert.match(text, /outbox_depth\{channel="email"\} 2\b/, text);
    const queries = await capturedQueries(handle.db, (db) => observeQueues({ clock: { now: () => NOW } as never, db, database: handle, metrics }));
    const count = queries.find((q) => /from "notifications"/.test(q.sql))!;
    const plan = await explain(handle, count, { noSeqScan: true });
    if (dialect === 'sqlite') assert.match(plan, /^SCAN notifications USING COVERING INDEX notifications_pending_idx$/, plan);
    else assert.match(plan, /Index Only Scan using notifications_pending_idx|Bitmap Index Scan on notifications_pending_idx/, plan);
  });

  test('the drops by chat and by device read an index, never the whole table', async () => {
    const chat = await planOf((db) => dropPendingOfChat(db, { transport: 'log', chatId: 'chat-3' }, 'test'));
    if (dialect === 'sqlite') assert.match(chat, /SEARCH notifications USING INDEX notifications_pending_idx \(transport=\?\)/, chat);
    else assert.match(chat, /notifications_pending_idx/, chat);
    // A device's rows have an index of their own (notifications_push_once_uq) where the dialect prefers it.
    const device = await planOf((db) => dropPendingOfDevice(db, 12345, 'test'));
    assert.match(device, /USING INDEX|Index Scan/, device);
    assert.doesNotMatch(device, /^SCAN notifications$|Seq Scan/m, device);
  });

  test('migration 0042 goes back and forth', async () => {
    const own = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(own, '0042_outbox_pending_by_channel');
      await migrateTestDatabaseTo(own, '0041_bets_index_diet');
      await migrateTestDatabaseTo(own, '0042_outbox_pending_by_channel');
    } finally {
      await own.close();
    }
  });
});
