// SyncedSnapshot on two connections to one WAL file, as the service opens
// them: while held, the reader sees the database as it was before the
// commit; once the last hold is released, it sees the commit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { SyncedSnapshot } from '../../src/db/synced-snapshot.js';

describe('SyncedSnapshot', () => {
  let dir: string;
  let writer: SQLite.Database;
  let reader: SQLite.Database;
  const count = () => (reader.prepare('select count(*) as n from t').get() as { n: number }).n;
  const insert = () => writer.prepare('insert into t default values').run();

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-snapshot-'));
    const file = path.join(dir, 's.db');
    writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('create table t (id integer primary key)');
    reader = new SQLite(file);
    reader.pragma('query_only = ON');
  });
  after(() => {
    reader.close();
    writer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('while held, reads see the state before the commit; after release, the commit', () => {
    const snapshot = new SyncedSnapshot(reader);
    const before = count();
    snapshot.hold();
    insert();
    assert.equal(count(), before, 'the commit is hidden while held');
    assert.equal(snapshot.holding, true);
    snapshot.release();
    assert.equal(count(), before + 1, 'seen once released');
    assert.equal(reader.inTransaction, false);
  });

  test('holds nest: the snapshot is kept until the last is released', () => {
    const snapshot = new SyncedSnapshot(reader);
    const before = count();
    snapshot.hold();
    insert();
    snapshot.hold();
    insert();
    snapshot.release();
    assert.equal(count(), before, 'still the state before the first commit');
    snapshot.release();
    assert.equal(count(), before + 2);
  });

  test('release without hold throws; without a reader, holding does nothing to the connections', () => {
    const snapshot = new SyncedSnapshot(reader);
    assert.throws(() => snapshot.release(), /without hold/);
    const none = new SyncedSnapshot(null);
    none.hold();
    assert.equal(none.holding, true);
    none.release();
    assert.equal(none.holding, false);
  });

  test('a read transaction left open by a failed release is ended by the next hold, which pins the present', () => {
    const snapshot = new SyncedSnapshot(reader);
    reader.prepare('begin').run();
    count();
    insert();
    snapshot.hold();
    const now = (writer.prepare('select count(*) as n from t').get() as { n: number }).n;
    assert.equal(count(), now, 'the snapshot is taken at the hold, not kept from the stale transaction');
    snapshot.release();
    assert.equal(reader.inTransaction, false);
  });

  test('the read connection stays read-only: a held snapshot does not let it write', () => {
    const snapshot = new SyncedSnapshot(reader);
    snapshot.hold();
    assert.throws(() => reader.prepare('insert into t default values').run(), /readonly|query_only|attempt to write/i);
    snapshot.release();
  });
});
