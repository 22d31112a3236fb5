import { type Kysely, sql } from 'kysely';

// User search is a case-insensitive substring match, which no b-tree can seek.
// This narrow partial index covers the whole query (username_lower to match,
// username and id to answer, live accounts only; deleted_at, always null
// here, is listed so SQLite too sees the index as covering), so a search
// reads this index instead of the users table with its hashes and emails.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('users_search_idx')
    .on('users')
    .columns(['username_lower', 'username', 'id', 'deleted_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_search_idx').execute();
}
