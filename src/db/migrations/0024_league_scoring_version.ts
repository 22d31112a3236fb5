import { type Kysely, sql } from 'kysely';

// Leagues keep their word (docs/leagues.md, issue 33): each league scores by
// the version it started with. A league already started when ranked gains
// ship (starts_at at or before this migration's instant) keeps raw gains
// (1); one not yet started, and every league created after, scores ranked
// gains (2). Memberships gain the count of closes made before their committed
// instant (shown on a version-2 board, never scored), and the tallies of the
// version-2 leagues are recounted by ranked gains.
export async function up(db: Kysely<unknown>): Promise<void> {
  const now = Date.now();
  await db.schema
    .alterTable('leagues')
    .addColumn('scoring_version', 'integer', (c) => c.notNull().defaultTo(2).check(sql`scoring_version in (1, 2)`))
    .execute();
  await sql`update leagues set scoring_version = 1 where starts_at <= ${now}`.execute(db);
  await db.schema
    .alterTable('league_members')
    .addColumn('early_closes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await recount(db, 'ranked');
}

interface LeagueRow {
  id: number | string;
  starts_at: number | string;
  ends_at: number | string;
  instruments: string;
}

interface BetRow {
  user_id: number | string;
  direction: string;
  status: string;
  ticker: string;
  opened_at: number | string;
  closed_at: number | string;
  percentage_gain: number | null;
  ranked_gain: number | null;
  benchmark_entry: number | null;
  benchmark_committed: number | null;
  benchmark_exit: number | null;
}

// The app's rules as they stand when this migration is written (a migration
// never imports the app: the rules may change, what it wrote may not).
const CANCEL_WINDOW_MS = 5 * 60 * 1000;
const isCrypto = (ticker: string) => /^[A-Z0-9]+-USDT?$/.test(ticker);
const counts = (instruments: string, ticker: string) => instruments === 'all' || isCrypto(ticker) === (instruments === 'crypto');
function alphaOf(b: BetRow, gain: number, benchmarkFrom: number | null): number | null {
  if (benchmarkFrom === null || b.benchmark_exit === null || !(benchmarkFrom > 0)) return null;
  const move = ((b.benchmark_exit - benchmarkFrom) / benchmarkFrom) * 100;
  return gain - (b.direction === 'LONG' ? move : -move);
}

/**
 * The tallies of the version-2 leagues not yet settled, from their members'
 * bets opened in the window and finished by the end. `ranked` (up): a close
 * with a ranked gain adds it (alpha from the benchmark's committed price), a
 * close before the committed instant is an early close, a cancel a
 * cancellation. `raw` (down, where every league scores raw gains again):
 * 0020's rules, every close's entry-to-exit gain.
 */
async function recount(db: Kysely<unknown>, rule: 'ranked' | 'raw'): Promise<void> {
  const leagues = (
    await sql<LeagueRow>`select id, starts_at, ends_at, instruments from leagues where settled_at is null and scoring_version = 2`.execute(db)
  ).rows;
  for (const l of leagues) {
    const bets = (
      await sql<BetRow>`
        select b.user_id, b.direction, b.status, b.ticker, b.opened_at, b.closed_at, b.percentage_gain, b.ranked_gain,
          b.benchmark_entry, b.benchmark_committed, b.benchmark_exit
        from league_members m join bets b on b.user_id = m.user_id
        where m.league_id = ${l.id} and b.opened_at >= ${l.starts_at} and b.opened_at < ${l.ends_at}
          and b.status <> 'OPEN' and b.closed_at <= ${l.ends_at}
        order by b.closed_at, b.id`.execute(db)
    ).rows;
    const zero = () => ({ trades: 0, cancels: 0, early_closes: 0, gain_sum: 0, alpha_n: 0, alpha_sum: 0, alpha_sq_sum: 0 });
    const sums = new Map<string, ReturnType<typeof zero>>();
    // Every member is recounted, so a tally written under raw rules never survives.
    for (const m of (await sql<{ user_id: number | string }>`select user_id from league_members where league_id = ${l.id}`.execute(db)).rows) {
      sums.set(String(m.user_id), zero());
    }
    for (const b of bets) {
      const s = sums.get(String(b.user_id));
      if (!s || !counts(l.instruments, b.ticker)) continue;
      if (b.status === 'CANCELLED') {
        s.cancels++;
        continue;
      }
      const gain = rule === 'ranked' ? b.ranked_gain : b.percentage_gain;
      if (gain === null) {
        if (rule === 'ranked' && Number(b.closed_at) < Number(b.opened_at) + CANCEL_WINDOW_MS) s.early_closes++;
        continue;
      }
      s.trades++;
      s.gain_sum += gain;
      const alpha = alphaOf(b, gain, rule === 'ranked' ? b.benchmark_committed : b.benchmark_entry);
      if (alpha !== null) {
        s.alpha_n++;
        s.alpha_sum += alpha;
        s.alpha_sq_sum += alpha * alpha;
      }
    }
    for (const [userId, s] of sums) {
      const early = rule === 'ranked' ? sql`, early_closes = ${s.early_closes}` : sql``;
      await sql`
        update league_members set trades = ${s.trades}, cancels = ${s.cancels}, gain_sum = ${s.gain_sum},
          alpha_n = ${s.alpha_n}, alpha_sum = ${s.alpha_sum}, alpha_sq_sum = ${s.alpha_sq_sum}${early}
        where league_id = ${l.id} and user_id = ${userId}`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Version-2 tallies hold ranked sums; after the downgrade every league scores raw gains, so 0020's rules recount them.
  await recount(db, 'raw');
  await db.schema.alterTable('league_members').dropColumn('early_closes').execute();
  await db.schema.alterTable('leagues').dropColumn('scoring_version').execute();
}
