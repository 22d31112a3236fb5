// npm run db:backup -- FILE
// Consistent online backup of the SQLite database named by DATABASE_URL
// (default sqlite:./data/bets.db), safe while the service runs.
import { parseDatabaseUrl } from '../src/config.js';
import { backupSqlite } from '../src/ops/backup.js';

const file = process.argv[2];
if (!file) {
  console.error('usage: npm run db:backup -- FILE   (DATABASE_URL names the database, default sqlite:./data/bets.db)');
  process.exit(2);
}
try {
  const result = await backupSqlite(parseDatabaseUrl(process.env.DATABASE_URL ?? 'sqlite:./data/bets.db'), file);
  const rows = Object.entries(result.tables)
    .map(([t, n]) => `${t}=${n}`)
    .join(' ');
  console.log(`backup written to ${result.file} (${result.pages} pages, integrity ok): ${rows}`);
} catch (err) {
  console.error(`backup failed: ${(err as Error).message}`);
  process.exit(1);
}
