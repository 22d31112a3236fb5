import { type Kysely, sql } from 'kysely';

// Accounts deleted before this migration were renamed deleted_<id>, a name
// registration could produce. They take the values deletion now writes
// (domain/accounts.ts deletedIdentity), which no registration can hold. Only
// rows flagged deleted change: a live account is never touched, whatever its name.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update users
    set username = 'deleted:' || cast(id as text),
        username_lower = 'deleted:' || cast(id as text),
        email = 'deleted:' || cast(id as text) || '@deleted.invalid'
    where deleted_at is not null`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to undo: the old names only marked rows that deleted_at already marks.
}
