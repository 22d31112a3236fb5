import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parsePgbench, pgbenchUrl } from '../../bench/lib/pgbench.js';
import { serviceCommand } from '../../bench/lib/server.js';
import { checkServiceConfig, serviceEnv, servicePoolSize } from '../../bench/lib/service-env.js';
import { DEFAULT_POOL_SIZE } from '../../src/config.js';

/** A package.json with that start script, in a folder removed when the process exits. */
function writePackage(start: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-svc-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'package.json');
  fs.writeFileSync(file, JSON.stringify({ scripts: { start } }));
  return file;
}

test('the benchmark starts the service as npm start does: the built entry point with the start script’s flags', () => {
  const { nodeArgs, entry } = serviceCommand();
  assert.equal(entry, 'scripts/start.mjs');
  const start = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
  assert.deepEqual(nodeArgs, start.slice(1, -1));
  assert.deepEqual(serviceCommand(writePackage('node --max-old-space-size=256 --enable-source-maps dist/main.js')), {
    nodeArgs: ['--max-old-space-size=256', '--enable-source-maps'],
    entry: 'dist/main.js',
  });
});

test('a start script that is not node running a built file is refused with the reason', () => {
  assert.throws(() => serviceCommand(writePackage('tsx src/main.ts')), /start script is not "node \[flags\] FILE\.js": tsx src\/main\.ts/);
});

test('the service runs in the production configuration: no RATE_LIMITS, LOG_LEVEL or WORKERS, limits raised so nothing is refused', () => {
  const env = serviceEnv({ databaseUrl: 'sqlite::memory:', jwtSecret: 'x'.repeat(32), redisUrl: null });
  for (const name of ['RATE_LIMITS', 'LOG_LEVEL', 'WORKERS']) assert.equal(env[name], undefined, name);
  // Production starts on simulators only when they are chosen by name.
  assert.deepEqual([env.MAIL_TRANSPORT, env.PAYMENTS, env.CHAT_TRANSPORT, env.PRICE_PROVIDER], ['log', 'local', 'log', 'simulated']);
  const config = checkServiceConfig(env);
  assert.equal(config.env, 'production');
  assert.equal(config.logLevel, 'info');
  assert.equal(config.rateLimits.enabled, true);
  assert.equal(config.workers.enabled, true);
  assert.ok(config.rateLimits.publicPerMinute >= 10_000_000);
  assert.ok(config.rateLimits.writesPerMinute >= 10_000_000);
  assert.equal(serviceEnv({ databaseUrl: 'postgres://x/y', jwtSecret: 'x'.repeat(32), redisUrl: 'redis://r:6379' }).REDIS_URL, 'redis://r:6379');
});

test('a limit the configuration does not take as raised stops the run', () => {
  const env = { ...serviceEnv({ databaseUrl: 'sqlite::memory:', jwtSecret: 'x'.repeat(32) }), RATE_LIMITS: 'off' };
  assert.throws(() => checkServiceConfig(env), /rateLimits\.enabled is false/);
});

test("pgbench's clients are the service's PostgreSQL pool size, as its configuration resolves it", () => {
  const base = { databaseUrl: 'postgres://bench@127.0.0.1/bench', jwtSecret: 'x'.repeat(32) };
  assert.equal(servicePoolSize(checkServiceConfig(serviceEnv(base))), DEFAULT_POOL_SIZE);
  assert.equal(servicePoolSize(checkServiceConfig(serviceEnv({ ...base, poolSize: 24 }))), 24);
});

test("pgbench's report is read for tps, latency and failures; its URL names the scratch database", () => {
  const out = [
    'transaction type: <builtin: simple update>',
    'number of transactions actually processed: 69491',
    'number of failed transactions: 0 (0.000%)',
    'latency average = 1.439 ms',
    'initial connection time = 12.1 ms',
    'tps = 6949.123456 (without initial connection time)',
  ].join('\n');
  assert.deepEqual(parsePgbench(out), { tps: 6949.123456, latencyMs: 1.439, failed: 0 });
  assert.throws(() => parsePgbench('nothing'), /no tps/);
  assert.equal(
    pgbenchUrl('postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3Dx'),
    'postgres://postgres@127.0.0.1:5432/bench_pgbench',
  );
});
