import type { AppContext } from '../context.js';
import { SEARCH_MAX_RESULTS, searchKey, searchPatterns } from '../domain/search.js';
import { searchUsers } from '../repositories/user-search.js';
import type { PublicUser } from '../schemas/users.js';

/** The part of the context this module uses. */
export type UserSearchDeps = Pick<AppContext, 'db'>;

export async function findUsers(ctx: UserSearchDeps, q: string | undefined): Promise<PublicUser[]> {
  const key = searchKey(q);
  if (key === null) return [];
  return searchUsers(ctx.db, searchPatterns(key), SEARCH_MAX_RESULTS);
}
