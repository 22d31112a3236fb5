// SQLite's read connection (src/db/sqlite-driver.ts, synced-snapshot.ts): a
// read never waits for a write transaction under way and never sees it, a
// transaction reads its own writes, and no read sees a commit before the WAL's
// sync covering it has returned, whether the group committer or an autocommit
// write made it, while reads issued during that sync are answered during it,
// from the state before the commit. The disk is made slow (each fdatasync
// waits first), so a read issued during a sync would see the commit if nothing
// held it back, and would be answered after it if it waited.
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

  /** How a read went: issued during a sync or not, answered with the log this long, the rows it saw, and whether a sync ended meanwhile. */
  interface Answer {
    during: boolean;
    at: number;
    rows: number;
    waitedForSync: boolean;
  }

  /** Reads one after another (each issued once the last is answered) while `write` runs. */
  async function readThrough(write: Promise<unknown>, key: string): Promise<Answer[]> {
    let done = false;
    const finished = write.then(() => {
      done = true;
    });
    const answers: Answer[] = [];
    while (!done) {
      const issuedAt = log.length;
      const during = log[issuedAt - 1] === 'sync-start';
      const rows = await keyCount(d.db, key);
      answers.push({ during, at: log.length, rows, waitedForSync: log.slice(issuedAt).includes('sync-end') });
      await new Promise(setImmediate);
    }
    await finished;
    return answers;
  }

  /** What every test of a commit checks: hidden until its sync has returned, and no read waits for a sync. */
  function assertSyncedReads(answers: Answer[]): void {
    const synced = log.lastIndexOf('sync-end');
    assert.ok(synced > 0, 'the commit was synced');
    for (const a of answers) if (a.rows === 1) assert.ok(a.at > synced, `a read saw the row with the log at ${a.at}, its sync ended at ${synced}`);
    const during = answers.filter((a) => a.during);
    assert.ok(during.length >= 3, `reads were issued during a sync (${during.length})`);
    assert.ok(
      during.filter((a) => !a.waitedForSync).length >= during.length - 1,
      'reads issued during a sync were answered during it, without waiting for it',
    );
  }

  test('no read sees a group commit before its sync has returned, and none waits for that sync', async () => {
    log.length = 0;
    const answers = await readThrough(
      d.transaction((trx) => trx.insertInto('settings').values({ key: 'grouped', value: 'v' }).execute()),
      'grouped',
    );
    assertSyncedReads(answers);
    assert.equal(await keyCount(d.db, 'grouped'), 1, 'the acknowledged write is seen');
  });

  test('no read sees an autocommit write before its sync has returned, and none waits for that sync', async () => {
    log.length = 0;
    const answers = await readThrough(d.db.insertInto('settings').values({ key: 'autocommit', value: 'v' }).execute(), 'autocommit');
    assertSyncedReads(answers);
    assert.equal(await keyCount(d.db, 'autocommit'), 1, 'the acknowledged write is seen');
  });

  test('a caller answered for its write reads it at once, on the read connection', async () => {
    for (let i = 0; i < 5; i++) {
      await d.transaction((trx) =>
        trx
          .insertInto('settings')
          .values({ key: `own-${i}`, value: 'v' })
          .execute(),
      );
      assert.equal(await keyCount(d.db, `own-${i}`), 1);
    }
  });
});
