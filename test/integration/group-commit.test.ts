import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { SQLITE_CACHE_KIB } from '../../src/db/database.js';
import { openTestDatabase, type TestDatabase } from '../helpers/db.js';

describe('SQLite group commit', () => {
  let d: TestDatabase;
  before(async () => {
    d = await openTestDatabase('sqlite', { durable: true });
    await d.migrate();
  });
  after(() => d.close());

  const put = (key: string, fail = false) =>
    d.transaction(async (trx) => {
      await trx.insertInto('settings').values({ key, value: 'v' }).execute();
      if (fail) throw new Error(`refused ${key}`);
      return key;
    });

  test('COMMIT does not sync (WAL, synchronous=NORMAL, no automatic checkpoint) , savepoint journals stay in memory (temp_store=MEMORY) and the page cache is 16 MiB', () => {
    const pragma = (name: string) => d.sqlite!.pragma(name, { simple: true });
    assert.equal(pragma('journal_mode'), 'wal');
    assert.equal(pragma('synchronous'), 1); // NORMAL: the WAL is synced after COMMIT, off the event loop
    assert.equal(pragma('wal_autocheckpoint'), 0); // checkpoints run in the worker
    assert.equal(pragma('temp_store'), 2); // MEMORY
    assert.equal(pragma('cache_size'), -SQLITE_CACHE_KIB); // KiB, bounded: the page cache is resident memory
    assert.equal(SQLITE_CACHE_KIB, 16 * 1024);
  });

  test('concurrent transactions share commits; a failing one undoes only its own writes', async () => {
    const before = { ...d.groupCommitStats! };
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const results = await Promise.allSettled(keys.map((k, i) => put(k, i % 7 === 3)));
    const stats = d.groupCommitStats!;
    assert.equal(stats.transactions - before.transactions, 40);
    assert.ok(stats.batches - before.batches < 40, `40 transactions in ${stats.batches - before.batches} commits`);
    const stored = new Set((await d.db.selectFrom('settings').select('key').where('key', 'like', 'k%').execute()).map((r) => r.key));
    keys.forEach((k, i) => {
      const failed = i % 7 === 3;
      assert.equal(results[i].status, failed ? 'rejected' : 'fulfilled', k);
      assert.equal(stored.has(k), !failed, k);
    });
  });

  test('a transaction that runs alone: a batch of its own between the others, without a savepoint; its failure undoes it alone', async () => {
    const before = { ...d.groupCommitStats! };
    let savepointSeen: boolean | null = null;
    const first = put('al-a');
    const alone = d.transaction(
      async (trx) => {
        await trx.insertInto('settings').values({ key: 'alone-1', value: 'v' }).execute();
        // The members' savepoint is named "member": releasing it fails where there is none.
        savepointSeen = await sql`release member`.execute(trx).then(
          () => true,
          () => false,
        );
        return 'alone-1';
      },
      { alone: true },
    );
    const results = await Promise.all([first, alone, put('al-b')]);
    assert.deepEqual(results, ['al-a', 'alone-1', 'al-b']);
    assert.equal(savepointSeen, false, 'no savepoint around a transaction that runs alone');
    const stats = d.groupCommitStats!;
    assert.equal(stats.transactions - before.transactions, 3);
    assert.equal(stats.batches - before.batches, 3, 'the one alone neither joins the batch before it nor lets the next join its own');
    await assert.rejects(
      d.transaction(
        async (trx) => {
          await trx.insertInto('settings').values({ key: 'alone-2', value: 'v' }).execute();
          throw new Error('refused alone-2');
        },
        { alone: true },
      ),
      /refused alone-2/,
    );
    assert.equal(await put('al-c'), 'al-c', 'the next batch runs');
    const stored = new Set((await d.db.selectFrom('settings').select('key').where('key', 'like', 'al%').execute()).map((r) => r.key));
    assert.deepEqual([...stored].sort(), ['al-a', 'al-b', 'al-c', 'alone-1']);
  });

  test('requests arriving over the network together share commits (each reads first, as a handler does)', async () => {
    // Each request is handled in its own I/O callback, its microtasks run to the
    // end before the next one's: a batch started at once would hold one member.
    const server = http.createServer(async (req, res) => {
      const key = `net${req.url!.slice(1)}`;
      await d.db.selectFrom('settings').select('key').where('key', '=', key).execute();
      await put(key);
      res.end('ok');
    });
    let accepted = 0;
    server.on('connection', () => (accepted += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const before = { ...d.groupCommitStats! };
    try {
      // Connected (and accepted) first, then every request written in one go: they arrive together.
      const sockets = await Promise.all(
        Array.from(
          { length: 40 },
          () =>
            new Promise<net.Socket>((resolve) => {
              const s = net.connect(port, '127.0.0.1', () => resolve(s));
            }),
        ),
      );
      while (accepted < sockets.length) await new Promise((resolve) => setTimeout(resolve, 5));
      const answers = sockets.map(
        (s) =>
          new Promise<string>((resolve) => {
            let text = '';
            s.on('data', (chunk) => (text += chunk));
            s.on('end', () => resolve(text));
          }),
      );
      for (const [i, s] of sockets.entries()) s.write(`GET /${i} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`);
      for (const text of await Promise.all(answers)) assert.match(text, /^HTTP\/1\.1 200[\s\S]*ok$/);
    } finally {
      server.close();
    }
    const stats = d.groupCommitStats!;
    assert.equal(stats.transactions - before.transactions, 40);
    assert.ok(stats.batches - before.batches <= 20, `40 transactions in ${stats.batches - before.batches} commits`);
  });

  test('a constraint error in one member leaves the batch usable', async () => {
    await put('dup');
    const results = await Promise.allSettled([put('a1'), put('dup'), put('a2')]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const n = await d.db.selectFrom('settings').select('key').where('key', 'in', ['a1', 'a2']).execute();
    assert.equal(n.length, 2);
  });

  test('callers are answered only after the commit: what resolved is on disk for a new connection', async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => put(`durable${i}`)));
    // A second handle on the same file sees every acknowledged write.
    const { default: SQLite } = await import('better-sqlite3');
    const raw = new SQLite(d.url.slice('sqlite:'.length), { readonly: true });
    const count = raw.prepare("select count(*) as n from settings where key like 'durable%'").get() as { n: number };
    raw.close();
    assert.equal(count.n, 10);
  });

  test('a member that fails is undone alone; one that ends the shared transaction itself undoes the whole batch', async () => {
    const insert = (key: string) => d.transaction(async (trx) => void (await trx.insertInto('settings').values({ key, value: 'v' }).execute()));
    const one = await Promise.allSettled([
      insert('u-a'),
      d.transaction(async (trx) => {
        await trx.insertInto('settings').values({ key: 'u-b', value: 'v' }).execute();
        throw new Error('b fails');
      }),
      insert('u-c'),
    ]);
    assert.deepEqual(
      one.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );

    const two = await Promise.allSettled([
      insert('u-d'),
      d.transaction(async (trx) => {
        await sql`rollback`.execute(trx);
      }),
    ]);
    assert.deepEqual(
      two.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    const stored = (await d.db.selectFrom('settings').select('key').where('key', 'like', 'u-%').execute()).map((r) => r.key).sort();
    assert.deepEqual(stored, ['u-a', 'u-c']);
  });
});
