// Username search over live accounts, best match first.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { SearchPatterns } from '../domain/search.js';

/**
 * Exact match first, then prefix, then any other substring; ties by length, then name.
 * Reads only users_search_idx (a covering scan: substring matches cannot seek).
 */
export function searchUsersQuery(db: Db, p: SearchPatterns, limit: number) {
  const like = (pattern: string) => sql<boolean>`username_lower like ${pattern} escape '\\'`;
  return (
    db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('deleted_at', 'is', null)
      .where(like(p.substring))
      .orderBy((eb) => eb.case().when('username_lower', '=', p.exact).then(0).when(like(p.prefix)).then(1).else(2).end())
      // Within a tier the closer (shorter) name first.
      .orderBy((eb) => eb.fn('length', ['username_lower']))
      .orderBy('username_lower')
      .limit(limit)
  );
}

export async function searchUsers(db: Db, p: SearchPatterns, limit: number): Promise<Array<{ id: number; username: string }>> {
  const rows = await searchUsersQuery(db, p, limit).execute();
  return rows.map((r) => ({ id: Number(r.id), username: r.username }));
}
