// User search rules with no I/O.

export const SEARCH_MAX_RESULTS = 20;

/** The escape character our LIKE patterns declare (ESCAPE '\'), the same on both dialects. */
export const LIKE_ESCAPE = '\\';

/** Makes %, _ and the escape character itself match literally inside a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => LIKE_ESCAPE + c);
}

/**
 * What a search query matches on: usernames are unique without regard to case,
 * so the query is lower-cased like users.username_lower. Surrounding blanks
 * cannot be part of a username and are dropped; null means "no query" (empty list).
 */
export function searchKey(q: string | undefined): string | null {
  const key = (q ?? '').trim().toLowerCase();
  return key === '' ? null : key;
}

export interface SearchPatterns {
  exact: string;
  prefix: string;
  substring: string;
}

export function searchPatterns(key: string): SearchPatterns {
  const escaped = escapeLike(key);
  return { exact: key, prefix: `${escaped}%`, substring: `%${escaped}%` };
}
