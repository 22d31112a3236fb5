// The crash-and-restart loop shared by the quick and the long suite: the real
// server on a SQLite file, clients driving writes, SIGKILL at random moments
// (during start-up and migrations too), restart, and checks that every write
// the client saw acknowledged is there and whole. A scenario adds its own
// writes, set-up, steps while the server is down, and final checks of what
// the workers did (test/helpers/crash-bets.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { migrations } from '../../src/db/migrations/index.js';
import { PASSWORD } from './app.js';
import { type ServerProcess, startServer } from './server-process.js';

/** One kind of write the loop drives. Extend the list as features land. */
export interface WriteDriver {
  name: string;
  /** Resolves with the write's key once acknowledged, null when refused; rejects when the outcome is unknown (connection cut). */
  write(baseUrl: string, n: number): Promise<string | null>;
  /** Keys of acknowledged writes the database does not hold. */
  missing(db: SQLite.Database, keys: string[]): string[];
  /** Descriptions of rows that are not whole (a half-done write made visible). */
  broken(db: SQLite.Database): string[];
}

export const registrations: WriteDriver = {
  name: 'registration',
  async write(baseUrl, n) {
    const username = `crash_${process.pid}_${n}`;
    const res = await fetch(`${baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, email: `${username}@example.test`, password: PASSWORD }),
    });
    await res.arrayBuffer();
    if (res.status === 201) return username;
    if (res.status === 409) return null;
    throw new Error(`unexpected ${res.status} for ${username}`);
  },
  missing(db, keys) {
    const have = new Set((db.prepare('select username from users').all() as Array<{ username: string }>).map((r) => r.username));
    return keys.filter((k) => !have.has(k));
  },
  broken(db) {
    const rows = db
      .prepare(
        `select username from users where password_hash not like '$argon2id$%' or username_lower <> lower(username)
         or email <> lower(username) || '@example.test'`,
      )
      .all() as Array<{ username: string }>;
    return rows.map((r) => `user ${r.username}`);
  },
};

/** What a crash loop drives besides registrations. */
export interface CrashScenario {
  drivers: WriteDriver[];
  /** More environment for the server. */
  env?: Record<string, string>;
  /** Once, on the first start, before the first kill. */
  setup?(baseUrl: string): Promise<void>;
  /** While the server is down between rounds (nothing holds the database file). */
  whileDown?(file: string, rand: () => number): void;
  /** Right after each kill, once the process is gone. */
  killed?(): void;
  /** On the last, clean start: waits for the workers to catch up and checks what they did. */
  finish?(baseUrl: string, file: string): Promise<void>;
}

/** mulberry32: a small seeded generator, so a failing run can be replayed with CRASH_SEED. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const counted = (acked: Map<string, string[]>) => [...acked.values()].reduce((n, keys) => n + keys.length, 0);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CrashReport {
  seed: number;
  rounds: number;
  killedBeforeReady: number;
  acknowledged: number;
}

function checkDatabase(file: string, drivers: WriteDriver[], acked: Map<string, string[]>, context: string): void {
  const db = new SQLite(file, { readonly: true });
  // One read transaction: the server may be running (its settlement worker
  // commits right after start), and every check must see the same snapshot.
  db.exec('begin');
  try {
    const applied = (db.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>).map((r) => r.name);
    assert.deepEqual(applied, Object.keys(migrations).sort(), `${context}: every migration applied`);
    assert.equal(db.pragma('integrity_check', { simple: true }) as string, 'ok', `${context}: integrity`);
    for (const d of drivers) {
      assert.deepEqual(d.missing(db, acked.get(d.name) ?? []), [], `${context}: acknowledged ${d.name}s lost`);
      assert.deepEqual(d.broken(db), [], `${context}: half-written ${d.name}s visible`);
    }
  } finally {
    db.exec('commit');
    db.close();
  }
}

export async function crashLoop(opts: { rounds: number; scenario?: CrashScenario; clients?: number }): Promise<CrashReport> {
  const scenario = opts.scenario;
  const drivers = [registrations, ...(scenario?.drivers ?? [])];
  let current = null as ServerProcess | null;
  const start = () => (current = startServer({ DATABASE_URL: `sqlite:${file}`, ...scenario?.env }));
  const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : Math.floor(Math.random() * 2 ** 31);
  const rand = random(seed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bets-crash-'));
  const file = path.join(dir, 'crash.db');
  const acked = new Map<string, string[]>(drivers.map((d) => [d.name, []]));
  let counter = 0;
  let killedBeforeReady = 0;
  try {
    for (let round = 0; round < opts.rounds; round++) {
      const context = `seed ${seed} round ${round}`;
      if (round > 0) scenario?.whileDown?.(file, rand);
      const server = start();
      // Every third kill lands during start-up: module loading, opening, migrating.
      if (round % 3 === 2) {
        const at = rand() * 2500;
        const outcome = await Promise.race([
          server.ready.then(
            () => 'ready' as const,
            () => 'exited' as const,
          ),
          pause(at).then(() => 'timer' as const),
        ]);
        server.child.kill('SIGKILL');
        await server.exited;
        scenario?.killed?.();
        if (outcome !== 'ready') killedBeforeReady++;
        continue;
      }
      const base = await server.ready;
      checkDatabase(file, drivers, acked, `${context} after restart`);
      if (round === 0) await scenario?.setup?.(base);
      let killed = false;
      const client = async () => {
        while (!killed) {
          const d = drivers[Math.floor(rand() * drivers.length)];
          try {
            const key = await d.write(base, counter++);
            if (key !== null) acked.get(d.name)!.push(key);
          } catch (err) {
            if (!killed) throw new Error(`${context}: ${d.name} failed while the server was up: ${(err as Error).message}`);
          }
        }
      };
      const clients = Array.from({ length: opts.clients ?? 2 }, client);
      // Kill after a random number of acknowledgements plus a random slice of
      // time, so the kill lands mid-write whatever the machine's speed.
      const ackedBefore = counted(acked);
      const target = ackedBefore + 1 + Math.floor(rand() * 3);
      for (let waited = 0; counted(acked) < target; waited += 20) {
        if (waited > 120_000) throw new Error(`${context}: no write acknowledged in 2 minutes`);
        await pause(20);
      }
      await pause(rand() * 300);
      killed = true;
      server.child.kill('SIGKILL');
      const { signal } = await server.exited;
      scenario?.killed?.();
      assert.equal(signal, 'SIGKILL', `${context}: the server died of the kill`);
      await Promise.all(clients);
    }
    // A last clean start: everything acknowledged is there, the workers catch up, and the service works and stops cleanly.
    scenario?.whileDown?.(file, rand);
    const server = start();
    const base = await server.ready;
    checkDatabase(file, drivers, acked, `seed ${seed} final`);
    try {
      await scenario?.finish?.(base, file);
    } catch (err) {
      (err as Error).message = `seed ${seed} final: ${(err as Error).message}`;
      throw err;
    }
    checkDatabase(file, drivers, acked, `seed ${seed} after the workers caught up`);
    const health = await fetch(`${base}/`).then((r) => r.json());
    assert.equal(health.status, 'ok');
    const again = acked.get('registration')?.[0];
    if (again) assert.equal(await registrations.write(base, Number(again.split('_').pop())), null, 'an acknowledged registration is taken');
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
    return { seed, rounds: opts.rounds, killedBeforeReady, acknowledged: counted(acked) };
  } finally {
    // A failed check leaves no server behind.
    if (current && current.child.exitCode === null && current.child.signalCode === null) {
      current.child.kill('SIGKILL');
      await current.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
