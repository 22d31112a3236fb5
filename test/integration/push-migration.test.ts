// 0031_push adds the devices and the outbox's third recipient column: the
// rows already queued stay as they were, exactly one recipient a row still
// holds (a push row names its device), a notice goes once per user on chat
// and email but once per device on push, and down takes it all back out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/database.js';
import { forEachDialect, migrateTestDatabaseTo, openTestDatabase } from '../helpers/db.js';

forEachDialect('0031_push', (dialect) => {
  test('queued rows stay, one recipient a row, once per device for push, and back down', async () => {
    const handle = await openTestDatabase(dialect);
    try {
      await migrateTestDatabaseTo(handle, '0026_commitment_backfill');
      const db = handle.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const user = await db
        .insertInto('users')
        .values({ username: 'ann', username_lower: 'ann', email: 'ann@x.test', password_hash: 'x', created_at: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = (transport: string, recipient: Record<string, unknown>, kind: string) => ({
        user_id: user.id,
        transport,
        kind,
        text: kind,
        status: 'pending',
        next_attempt_at: 1,
        created_at: 1,
        ...recipient,
      });
      await db
        .insertInto('notifications')
        .values([row('telegram', { chat_id: '4242' }, 'chat_reply'), row('email', { email: 'ann@x.test' }, 'email_verify')])
        .execute();
      const read = () => db.selectFrom('notifications').selectAll().orderBy('id').execute();

      await migrateTestDatabaseTo(handle, '0031_push');
      assert.deepEqual(
        (await read()).map((r) => [r.transport, r.chat_id, r.email, r.push_subscription_id, r.kind]),
        [
          ['telegram', '4242', null, null, 'chat_reply'],
          ['email', null, 'ann@x.test', null, 'email_verify'],
        ],
      );
      const device = async (endpoint: string) =>
        (
          await db
            .insertInto('push_subscriptions')
            .values({ user_id: user.id, endpoint, p256dh: 'k', auth: 'a', created_at: 1, updated_at: 1 })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      const d1 = await device('https://fcm.googleapis.com/fcm/send/1');
      const d2 = await device('https://fcm.googleapis.com/fcm/send/2');
      await assert.rejects(
        db
          .insertInto('push_subscriptions')
          .values({ user_id: user.id, endpoint: 'https://fcm.googleapis.com/fcm/send/1', p256dh: 'k', auth: 'a', created_at: 1, updated_at: 1 })
          .execute(),
        'one row an endpoint',
      );
      await assert.rejects(
        db.insertInto('push_subscription_kinds').values({ subscription_id: d1, kind: 'everything' }).execute(),
        'kinds are checked',
      );
      await assert.rejects(
        db
          .insertInto('notifications')
          .values(row('push', {}, 'bet_settled'))
          .execute(),
        'a push row names its device',
      );
      await assert.rejects(
        db
          .insertInto('notifications')
          .values(row('push', { push_subscription_id: d1, chat_id: 'x' }, 'bet_settled'))
          .execute(),
        'and only it',
      );
      await assert.rejects(
        db
          .insertInto('notifications')
          .values(row('telegram', { chat_id: '1', push_subscription_id: d1 }, 'chat_reply'))
          .execute(),
        'a chat row names no device',
      );

      // Once per device on push, once per user and channel elsewhere.
      await db
        .insertInto('notifications')
        .values([row('push', { push_subscription_id: d1 }, 'league_notice'), row('push', { push_subscription_id: d2 }, 'league_notice')])
        .execute();
      const bet = await db
        .insertInto('bets')
        .values({ user_id: user.id, ticker: 'AAPL', direction: 'LONG', status: 'OPEN', entry_price: 1, opened_at: 0, last_event_at: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const onBet = (transport: string, recipient: Record<string, unknown>) => ({ ...row(transport, recipient, 'bet_opened'), bet_id: bet.id });
      await db
        .insertInto('notifications')
        .values([onBet('push', { push_subscription_id: d1 }), onBet('push', { push_subscription_id: d2 }), onBet('telegram', { chat_id: '4242' })])
        .execute();
      await assert.rejects(
        db
          .insertInto('notifications')
          .values(onBet('push', { push_subscription_id: d1 }))
          .execute(),
        'the same device twice',
      );
      await assert.rejects(
        db
          .insertInto('notifications')
          .values(onBet('telegram', { chat_id: '9' }))
          .execute(),
        'the same user on the chat twice',
      );
      await db
        .insertInto('notifications')
        .values(onBet('telegram', { chat_id: '9' }))
        .onConflict((oc) => oc.doNothing())
        .execute();
      const onChat = await db
        .selectFrom('notifications')
        .select('chat_id')
        .where('bet_id', '=', bet.id)
        .where('transport', '=', 'telegram')
        .execute();
      assert.deepEqual(
        onChat.map((r) => r.chat_id),
        ['4242'],
        'an untargeted ON CONFLICT skips it on both dialects',
      );

      await migrateTestDatabaseTo(handle, '0026_commitment_backfill');
      const down = await read();
      assert.deepEqual(
        down.map((r) => [r.transport, r.chat_id, r.email]),
        [
          ['telegram', '4242', null],
          ['email', null, 'ann@x.test'],
          ['telegram', '4242', null],
        ],
      );
      assert.equal('push_subscription_id' in down[0]!, false);
      await migrateToLatest(handle);
    } finally {
      await handle.close();
    }
  });
});
