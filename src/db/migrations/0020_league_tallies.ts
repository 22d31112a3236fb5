import { type Kysely, sql } from 'kysely';

// League boards from sums kept as bets finish (docs/leagues.md): per
// membership, the counted bets closed by the league's end (their count,
// summed gain and alphas) and its cancellations. A board then reads these
// sums and the few bets still open, never every bet in the window.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [column, type] of [
    ['trades', 'integer'],
    ['cancels', 'integer'],
    ['gain_sum', 'double precision'],
    ['alpha_n', 'integer'],
    ['alpha_sum', 'double precision'],
    ['alpha_sq_sum', 'double precision'],
  ] as const) {
    await db.schema
      .alterTable('league_members')
      .addColumn(column, type, (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await backfill(db);
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
  percentage_gain: number | null;
  benchmark_entry: number | null;
  benchmark_exit: number | null;
  ticker: string;
}

// The app's rules as they stood when this migration was written (a migration
// never imports the app: the rules may change, what it wrote may not).
const isCrypto = (ticker: string) => /^[A-Z0-9]+-USDT?$/.test(ticker);
const counts = (instruments: string, ticker: string) => instruments === 'all' || isCrypto(ticker) === (instruments === 'crypto');
function alphaOf(b: BetRow): number | null {
  if (b.benchmark_entry === null || b.benchmark_exit === null || !(b.benchmark_entry > 0) || b.percentage_gain === null) return null;
  const move = ((b.benchmark_exit - b.benchmark_entry) / b.benchmark_entry) * 100;
  return b.percentage_gain - (b.direction === 'LONG' ? move : -move);
}

/** Sums for the leagues not yet settled, from their members' bets opened in the window and finished by the end. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const leagues = (await sql<LeagueRow>`select id, starts_at, ends_at, instruments from leagues where settled_at is null`.execute(db)).rows;
  for (const l of leagues) {
    const bets = (
      await sql<BetRow>`
        select b.user_id, b.direction, b.status, b.percentage_gain, b.benchmark_entry, b.benchmark_exit, b.ticker
        from league_members m join bets b on b.user_id = m.user_id
        where m.league_id = ${l.id} and b.opened_at >= ${l.starts_at} and b.opened_at < ${l.ends_at}
          and b.status <> 'OPEN' and b.closed_at <= ${l.ends_at}
        order by b.closed_at, b.id`.execute(db)
    ).rows;
    const sums = new Map<string, { trades: number; cancels: number; gain_sum: number; alpha_n: number; alpha_sum: number; alpha_sq_sum: number }>();
    for (const b of bets) {
      if (!counts(l.instruments, b.ticker)) continue;
      const key = String(b.user_id);
      const s = sums.get(key) ?? { trades: 0, cancels: 0, gain_sum: 0, alpha_n: 0, alpha_sum: 0, alpha_sq_sum: 0 };
      sums.set(key, s);
      if (b.status === 'CANCELLED') {
        s.cancels++;
        continue;
      }
      if (b.percentage_gain === null) continue;
      s.trades++;
      s.gain_sum += b.percentage_gain;
      const alpha = alphaOf(b);
      if (alpha !== null) {
        s.alpha_n++;
        s.alpha_sum += alpha;
        s.alpha_sq_sum += alpha * alpha;
      }
    }
    for (const [userId, s] of sums) {
      await sql`
        update league_members set trades = ${s.trades}, cancels = ${s.cancels}, gain_sum = ${s.gain_sum},
          alpha_n = ${s.alpha_n}, alpha_sum = ${s.alpha_sum}, alpha_sq_sum = ${s.alpha_sq_sum}
        where league_id = ${l.id} and user_id = ${userId}`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['alpha_sq_sum', 'alpha_sum', 'alpha_n', 'gain_sum', 'cancels', 'trades']) {
    await db.schema.alterTable('league_members').dropColumn(column).execute();
  }
}
