import type { Db } from '../db/database.js';
import type { ChatLinkRow, ChatTransportName } from '../db/tables.js';

export interface ChatAddress {
  transport: ChatTransportName;
  chatId: string;
}

export async function findLinkOfUser(db: Db, userId: number, transport: ChatTransportName): Promise<ChatLinkRow | undefined> {
  return db.selectFrom('chat_links').selectAll().where('user_id', '=', userId).where('transport', '=', transport).executeTakeFirst();
}

export async function findLinkOfChat(db: Db, chat: ChatAddress): Promise<ChatLinkRow | undefined> {
  return db.selectFrom('chat_links').selectAll().where('transport', '=', chat.transport).where('chat_id', '=', chat.chatId).executeTakeFirst();
}

/** Links the chat to the user, taking it from any other user and replacing the user's previous chat. */
export async function upsertLink(db: Db, userId: number, chat: ChatAddress, now: number): Promise<void> {
  await deleteLinkOfChat(db, chat);
  await db
    .insertInto('chat_links')
    .values({ user_id: userId, transport: chat.transport, chat_id: chat.chatId, linked_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ transport: chat.transport, chat_id: chat.chatId, linked_at: now }))
    .execute();
}

export async function deleteLinkOfUser(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('chat_links').where('user_id', '=', userId).execute();
}

/** Returns the user the chat was linked to, if any. */
export async function deleteLinkOfChat(db: Db, chat: ChatAddress): Promise<number | null> {
  const row = await db
    .deleteFrom('chat_links')
    .where('transport', '=', chat.transport)
    .where('chat_id', '=', chat.chatId)
    .returning('user_id')
    .executeTakeFirst();
  return row ? Number(row.user_id) : null;
}

export async function putLinkCode(db: Db, userId: number, codeHash: string, now: number, expiresAt: number): Promise<void> {
  await db
    .insertInto('chat_link_codes')
    .values({ user_id: userId, code_hash: codeHash, created_at: now, expires_at: expiresAt })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ code_hash: codeHash, created_at: now, expires_at: expiresAt }))
    .execute();
}

/** Uses up a live code: deletes it and returns its user, or null when unknown, used or expired. */
export async function takeLinkCode(db: Db, codeHash: string, now: number): Promise<number | null> {
  const row = await db
    .deleteFrom('chat_link_codes')
    .where('code_hash', '=', codeHash)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row ? Number(row.user_id) : null;
}

export async function peekLinkCode(db: Db, codeHash: string, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('chat_link_codes')
    .select('user_id')
    .where('code_hash', '=', codeHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row ? Number(row.user_id) : null;
}
