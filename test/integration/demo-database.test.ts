// npm run demo keeps its own database (./data/demo.db unless --database names
// another) and refuses one that already holds users unless --reset is given
// (bench/demo.ts, bench/lib/demo-database.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  DEFAULT_DEMO_DATABASE,
  DEMO_SCHEMA,
  DemoUsageError,
  demoTarget,
  existingUsers,
  parseDemoArgs,
  refusal,
} from '../../bench/lib/demo-database.js';
import { openDatabase } from '../../src/db/database.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PG_URL = process.env.TEST_DATABASE_URL;

async function sqliteWithUser(file: string): Promise<void> {
  const handle = openDatabase({ dialect: 'sqlite', path: file });
  try {
    await handle.migrate();
    await handle.db
      .insertInto('users')
      .values({ username: 'someone', username_lower: 'someone', email: 'someone@example.test', password_hash: 'x', created_at: Date.now() })
      .execute();
  } finally {
    await handle.close();
  }
}

describe('the demo database', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-db-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('its own file by default; --database names another, SQLite or PostgreSQL; --reset', () => {
    assert.deepEqual(parseDemoArgs([]), { database: DEFAULT_DEMO_DATABASE, reset: false });
    assert.deepEqual(demoTarget(DEFAULT_DEMO_DATABASE), { dialect: 'sqlite', path: './data/demo.db' });
    assert.deepEqual(parseDemoArgs(['--database', 'sqlite:/tmp/x.db', '--reset']), { database: 'sqlite:/tmp/x.db', reset: true });
    assert.deepEqual(parseDemoArgs(['--database=postgres://u@h/db']), { database: 'postgres://u@h/db', reset: false });
    assert.deepEqual(demoTarget('postgres://u@h/db'), { dialect: 'postgres', url: 'postgres://u@h/db', schema: DEMO_SCHEMA });
    assert.throws(() => parseDemoArgs(['--database']), DemoUsageError);
    assert.throws(() => parseDemoArgs(['--fresh']), DemoUsageError);
    assert.throws(() => parseDemoArgs(['--database', 'mysql://h/db']), /DATABASE_URL must start with sqlite: or postgres:\/\//);
    assert.throws(() => demoTarget('sqlite::memory:'), DemoUsageError);
  });

  test('a missing or empty SQLite database is taken; one holding users is refused unless --reset', async () => {
    const missing = { dialect: 'sqlite', path: path.join(dir, 'none.db') } as const;
    assert.equal(await existingUsers(missing), 0);
    assert.equal(await refusal(missing, false), null);

    const empty = path.join(dir, 'empty.db');
    const handle = openDatabase({ dialect: 'sqlite', path: empty });
    await handle.migrate();
    await handle.close();
    assert.equal(await refusal({ dialect: 'sqlite', path: empty }, false), null);

    const used = path.join(dir, 'used.db');
    await sqliteWithUser(used);
    const target = { dialect: 'sqlite', path: used } as const;
    assert.equal(await existingUsers(target), 1);
    assert.match((await refusal(target, false)) ?? '', /already holds 1 user: .*--reset/);
    assert.equal(await refusal(target, true), null);
  });

  test('npm run demo on a database holding users stops before touching it, and says how to go on', async () => {
    const used = path.join(dir, 'service.db');
    await sqliteWithUser(used);
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/demo.ts', '--database', `sqlite:${used}`], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /already holds 1 user: /);
    assert.match(r.stderr, /--reset/);
    assert.doesNotMatch(r.stdout, /Generating/);
    const db = openDatabase({ dialect: 'sqlite', path: used });
    try {
      const rows = await db.db.selectFrom('users').select('username').execute();
      assert.deepEqual(
        rows.map((u) => u.username),
        ['someone'],
      );
    } finally {
      await db.close();
    }
  });

  test('a bad argument is a usage error', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/demo.ts', '--wipe'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown argument --wipe\nusage: npm run demo/);
  });

  test('PostgreSQL: users in the demo schema or the default one are refused unless --reset', {
    skip: PG_URL ? false : 'TEST_DATABASE_URL is not set',
  }, async () => {
    const target = demoTarget(PG_URL!);
    assert.equal(target.dialect, 'postgres');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`drop schema if exists ${DEMO_SCHEMA} cascade`);
      const before = await existingUsers(target);
      await client.query(`create schema ${DEMO_SCHEMA}`);
      await client.query(`create table ${DEMO_SCHEMA}.users (id serial primary key, username text)`);
      assert.equal(await existingUsers(target), before);
      await client.query(`insert into ${DEMO_SCHEMA}.users (username) values ('someone'), ('else')`);
      assert.equal(await existingUsers(target), before + 2);
      assert.match((await refusal(target, false)) ?? '', new RegExp(`already holds ${before + 2} users`));
      assert.equal(await refusal(target, true), null);
    } finally {
      await client.query(`drop schema if exists ${DEMO_SCHEMA} cascade`);
      await client.end();
    }
  });
});
