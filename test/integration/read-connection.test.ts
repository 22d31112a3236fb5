// SQLite's read connection (src/db/sqlite-driver.ts, read-fence.ts): a read
// never waits for a write transaction under way and never sees it, a
// transaction reads its own writes, and no read sees a commit before the WAL's
// sync covering it has returned, whether the group committer or an autocommit
// write made it. The disk is made slow (each fdatasync waits first), so a
// read issued during a sync would see the commit if nothing held it back.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/tables.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes every FileHandle#datasync wait `ms` first, recording its start and end in `log`. */
async function slowDisk(dir: string, ms: number, log: string[]): Promise<() => void> {
  const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync: (this: unknown) => Promise<void> };
  await probe.close();
  const real = proto.datasync;
  proto.datasync = async function (this: unknown) {
    log.push('sync-start');
    await pause(ms);
    await real.call(this);
    log.push('sync-end');
  };
  return () => {
    proto.datasync = real;
  };
}

const keyCount = async (db: Db, key: string) =>
  Number(
    (
      await db
        .selectFrom('settings')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('key', '=', key)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('SQLite read connection', () => {
  let dir: string;
  let d: DatabaseHandle;
  const log: string[] = [];
  let restore: () => void = () => undefined;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-reads-'));
    d = openDatabase({ dialect: 'sqlite', path: path.join(dir, 'reads.db') });
    await d.migrate();
    restore = await slowDisk(dir, 25, log);
  });
  after(async () => {
    restore();
    await d.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a read does not wait for a write transaction under way, and does not see it', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const write = d.transaction(async (trx) => {
      await trx.insertInto('settings').values({ key: 'held', value: 'v' }).execute();
      assert.equal(await keyCount(trx, 'held'), 1, 'the transaction reads its own write');
      inserted();
      await gate;
    });
    await insertedYet;
    const read = keyCount(d.db, 'held');
    const outcome = await Promise.race([read, pause(2000).then(() => 'waited')]);
    assert.equal(outcome, 0, 'answered at once, without the uncommitted row');
    open();
    await write;
    assert.equal(await keyCount(d.db, 'held'), 1);
  });

  test('no read sees a group commit before its sync has returned', async () => {
    log.length = 0;
    const seen: Array<{ at: number; rows: number }> = [];
    let done = false;
    const write = d
      .transaction((trx) => trx.insertInto('settings').values({ key: 'grouped', value: 'v' }).execute())
      .then(() => {
        done = true;
      });
    // Reads one after another for the whole write, each noting where the log stood when it was answered.
    while (!done) {
      const rows = await keyCount(d.db, 'grouped');
      seen.push({ at: log.length, rows });
      await new Promise(setImmediate);
    }
    await write;
    const synced = log.indexOf('sync-end');
    assert.ok(synced > 0, 'the commit was synced');
    assert.ok(
      seen.some((s) => s.at > synced && s.rows === 1),
      'a read answered after the sync sees the row',
    );
    for (const s of seen) if (s.rows === 1) assert.ok(s.at > synced, `a read saw the row with the log at ${s.at}, its sync ended at ${synced}`);
  });

  test('no read sees an autocommit write before its sync has returned; reads issued meanwhile wait for it', async () => {
    log.length = 0;
    let done = false;
    const write = d.db
      .insertInto('settings')
      .values({ key: 'autocommit', value: 'v' })
      .execute()
      .then(() => {
        done = true;
      });
    const answers: Array<{ at: number; rows: number; during: boolean }> = [];
    const reads: Promise<void>[] = [];
    while (!done) {
      const during = log.includes('sync-start') && !log.includes('sync-end');
      reads.push(keyCount(d.db, 'autocommit').then((rows) => void answers.push({ at: log.length, rows, during })));
      await new Promise(setImmediate);
    }
    await Promise.all([write, ...reads]);
    const synced = log.indexOf('sync-end');
    assert.ok(synced > 0);
    assert.ok(
      answers.some((a) => a.during),
      'reads were issued while the sync was under way',
    );
    for (const a of answers) if (a.rows === 1 || a.during) assert.ok(a.at > synced, 'answered only after the sync');
  });
});
