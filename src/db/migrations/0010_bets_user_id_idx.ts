import type { Kysely } from 'kysely';

// Export walks a user's bets in id order (keyset paging).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('bets_user_id_idx').on('bets').columns(['user_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('bets_user_id_idx').execute();
}
