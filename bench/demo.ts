// npm run demo: the service on a database of its own holding the small
// population (a few hundred users with bets, follows and a leaderboard), so a
// newcomer sees a lively service at once. The database is ./data/demo.db
// unless --database names another (SQLite or PostgreSQL; on PostgreSQL a
// schema of its own, "demo"); one that already holds users is refused unless
// --reset says to replace the demo data (bench/lib/demo-database.ts).
import { spawn } from 'node:child_process';
import { ConfigError, loadConfig } from '../src/config.js';
import { priceDemoBets } from './lib/demo-prices.js';
import { DEMO_USAGE, DemoUsageError, demoTarget, parseDemoArgs, refusal } from './lib/demo-database.js';
import { databaseUrlOf, generate } from './lib/generate.js';
import { PRESETS } from './lib/presets.js';
import { BENCH_PASSWORD, emailOf, ROLES } from './lib/roles.js';

let options: ReturnType<typeof parseDemoArgs>;
let target: ReturnType<typeof demoTarget>;
try {
  options = parseDemoArgs(process.argv.slice(2));
  target = demoTarget(options.database);
} catch (err) {
  if (!(err instanceof DemoUsageError || err instanceof ConfigError)) throw err;
  console.error(`${err.message}\n${DEMO_USAGE}`);
  process.exit(2);
}
const databaseUrl = databaseUrlOf(target);
const env = { ...process.env, DATABASE_URL: databaseUrl };
// The same validation `npm start` applies, before spending time on data.
const config = loadConfig(env);
const refused = await refusal(target, options.reset);
if (refused) {
  console.error(refused);
  process.exit(1);
}
const where = target.dialect === 'sqlite' ? target.path : `schema ${target.schema} of ${options.database.replace(/\/\/[^@]*@/, '//***@')}`;

await generate(PRESETS.small, target);
// At the prices the server will quote for the bets' instants, so rankings, statistics and the record are real (bench/lib/demo-prices.ts).
const priced = await priceDemoBets(target, config.marketSeed, config.marketCalendar);
console.log(`Priced ${priced.bets} bets at the simulated market's quotes (${priced.ranked} ranked), ${priced.recordEntries} record entries.`);

const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
const health = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/`;
for (let i = 0; i < 300; i++) {
  const up = await fetch(health).then(
    (r) => r.ok,
    () => false,
  );
  if (up) {
    console.log(
      [
        '',
        `Demo running on ${config.publicUrl} (web app ${config.webUrl}) with ${where}: ${PRESETS.small.users} users, their bets, follows and leaderboard.`,
        `Log in as ${emailOf(ROLES.demo.id)} with the password "${BENCH_PASSWORD}" (every generated user has it),`,
        `e.g. curl -c jar -H 'content-type: application/json' -d '{"email":"${emailOf(ROLES.demo.id)}","password":"${BENCH_PASSWORD}"}' ${config.publicUrl}/login`,
        'Stop with Ctrl-C. `npm run demo -- --reset` starts again from fresh data.',
        '',
      ].join('\n'),
    );
    break;
  }
  await new Promise((r) => setTimeout(r, 200));
}
