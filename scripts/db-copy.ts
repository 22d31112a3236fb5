// npm run db:copy -- FROM_URL TO_URL
// Copies a SQLite database (sqlite:PATH) into a fresh PostgreSQL database
// (postgres://…): schema by the migrations, every row, sequences, then checks.
// Stop the service first, or copy from a backup (npm run db:backup).
import { parseDatabaseUrl } from '../src/config.js';
import { copySqliteToPostgres } from '../src/ops/copy.js';

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error('usage: npm run db:copy -- sqlite:PATH postgres://USER@HOST/DB');
  process.exit(2);
}
try {
  const result = await copySqliteToPostgres(parseDatabaseUrl(from), parseDatabaseUrl(to), (line) => console.log(line));
  const total = result.tables.reduce((n, t) => n + t.rows, 0);
  console.log(`copied ${total} rows in ${result.tables.length} tables; row counts and the leaderboard (${result.leaderboardUsers} users) verified`);
} catch (err) {
  console.error(`copy failed: ${(err as Error).message}`);
  process.exit(1);
}
