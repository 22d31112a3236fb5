// Fills a fresh database with a preset's population: the app's own
// migrations first, then bulk SQL, then the leaderboard aggregate (sum of
// CLOSED gains and count of CLOSED bets per user), then the indexes.
import fs from 'node:fs';
import pg from 'pg';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { threadHashing } from '../../src/services/hash-threads.js';
import { HASH_OPTIONS } from '../../src/services/passwords.js';
import { FEED_FANOUT_MAX_FOLLOWERS } from '../../src/domain/feed.js';
import { renumberHistory } from '../../src/repositories/bets.js';
import { fillTimelines, markHeavilyFollowedAll } from '../../src/repositories/timeline.js';
import { type BulkTarget, postgresTarget, sqliteTarget } from './bulk.js';
import { BET_COLUMNS, CHAT_LINK_COLUMNS, FOLLOW_COLUMNS, Population, USER_COLUMNS } from './dataset.js';
import { DATASET_VERSION, type Preset } from './presets.js';
import { RECORD_COLUMNS, recordEntries } from './record.js';
import { BENCH_PASSWORD } from './roles.js';

export type GenerateTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string; schema: string };

export interface GenerateSummary {
  preset: string;
  users: number;
  finishedBets: number;
  openBets: number;
  follows: number;
  chatLinks: number;
  recordEntries: number;
  leaderboardRows: number;
  seconds: number;
  phases: Record<string, number>;
}

export const DATASET_SETTING = 'bench_dataset';

/** What the generator stores in the settings table, so a cached database is reused only when it matches (a new migration rebuilds it too). */
export function datasetStamp(preset: Preset): string {
  return JSON.stringify({ version: DATASET_VERSION, preset: preset.name, migrations: Object.keys(migrations) });
}

/** A DATABASE_URL the server can use to reach the generated data. */
export function databaseUrlOf(target: GenerateTarget): string {
  if (target.dialect === 'sqlite') return `sqlite:${target.path}`;
  const url = new URL(target.url);
  url.searchParams.set('options', `-c search_path=${target.schema}`);
  return url.href;
}

export async function generate(
  preset: Preset,
  target: GenerateTarget,
  log: (line: string) => void = (l) => console.log(l),
  now = Date.now(),
): Promise<GenerateSummary> {
  const t0 = performance.now();
  const phases: Record<string, number> = {};
  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const r = await fn();
    phases[name] = round1((performance.now() - t) / 1000);
    return r;
  };
  const handle = await openFresh(target);
  let bulk: BulkTarget | null = null;
  try {
    await phase('migrate', () => migrateToLatest(handle));
    const hashing = threadHashing(1, HASH_OPTIONS);
    const hash = await hashing.hash(BENCH_PASSWORD);
    await hashing.threads.close();
    if (handle.sqlite) handle.sqlite.pragma('journal_mode = MEMORY');
    bulk = handle.sqlite ? sqliteTarget(handle.sqlite) : await postgresTarget((target as { url: string }).url, handle.pgSchema!);
    const b = bulk;
    const rebuild = await b.dropIndexes(['bets', 'follows', 'leaderboard', 'user_day_stats']);
    const people = new Population(preset, now);
    const progress = (what: string, total: number) => (done: number) =>
      log(`  ${what.padEnd(13)} ${fmt(done).padStart(9)} / ${fmt(total)}   ${round1((performance.now() - t0) / 1000)} s`);

    log(`Generating the "${preset.name}" population into ${describe(target)}`);
    const users = await phase('users', () => b.insert('users', USER_COLUMNS, people.users(hash), progress('users', preset.users)));
    const finished = await phase('finished bets', () =>
      b.insert('bets', BET_COLUMNS, people.finishedBets(), progress('finished bets', preset.finishedBets)),
    );
    const open = await phase('open bets', () => b.insert('bets', BET_COLUMNS, people.openBets(), progress('open bets', people.openBetCount())));
    const follows = await phase('follows', () => b.insert('follows', FOLLOW_COLUMNS, people.follows(), progress('follows', people.followCount())));
    // Messaging's table, where its migration exists: the popular user's followers are linked.
    const chatLinks = (await b.hasTable('chat_links'))
      ? await b.insert('chat_links', CHAT_LINK_COLUMNS, people.chatLinks(), progress('chat links', people.chatLinkCount()))
      : 0;
    // Before the indexes come back, so the aggregate is one scan and the
    // leaderboard's own index is built once over the finished table.
    log('  computing the leaderboard…');
    await phase('leaderboard', () =>
      b.exec(`insert into leaderboard (user_id, total_score, total_trades)
              select user_id, sum(percentage_gain), count(*) from bets where status = 'CLOSED' group by user_id`),
    );
    // The rankings' per-user per-UTC-day aggregate, where its migration exists
    // (the same sums its migration backfills; generated bets carry no
    // benchmark prices, so no alpha).
    if (await b.hasTable('user_day_stats')) {
      log('  computing the daily statistics…');
      const day =
        target.dialect === 'postgres'
          ? `to_char(to_timestamp(closed_at / 1000) at time zone 'UTC', 'YYYY-MM-DD')`
          : `strftime('%Y-%m-%d', closed_at / 1000, 'unixepoch')`;
      await phase('daily statistics', () =>
        b.exec(`insert into user_day_stats (user_id, day, trades, score_sum, wins, alpha_count, alpha_sum, alpha_sq_sum)
                select user_id, ${day}, count(*), sum(percentage_gain), sum(case when percentage_gain > 0 then 1 else 0 end), 0, 0, 0
                from bets where status = 'CLOSED' group by user_id, ${day}`),
      );
    }
    // Each finished bet's place in its owner's history (migration 0033), as finishing it would have given.
    log('  numbering histories…');
    await phase('history places', () => renumberHistory(handle.db));
    log('  rebuilding indexes…');
    await phase('indexes', rebuild);
    // The feed's timelines (migration 0034), as the follows and the bets'
    // events would have written them; after the indexes, so the join reads
    // bets_user_event_idx. Heavily followed at the default threshold: the
    // server reads the stored marks whatever FEED_FANOUT_MAX_FOLLOWERS it runs with.
    log('  filling timelines…');
    await phase('timelines', async () => {
      await markHeavilyFollowedAll(handle.db, FEED_FANOUT_MAX_FOLLOWERS);
      await fillTimelines(handle.db);
    });
    // The verifiable record's table, where its migration exists: every user's chain of bet events.
    const recordEntryCount = (await b.hasTable('record_entries'))
      ? await phase('record', async () => {
          const expected = 2 * finished + open;
          const show = progress('record', expected);
          let n = 0;
          let shown = 0;
          for await (const rows of recordEntries(handle.db, preset.users)) {
            n += await b.insert('record_entries', RECORD_COLUMNS, rows, () => undefined);
            if (n - shown >= 200_000 || n === expected) {
              show(n);
              shown = n;
            }
          }
          return n;
        })
      : 0;
    // The aggregates above are the ones the commitment backfill's recount would give (every generated bet is
    // flagged entry_not_quoted), so the population starts as a deployment does once that job has run: no
    // recount of a million bets at the service's start, and no second path for it either.
    if (await b.hasTable('data_jobs')) await b.exec(`update data_jobs set done_at = ${Date.now()} where name = 'commitment_backfill'`);
    await b.exec(`insert into settings (key, value) values ('${DATASET_SETTING}', '${datasetStamp(preset).replace(/'/g, "''")}')`);
    if (target.dialect === 'postgres') {
      // Ids were given explicitly: move the sequences past them.
      for (const table of ['users', 'bets']) {
        await b.exec(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
      }
      // Settled before anything is measured: VACUUM sets the loaded rows' hint bits and visibility
      // map (else the first reads of each page write it back), and CHECKPOINT writes the load's dirty
      // pages now rather than while the first endpoints run.
      await phase('vacuum and analyze', () => b.exec('vacuum (analyze)'));
      await phase('checkpoint', () =>
        b.exec('checkpoint').catch((err: Error) => log(`  checkpoint skipped (${err.message}): PostgreSQL writes the load back on its own schedule`)),
      );
    }
    const { count } = await handle.db
      .selectFrom('leaderboard')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    const summary: GenerateSummary = {
      preset: preset.name,
      users,
      finishedBets: finished,
      openBets: open,
      follows,
      chatLinks,
      recordEntries: recordEntryCount,
      leaderboardRows: Number(count),
      seconds: round1((performance.now() - t0) / 1000),
      phases,
    };
    log(
      `Done in ${summary.seconds} s: ${fmt(users)} users, ${fmt(finished)} finished and ${fmt(open)} open bets, ` +
        `${fmt(follows)} follows, ${chatLinks ? `${fmt(chatLinks)} messaging links, ` : ''}${recordEntryCount ? `${fmt(recordEntryCount)} record entries, ` : ''}${fmt(summary.leaderboardRows)} leaderboard rows.`,
    );
    return summary;
  } finally {
    await bulk?.close();
    if (handle.sqlite) handle.sqlite.pragma('journal_mode = WAL');
    await handle.close();
  }
}

async function openFresh(target: GenerateTarget): Promise<DatabaseHandle> {
  if (target.dialect === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(target.path + suffix, { force: true });
    // The writer alone: the load leaves WAL mode while it runs, which no other connection may have the file open for.
    return openDatabase({ dialect: 'sqlite', path: target.path }, { reader: false });
  }
  if (!/^[a-z_][a-z0-9_]*$/.test(target.schema)) throw new Error(`bad schema name "${target.schema}"`);
  const admin = new pg.Client({ connectionString: target.url });
  await admin.connect();
  try {
    await admin.query(`drop schema if exists ${target.schema} cascade`);
    await admin.query(`create schema ${target.schema}`);
  } finally {
    await admin.end();
  }
  return openDatabase({ dialect: 'postgres', url: target.url }, { pgSchema: target.schema, pgPoolSize: 2 });
}

function describe(target: GenerateTarget): string {
  return target.dialect === 'sqlite' ? target.path : `PostgreSQL schema ${target.schema}`;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
