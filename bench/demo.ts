// npm run demo: the service on a fresh ./data/demo.db holding the small
// population (a few hundred users with bets, follows and a leaderboard), so a
// newcomer sees a lively service at once.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { generate } from './lib/generate.js';
import { PRESETS } from './lib/presets.js';
import { BENCH_PASSWORD, emailOf, ROLES } from './lib/roles.js';

const file = path.join('data', 'demo.db');
const env = { ...process.env, DATABASE_URL: `sqlite:${file}` };
// The same validation `npm start` applies, before spending time on data.
const config = loadConfig(env);

await generate(PRESETS.small, { dialect: 'sqlite', path: file });

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
        `Demo running on ${config.publicUrl} (web app ${config.webUrl}) with ${file}: ${PRESETS.small.users} users, their bets, follows and leaderboard.`,
        `Log in as ${emailOf(ROLES.demo.id)} with the password "${BENCH_PASSWORD}" (every generated user has it),`,
        `e.g. curl -c jar -H 'content-type: application/json' -d '{"email":"${emailOf(ROLES.demo.id)}","password":"${BENCH_PASSWORD}"}' ${config.publicUrl}/login`,
        'Stop with Ctrl-C. Each `npm run demo` starts again from fresh data.',
        '',
      ].join('\n'),
    );
    break;
  }
  await new Promise((r) => setTimeout(r, 200));
}
