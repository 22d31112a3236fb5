// Accounts made straight in the database, for tests that need many users but
// never log in as them (no password hashing).
import assert from 'node:assert/strict';
import type { AppContext } from '../../src/context.js';
import { usernameKey } from '../../src/domain/accounts.js';
import { forgetTimelinesOf } from '../../src/repositories/timeline.js';
import { insertUser } from '../../src/repositories/users.js';
import { uniqueName } from './app.js';

export async function insertTestUser(ctx: AppContext, username: string): Promise<number> {
  return insertUser(ctx.db, {
    username,
    username_lower: usernameKey(username),
    email: `${usernameKey(username)}@example.test`,
    password_hash: '$argon2id$not-a-real-hash',
    pay_customer_id: `cus_${usernameKey(username)}`,
    pay_subscription_id: `sub_${usernameKey(username)}`,
    created_at: ctx.clock.now(),
  });
}

/** Many accounts in one statement; their ids in order. */
export async function insertTestUsers(ctx: AppContext, n: number, prefix = 'many'): Promise<number[]> {
  const rows = Array.from({ length: n }, () => {
    const username = uniqueName(prefix);
    return {
      username,
      username_lower: usernameKey(username),
      email: `${usernameKey(username)}@example.test`,
      password_hash: '$argon2id$not-a-real-hash',
      created_at: ctx.clock.now(),
    };
  });
  const ids = await ctx.db.insertInto('users').values(rows).returning('id').execute();
  return ids.map((r) => r.id);
}

/** Marks the account deleted and takes its bets out of the feed, as a deletion does (its follows stay). */
export async function deleteTestUser(ctx: AppContext, id: number): Promise<void> {
  await ctx.db.updateTable('users').set({ deleted_at: ctx.clock.now() }).where('id', '=', id).execute();
  await forgetTimelinesOf(ctx.db, id);
}

export async function setExtraSlots(ctx: AppContext, id: number, extraSlots: number): Promise<void> {
  await ctx.db.updateTable('users').set({ extra_slots: extraSlots }).where('id', '=', id).execute();
}

const PRIVATE = /^(email|password|password_hash|follow_capacity|bet_capacity|extra_slots|extra_bets|pay_.*|deleted_at)$/;

/** Fails when any key at any depth of a public response names private account data. */
export function assertNoPrivateFields(body: unknown, where = 'body'): void {
  if (Array.isArray(body)) {
    for (const [i, v] of body.entries()) assertNoPrivateFields(v, `${where}[${i}]`);
    return;
  }
  if (body === null || typeof body !== 'object') return;
  for (const [k, v] of Object.entries(body)) {
    assert.doesNotMatch(k, PRIVATE, `${where}.${k} is private`);
    assertNoPrivateFields(v, `${where}.${k}`);
  }
}
