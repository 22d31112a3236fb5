// Durable commits off the event loop (src/db/group-commit.ts, wal-sync.ts,
// checkpointer.ts): no caller is answered before the sync covering its commit
// has returned, a failed sync fails the batch and every write after it, the
// sync is the -wal file's on the thread pool, and the checkpoint worker
// checkpoints while writes go on and stops with the database.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { behindBytes } from '../../src/db/checkpointer.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { type CommitEvent, GroupCommitter, SLICE_MS, WalSyncFailedError } from '../../src/db/group-commit.js';
import type { Db } from '../../src/db/tables.js';
import { openTestDatabase, type TestDatabase } from '../helpers/db.js';

const insert = (trx: Db, key: string, value = 'v') => trx.insertInto('settings').values({ key, value }).execute();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Holds the event loop, as a member's synchronous statements do. */
const hold = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
};

describe('group commit with a WAL sync', () => {
  let d: TestDatabase;
  before(async () => {
    d = await openTestDatabase('sqlite', { migrated: true });
  });
  after(() => d.close());

  test('no caller is answered before the sync that covers its commit has returned', async () => {
    const log: string[] = [];
    const committer = new GroupCommitter(d.db, {
      maxBatch: 8,
      // A slow disk: each sync takes a while, and callers queue meanwhile.
      sync: async () => {
        log.push('sync-start');
        await pause(1 + Math.floor(Math.random() * 4));
        log.push('sync-end');
      },
      onEvent: (e) => {
        if (e.type === 'commit') log.push('commit');
      },
    });
    const n = 120;
    await Promise.all(
      Array.from({ length: n }, async (_, k) => {
        await pause(Math.floor(Math.random() * 20));
        await committer.run(async (trx) => {
          log.push(`member ${k}`);
          await insert(trx, `order${k}`);
        });
        log.push(`answered ${k}`);
      }),
    );
    assert.ok(committer.stats.batches > 1 && committer.stats.batches < n, `${n} transactions in ${committer.stats.batches} batches`);
    for (let k = 0; k < n; k++) {
      const ran = log.indexOf(`member ${k}`);
      const commit = log.indexOf('commit', ran);
      const start = log.indexOf('sync-start', commit);
      const end = log.indexOf('sync-end', start);
      const answered = log.indexOf(`answered ${k}`);
      assert.ok(ran >= 0 && commit > ran && start > commit && end > start, `member ${k}: commit and sync follow it`);
      assert.ok(answered > end, `member ${k} answered at ${answered}, its sync ended at ${end}`);
    }
  });

  test('a long batch gives the event loop turns between members and between answers, still one commit and one sync', async () => {
    const log: string[] = [];
    const committer = new GroupCommitter(d.db, {
      sync: async () => {
        log.push('sync-end');
      },
      onEvent: (e) => {
        if (e.type === 'commit') log.push(`commit of ${e.members}`);
      },
    });
    // Counts the turns of the event loop while the batch runs.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const memberMs = Math.ceil(SLICE_MS / 3);
    const ranIn: number[] = [];
    const answeredIn: number[] = [];
    const member = (k: number) =>
      committer.run(async (trx) => {
        ranIn[k] = turn;
        hold(memberMs);
        await insert(trx, `turns${k}`);
        // The first member, in the batch's first turn, queues one more: it joins after the batch's next turn.
        if (k === 0) {
          setImmediate(async () => {
            await member(24);
            answeredIn[24] = turn;
          });
        }
      });
    await Promise.all(
      Array.from({ length: 24 }, async (_, k) => {
        await member(k);
        answeredIn[k] = turn;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    ticking = false;
    assert.deepEqual(log, ['commit of 25', 'sync-end'], 'the 25 members in one commit and one sync');
    assert.equal(committer.stats.batches, 1);
    const memberTurns = new Set(ranIn);
    // 25 members of at least SLICE_MS / 3 each: a turn after every three at most.
    assert.ok(memberTurns.size >= 8, `the members ran in ${memberTurns.size} turns: ${ranIn.join(',')}`);
    assert.ok(new Set(answeredIn).size >= 3, `the answers came in ${new Set(answeredIn).size} turns: ${answeredIn.join(',')}`);
    assert.ok(Math.min(...answeredIn) >= Math.max(...ranIn), 'no answer before the last member ran');
    const rows = await d.db.selectFrom('settings').select('key').where('key', 'like', 'turns%').execute();
    assert.equal(rows.length, 25);
  });

  test('a failed sync rejects its batch; the writes are committed but every later write is refused', async () => {
    let syncs = 0;
    const events: CommitEvent[] = [];
    const committer = new GroupCommitter(d.db, {
      sync: async () => {
        syncs += 1;
        if (syncs === 2) throw new Error('EIO: i/o error, fdatasync');
      },
      onEvent: (e) => events.push(e),
    });
    await committer.run((trx) => insert(trx, 'fail-first'));
    const batch = await Promise.allSettled(['fail-a', 'fail-b', 'fail-c'].map((k) => committer.run((trx) => insert(trx, k))));
    for (const r of batch) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof WalSyncFailedError);
      assert.match(r.reason.message, /EIO/);
    }
    assert.ok(!events.some((e) => e.type === 'answered' && e.batch === 2), 'nobody in the failed batch answered');
    // COMMIT had run: the rows are in the WAL (and visible), only not known to be on disk.
    const stored = await d.db.selectFrom('settings').select('key').where('key', 'like', 'fail-%').orderBy('key').execute();
    assert.deepEqual(
      stored.map((r) => r.key),
      ['fail-a', 'fail-b', 'fail-c', 'fail-first'],
    );
    await assert.rejects(
      committer.run((trx) => insert(trx, 'fail-later')),
      WalSyncFailedError,
    );
    assert.equal(syncs, 2, 'no batch runs after the failure');
  });
});

/** Every fdatasync made through a FileHandle from now on, by the path of its file. */
async function spyOnDatasync(dir: string): Promise<{ synced: string[]; restore: () => void }> {
  const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync: (this: { fd: number }) => Promise<void> };
  await probe.close();
  const real = proto.datasync;
  const synced: string[] = [];
  proto.datasync = function (this: { fd: number }) {
    synced.push(fs.readlinkSync(`/proc/self/fd/${this.fd}`));
    return real.call(this);
  };
  const restore = () => {
    proto.datasync = real;
  };
  return { synced, restore };
}

describe('durable SQLite file', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-durable-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const open = (name: string, opts: Parameters<typeof openDatabase>[1] = {}) => openDatabase({ dialect: 'sqlite', path: path.join(dir, name) }, opts);

  test('COMMIT runs at synchronous=NORMAL and the -wal file is synced on the thread pool before callers are answered', async () => {
    const events: CommitEvent[] = [];
    const d = open('sync.db', { onCommitEvent: (e) => events.push(e) });
    const { synced, restore } = await spyOnDatasync(dir);
    // A sync on the event loop would be one of these; the thread pool's is FileHandle#datasync (spied above).
    const onLoop: string[] = [];
    const fsSync = fs as unknown as Record<'fsyncSync' | 'fdatasyncSync', (fd: number) => void>;
    const realSyncs = { fsyncSync: fsSync.fsyncSync, fdatasyncSync: fsSync.fdatasyncSync };
    for (const name of ['fsyncSync', 'fdatasyncSync'] as const) {
      fsSync[name] = (fd) => {
        onLoop.push(name);
        realSyncs[name](fd);
      };
    }
    try {
      await d.migrate();
      assert.equal(d.sqlite!.pragma('synchronous', { simple: true }), 1);
      assert.equal(d.sqlite!.pragma('wal_autocheckpoint', { simple: true }), 0);
      events.length = 0;
      synced.length = 0;
      const results = await Promise.all(
        Array.from({ length: 60 }, async (_, k) => {
          await pause(k % 10);
          return d.transaction(async (trx) => {
            await insert(trx, `durable${k}`);
            return k;
          });
        }),
      );
      assert.equal(results.length, 60);
      const commits = events.filter((e) => e.type === 'commit').length;
      assert.equal(events.filter((e) => e.type === 'sync-end').length, commits, 'one sync per commit');
      assert.deepEqual(new Set(synced), new Set([`${fs.realpathSync(dir)}/sync.db-wal`]), 'the syncs are the -wal file');
      assert.equal(synced.length, commits);
      assert.deepEqual(onLoop, [], 'no sync on the event loop');
      // Each member is answered after its batch's sync.
      for (const e of events.filter((x) => x.type === 'answered')) {
        const end = events.findIndex((x) => x.type === 'sync-end' && x.batch === e.batch);
        assert.ok(end >= 0 && end < events.indexOf(e));
      }
    } finally {
      Object.assign(fsSync, realSyncs);
      restore();
      await d.close();
    }
  });

  test('a write outside transaction() (and a migration) is synced before it returns; a read is not', async () => {
    const d = open('autocommit.db');
    const { synced, restore } = await spyOnDatasync(dir);
    const wal = `${fs.realpathSync(dir)}/autocommit.db-wal`;
    try {
      await d.migrate();
      assert.ok(synced.length >= 1 && synced.every((f) => f === wal), 'the migrations’ commit synced the WAL');
      synced.length = 0;
      await d.db.insertInto('settings').values({ key: 'alone', value: 'v' }).execute();
      assert.deepEqual(synced, [wal]);
      await d.db.selectFrom('settings').selectAll().execute();
      await d.db.updateTable('settings').set({ value: 'w' }).where('key', '=', 'alone').execute();
      assert.deepEqual(synced, [wal, wal], 'the update synced, the read did not');
      await d.transaction((trx) => insert(trx, 'grouped'));
      assert.deepEqual(synced, [wal, wal, wal], 'a group commit syncs once');
    } finally {
      restore();
      await d.close();
    }
  });

  test('the worker checkpoints the WAL while writes go on, and closing the database stops it', async () => {
    const file = path.join(dir, 'checkpoint.db');
    const opts = { walBytes: 64 * 1024, intervalMs: 0 };
    const d: DatabaseHandle = open('checkpoint.db', { checkpoint: opts });
    await d.migrate();
    const stats = d.checkpointStats!;
    const sizeBefore = fs.statSync(file).size;
    const blob = 'x'.repeat(2000);
    let written = 0;
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        await Promise.all(Array.from({ length: 8 }, () => d.transaction((trx) => insert(trx, `ckpt${written++}`, blob))));
      }
    })();
    try {
      const deadline = Date.now() + 20_000;
      while (stats.runs < 3 && Date.now() < deadline) await pause(20);
      const writtenAtCheckpoint = written;
      assert.ok(stats.runs >= 3, `checkpoints run: ${stats.runs}`);
      assert.equal(stats.failure, null);
      assert.ok(stats.workerRunning);
      assert.ok(stats.lastCheckpointed > 0, 'frames copied into the database file');
      await pause(100);
      assert.ok(written > writtenAtCheckpoint, 'writes went on meanwhile');
    } finally {
      stop = true;
      await writer;
    }
    // Pages moved from the WAL into the database file, which has grown.
    assert.ok(fs.statSync(file).size > sizeBefore + 100 * 1024, `database file ${sizeBefore} → ${fs.statSync(file).size} bytes`);
    // The WAL is written from its top again after checkpoints instead of holding everything written:
    // should PASSIVE checkpoints beside the writes not catch up, writes wait for one at behindBytes.
    const walSize = fs.statSync(`${file}-wal`).size;
    assert.ok(walSize <= behindBytes(opts) + 128 * 1024, `WAL ${walSize} bytes after ${written * blob.length} bytes written (waits: ${stats.waits})`);
    // The time writes were held is counted with the times (bench/sqlite-costs.ts reports its share).
    assert.equal(stats.waits === 0, stats.waitedMs === 0, `waits ${stats.waits}, ${stats.waitedMs} ms`);
    await d.close();
    assert.equal(stats.workerRunning, false, 'worker stopped');
    // Every acknowledged row is in the file.
    const reopened = open('checkpoint.db', { durable: false });
    const n = await reopened.db
      .selectFrom('settings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key', 'like', 'ckpt%')
      .executeTakeFirstOrThrow();
    await reopened.close();
    assert.equal(Number(n.n), written);
  });

  test('opening and closing many durable databases leaves no worker behind; :memory: has none', async () => {
    const handles = Array.from({ length: 5 }, (_, i) => open(`many${i}.db`, { checkpoint: { walBytes: 1, intervalMs: 0 } }));
    for (const h of handles) {
      await h.migrate();
      await h.transaction((trx) => insert(trx, 'k'));
    }
    await pause(50);
    assert.ok(handles.every((h) => h.checkpointStats!.workerRunning || h.checkpointStats!.runs > 0));
    await Promise.all(handles.map((h) => h.close()));
    assert.ok(handles.every((h) => !h.checkpointStats!.workerRunning));
    // A database that never needed a checkpoint never started a worker, and closes at once.
    const idle = open('idle.db');
    await idle.migrate();
    await idle.close();
    assert.equal(idle.checkpointStats!.runs, 0);
    const memory = openDatabase({ dialect: 'sqlite', path: ':memory:' });
    assert.equal(memory.checkpointStats, null);
    await memory.close();
  });
});
