// 0021_outbox_recipients moves each mail row's address out of chat_id into
// the email column, leaves chat rows as they were, and down puts it back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/database.js';
import { forEachDialect, migrateTestDatabaseTo, openTestDatabase } from '../helpers/db.js';

forEachDialect('0021_outbox_recipients', (dialect) => {
  test('mail addresses move to the email column, chats stay in chat_id, one recipient a row, and back down', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0020_league_tallies');
      const db = handle.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const user = await db
        .insertInto('users')
        .values({ username: 'ann', username_lower: 'ann', email: 'ann@x.test', password_hash: 'x', created_at: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = (transport: string, chat_id: string, kind: string) => ({
        user_id: user.id,
        transport,
        chat_id,
        kind,
        text: kind,
        status: 'pending',
        next_attempt_at: 1,
        created_at: 1,
      });
      await db
        .insertInto('notifications')
        .values([row('telegram', '4242', 'chat_reply'), row('email', 'ann@x.test', 'email_verify'), row('log', 'chat-7', 'chat_reply')])
        .execute();
      const read = () => db.selectFrom('notifications').selectAll().orderBy('id').execute();

      await migrateTestDatabaseTo(handle, '0021_outbox_recipients');
      const up = await read();
      assert.deepEqual(
        up.map((r) => [r.transport, r.chat_id, r.email, r.kind, r.status]),
        [
          ['telegram', '4242', null, 'chat_reply', 'pending'],
          ['email', null, 'ann@x.test', 'email_verify', 'pending'],
          ['log', 'chat-7', null, 'chat_reply', 'pending'],
        ],
      );
      await assert.rejects(
        db
          .insertInto('notifications')
          .values({ ...row('email', 'x', 'email_verify'), email: 'ann@x.test' })
          .execute(),
        'a row with two recipients is refused',
      );
      await assert.rejects(
        db
          .insertInto('notifications')
          .values({ ...row('telegram', 'x', 'chat_reply'), chat_id: null })
          .execute(),
        'and one with none',
      );

      await migrateTestDatabaseTo(handle, '0020_league_tallies');
      const down = await read();
      assert.deepEqual(
        down.map((r) => [r.transport, r.chat_id, r.kind]),
        [
          ['telegram', '4242', 'chat_reply'],
          ['email', 'ann@x.test', 'email_verify'],
          ['log', 'chat-7', 'chat_reply'],
        ],
      );
      assert.equal('email' in down[0]!, false);
      await migrateToLatest(handle);
    } finally {
      await handle.close();
    }
  });
});
