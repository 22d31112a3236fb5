// Kysely's SQLite driver prepares every query anew; preparing costs as much as
// running a short query. The same few hundred SQL texts repeat forever, so the
// prepared statements are kept (least recently used dropped past a bound).
// Safe because Kysely runs one query at a time on SQLite's single connection,
// and better-sqlite3 re-prepares a statement itself after a schema change.
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { LRUCache } from 'lru-cache';

export const STATEMENT_CACHE_SIZE = 500;

export function withStatementCache(sqlite: SQLite.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const cache = new LRUCache<string, SqliteStatement>({ max: size });
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (text: string) => {
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = sqlite.prepare(text) as unknown as SqliteStatement;
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}
