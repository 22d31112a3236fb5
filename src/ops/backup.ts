// Online backup of the SQLite database through SQLite's backup API: pages are
// copied in steps while the service keeps reading and writing, and the result
// is one consistent snapshot (the API restarts a step when a writer changed a
// page it had copied).
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { DatabaseConfig } from '../config.js';

export interface BackupResult {
  file: string;
  pages: number;
  tables: Record<string, number>;
}

export async function backupSqlite(source: DatabaseConfig, file: string): Promise<BackupResult> {
  if (source.dialect !== 'sqlite') throw new Error('db:backup is for SQLite; use pg_dump for PostgreSQL');
  if (source.path === ':memory:') throw new Error('an in-memory database cannot be backed up');
  if (!fs.existsSync(source.path)) throw new Error(`no database at ${source.path}`);
  const target = path.resolve(file);
  if (target === path.resolve(source.path)) throw new Error('the backup file must not be the database itself');
  if (fs.existsSync(target)) throw new Error(`${file} already exists; choose a new file`);
  fs.mkdirSync(path.dirname(target), { recursive: true });

  const db = new SQLite(source.path, { fileMustExist: true });
  let pages = 0;
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(target, {
      progress: ({ totalPages }) => {
        pages = totalPages;
        // Small steps leave room for the service's writers between them.
        return 256;
      },
    });
  } finally {
    db.close();
  }
  return { file: target, pages, tables: verifyBackup(target) };
}

/** Opens the backup on its own and checks it: integrity, and the row count of each table. */
export function verifyBackup(file: string): Record<string, number> {
  const copy = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const check = copy.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new Error(`backup failed its integrity check: ${String(check)}`);
    const tables = copy.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as Array<{
      name: string;
    }>;
    const counts: Record<string, number> = {};
    for (const { name } of tables) counts[name] = (copy.prepare(`select count(*) as n from "${name}"`).get() as { n: number }).n;
    return counts;
  } finally {
    copy.close();
  }
}
