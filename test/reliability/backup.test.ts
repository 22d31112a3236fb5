import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { backupSqlite } from '../../src/ops/backup.js';
import { createTestApp, PASSWORD, type TestApp, uniqueName } from '../helpers/app.js';

let t: TestApp;
let dir: string;
let source: string;
before(async () => {
  t = await createTestApp('sqlite');
  source = t.database.url.slice('sqlite:'.length);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-backup-'));
});
after(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const register = async () => {
  const username = uniqueName('bk');
  const res = await t.app.inject({ method: 'POST', url: '/register', payload: { username, email: `${username}@example.test`, password: PASSWORD } });
  assert.equal(res.statusCode, 201);
  return username;
};

test('a backup taken while the service writes is consistent and holds every write acknowledged before it began', async () => {
  const before = [];
  for (let i = 0; i < 3; i++) before.push(await register());
  // Rows with some bulk, so the backup takes several steps while writes land in between.
  t.database.sqlite!.exec(`create table if not exists bulk_probe (id integer primary key, pad text)`);
  const fill = t.database.sqlite!.prepare('insert into bulk_probe (pad) values (?)');
  for (let i = 0; i < 2000; i++) fill.run('p'.repeat(500));

  const file = path.join(dir, 'during.db');
  const during = Promise.all([register(), register()]);
  const result = await backupSqlite({ dialect: 'sqlite', path: source }, file);
  await during;
  assert.ok(result.pages > 256, 'the copy took several steps');
  assert.equal(result.tables.bulk_probe, 2000);

  const copy = new SQLite(file, { readonly: true });
  try {
    assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
    const names = new Set((copy.prepare('select username from users').all() as Array<{ username: string }>).map((r) => r.username));
    for (const u of before) assert.ok(names.has(u), `${u} in the backup`);
    assert.equal(copy.prepare('select count(*) as n from kysely_migration').get() !== undefined, true);
  } finally {
    copy.close();
  }
  // The service went on working meanwhile.
  assert.equal((await t.app.inject({ method: 'GET', url: '/' })).json().status, 'ok');
});

test('the backup is a database the service starts on', async () => {
  const file = path.join(dir, 'start.db');
  await backupSqlite({ dialect: 'sqlite', path: source }, file);
  const restored = await createTestApp('sqlite');
  await restored.close();
  const copy = new SQLite(file);
  try {
    assert.equal(copy.pragma('journal_mode', { simple: true }), 'wal');
  } finally {
    copy.close();
  }
});

test('refusals: an existing target, the database itself, PostgreSQL, memory', async () => {
  const file = path.join(dir, 'exists.db');
  fs.writeFileSync(file, 'x');
  await assert.rejects(backupSqlite({ dialect: 'sqlite', path: source }, file), /already exists/);
  await assert.rejects(backupSqlite({ dialect: 'sqlite', path: source }, source), /must not be the database itself/);
  await assert.rejects(backupSqlite({ dialect: 'postgres', url: 'postgres://x@127.0.0.1/none' }, path.join(dir, 'pg.db')), /pg_dump/);
  await assert.rejects(backupSqlite({ dialect: 'sqlite', path: ':memory:' }, path.join(dir, 'mem.db')), /in-memory/);
});

test('npm run db:backup -- FILE backs up DATABASE_URL and reports the row counts', async () => {
  const file = path.join(dir, 'cli.db');
  const root = path.resolve(import.meta.dirname, '../..');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/db-backup.ts', file], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${source}` },
  });
  assert.match(stdout, /integrity ok/);
  assert.match(stdout, /users=\d+/);
  assert.ok(fs.existsSync(file));
  const usage = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/db-backup.ts'], { cwd: root }).catch((e) => e);
  assert.equal(usage.code, 2);
});
