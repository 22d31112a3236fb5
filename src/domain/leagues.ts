// League rules as pure functions (docs/leagues.md): the window, the state a
// league is in, which bets count and how, and the board. No I/O: callers
// pass the bets, the marks and the clock's "now".
import { type BetStatus, type Direction, percentageGain } from './bets.js';
import { isCryptoTicker } from './market-calendar.js';
import { alphaOf, benchmarkOf, skillOf } from './rankings.js';

export type Instruments = 'all' | 'stocks' | 'crypto';
export type Scoring = 'gain' | 'skill';
export type Visibility = 'private' | 'public';
export type LeagueStatus = 'upcoming' | 'running' | 'ended' | 'final';

export const INSTRUMENTS: Instruments[] = ['all', 'stocks', 'crypto'];
export const SCORINGS: Scoring[] = ['gain', 'skill'];

/** A start this little in the past is "now": the request took a moment to arrive. */
export const START_GRACE_MS = 5 * 60_000;
export const MEMBER_LIMIT_MAX = 1000;
export const MEMBER_LIMIT_DEFAULT = 20;

export interface LeagueWindow {
  starts_at: number;
  ends_at: number;
}

export interface LeagueRules {
  instruments: Instruments;
  min_closed_bets: number;
  scoring: Scoring;
}

/** The same instant one calendar year later (UTC); 29 February goes to 1 March. */
export function oneYearAfter(t: number): number {
  const d = new Date(t);
  d.setUTCFullYear(d.getUTCFullYear() + 1);
  return d.getTime();
}

/**
 * Why a window is refused, or null: the start is now or later (a few
 * minutes' grace for the request's travel), the end after the start and at
 * most one calendar year after it.
 */
export function windowProblem(w: LeagueWindow, now: number): string | null {
  if (!Number.isFinite(w.starts_at) || !Number.isFinite(w.ends_at)) return 'starts_at and ends_at must be instants';
  if (w.starts_at < now - START_GRACE_MS) return 'starts_at must be now or in the future';
  if (w.ends_at <= w.starts_at) return 'ends_at must be after starts_at';
  if (w.ends_at > oneYearAfter(w.starts_at)) return 'A league lasts at most one year';
  return null;
}

/** A start within the grace period counts from now, so "now" never starts in the past. */
export function effectiveStart(startsAt: number, now: number): number {
  return Math.max(startsAt, now);
}

export function leagueStatus(l: LeagueWindow & { settled_at: number | null }, now: number): LeagueStatus {
  if (l.settled_at !== null) return 'final';
  if (now < l.starts_at) return 'upcoming';
  if (now < l.ends_at) return 'running';
  return 'ended';
}

/** Rules, members, name and code change only before the start. */
export const isEditable = (l: LeagueWindow, now: number) => now < l.starts_at;

/** Whether a ticker is one of the instruments a league counts (stocks and ETFs are everything but crypto pairs). */
export function countsInstrument(instruments: Instruments, ticker: string): boolean {
  if (instruments === 'all') return true;
  return isCryptoTicker(ticker) === (instruments === 'crypto');
}

/** Why a member may not join now, or null. */
export function joinProblem(
  l: LeagueWindow & { member_limit: number },
  now: number,
  members: number,
): { kind: 'started' | 'full'; error: string } | null {
  if (now >= l.starts_at) return { kind: 'started', error: 'This league has already started' };
  if (members >= l.member_limit) return { kind: 'full', error: `This league is full (${l.member_limit} members)` };
  return null;
}

/** The fields of a bet the league reads. */
export interface LeagueBet {
  id: number;
  user_id: number;
  ticker: string;
  direction: Direction;
  status: BetStatus;
  entry_price: number;
  exit_price: number | null;
  percentage_gain: number | null;
  opened_at: number;
  closed_at: number | null;
  benchmark_entry: number | null;
  benchmark_exit: number | null;
}

/** How one bet stands in a league at an instant. */
export type BetOutcome =
  | { kind: 'excluded' }
  | { kind: 'cancelled' }
  | { kind: 'closed'; gain: number; alpha: number | null }
  /** Open at the instant: marked at that instant's price (the bet itself stays open). */
  | { kind: 'marked'; gain: number; alpha: number | null }
  /** Open, and no price to mark it with. */
  | { kind: 'unmarked' };

/**
 * A bet's part in a league as of `asOf` (the end, or now while it runs): only
 * bets opened within the window on counted instruments; closed or settled by
 * then, its gain; cancelled by then, a cancellation (never scored); anything
 * later, or still open, marked at `marks`' price for its ticker. Nothing done
 * after the end changes it.
 */
export function betOutcome(
  bet: LeagueBet,
  league: LeagueWindow & { instruments: Instruments },
  asOf: number,
  marks: ReadonlyMap<string, number>,
): BetOutcome {
  if (bet.opened_at < league.starts_at || bet.opened_at >= league.ends_at) return { kind: 'excluded' };
  if (!countsInstrument(league.instruments, bet.ticker)) return { kind: 'excluded' };
  if (bet.opened_at > asOf) return { kind: 'excluded' };
  const endedBy = bet.closed_at !== null && bet.closed_at <= asOf;
  if (endedBy && bet.status === 'CANCELLED') return { kind: 'cancelled' };
  if (endedBy && bet.status === 'CLOSED' && bet.percentage_gain !== null) {
    return { kind: 'closed', gain: bet.percentage_gain, alpha: alphaOf(bet.direction, bet.percentage_gain, bet.benchmark_entry, bet.benchmark_exit) };
  }
  const mark = marks.get(bet.ticker);
  if (mark === undefined) return { kind: 'unmarked' };
  const gain = percentageGain(bet.direction, bet.entry_price, mark);
  return { kind: 'marked', gain, alpha: alphaOf(bet.direction, gain, bet.benchmark_entry, marks.get(benchmarkOf(bet.ticker)) ?? null) };
}

export interface BoardMember {
  user_id: number;
  left_at: number | null;
}

/**
 * What a member's finished bets add up to in a league: closed (or settled)
 * by the end and counted, their gains and alphas; cancelled, their count.
 * Kept per membership as bets finish (league_members), so a board reads
 * these sums and the few bets still open instead of every bet in the window.
 */
export interface MemberTally {
  trades: number;
  cancels: number;
  gain_sum: number;
  alpha_n: number;
  alpha_sum: number;
  alpha_sq_sum: number;
}

export const EMPTY_TALLY: MemberTally = { trades: 0, cancels: 0, gain_sum: 0, alpha_n: 0, alpha_sum: 0, alpha_sq_sum: 0 };

/**
 * What one finished bet adds to the tally of every league it counts in
 * (the leagues themselves are chosen by the caller's query: opened within
 * the window, finished by the end, on counted instruments).
 */
export function tallyDelta(
  bet: Pick<LeagueBet, 'status' | 'direction' | 'percentage_gain' | 'benchmark_entry' | 'benchmark_exit'>,
): MemberTally | null {
  if (bet.status === 'CANCELLED') return { ...EMPTY_TALLY, cancels: 1 };
  if (bet.status !== 'CLOSED' || bet.percentage_gain === null) return null;
  const alpha = alphaOf(bet.direction, bet.percentage_gain, bet.benchmark_entry, bet.benchmark_exit);
  return {
    trades: 1,
    cancels: 0,
    gain_sum: bet.percentage_gain,
    alpha_n: alpha === null ? 0 : 1,
    alpha_sum: alpha ?? 0,
    alpha_sq_sum: alpha === null ? 0 : alpha * alpha,
  };
}

export interface BoardRow {
  /** Null: unranked (fewer counted bets than the minimum, or no score yet). */
  rank: number | null;
  user_id: number;
  score: number | null;
  /** Closed and marked bets: what the minimum counts. */
  trades: number;
  /** Of those, marked at the instant (open then). */
  marked: number;
  cancels: number;
  /** Cancellations over all counted bets (0 without any). */
  cancel_rate: number;
  left: boolean;
}

interface Running extends MemberTally {
  marked: number;
}

function addOutcome(acc: Running, o: BetOutcome): void {
  if (o.kind === 'cancelled') acc.cancels++;
  if (o.kind !== 'closed' && o.kind !== 'marked') return;
  acc.trades++;
  if (o.kind === 'marked') acc.marked++;
  acc.gain_sum += o.gain;
  if (o.alpha !== null) {
    acc.alpha_n++;
    acc.alpha_sum += o.alpha;
    acc.alpha_sq_sum += o.alpha * o.alpha;
  }
}

/**
 * The board from each member's tally of finished bets plus `open`, the
 * members' bets still open at `asOf` (each marked at `marks`' price for its
 * ticker): per member the summed gain (`gain`) or the skill score over the
 * alphas (`skill`, as GET /rankings), ranked by score, then trades, then the
 * older account; members below the minimum of closed bets (marked ones
 * count) or without a score are listed after, unranked.
 */
export function boardFromTallies(
  rules: LeagueRules,
  league: LeagueWindow,
  members: Array<BoardMember & MemberTally>,
  open: LeagueBet[],
  asOf: number,
  marks: ReadonlyMap<string, number>,
): BoardRow[] {
  const byUser = new Map<number, Running>();
  for (const m of members) {
    const { trades, cancels, gain_sum, alpha_n, alpha_sum, alpha_sq_sum } = m;
    byUser.set(m.user_id, { trades, cancels, gain_sum, alpha_n, alpha_sum, alpha_sq_sum, marked: 0 });
  }
  const scope = { ...league, instruments: rules.instruments };
  for (const bet of open) {
    const acc = byUser.get(bet.user_id);
    const o = betOutcome(bet, scope, asOf, marks);
    // A bet finished by asOf is in the tally already.
    if (acc && (o.kind === 'marked' || o.kind === 'unmarked')) addOutcome(acc, o);
  }
  const rows: BoardRow[] = members.map((m) => {
    const a = byUser.get(m.user_id)!;
    const score =
      rules.scoring === 'gain'
        ? a.trades > 0
          ? a.gain_sum
          : null
        : (skillOf({ n: a.alpha_n, sum: a.alpha_sum, sumSq: a.alpha_sq_sum })?.skill ?? null);
    const counted = a.trades + a.cancels;
    return {
      rank: null,
      user_id: m.user_id,
      score,
      trades: a.trades,
      marked: a.marked,
      cancels: a.cancels,
      cancel_rate: counted === 0 ? 0 : a.cancels / counted,
      left: m.left_at !== null && m.left_at <= asOf,
    };
  });
  const rankable = (r: BoardRow) => r.score !== null && r.trades >= Math.max(1, rules.min_closed_bets);
  rows.sort((a, b) => {
    const ra = rankable(a);
    const rb = rankable(b);
    if (ra !== rb) return ra ? -1 : 1;
    return (b.score ?? 0) - (a.score ?? 0) || b.trades - a.trades || a.user_id - b.user_id;
  });
  let rank = 0;
  for (const r of rows) if (rankable(r)) r.rank = ++rank;
  return rows;
}

/**
 * The board counted from every bet (the members' bets in the window, any
 * state): what a verifier recounts from a member's record, and what the
 * tallies must always agree with.
 */
export function computeBoard(
  rules: LeagueRules,
  league: LeagueWindow,
  members: BoardMember[],
  bets: LeagueBet[],
  asOf: number,
  marks: ReadonlyMap<string, number>,
): BoardRow[] {
  const tallies = new Map<number, Running>();
  for (const m of members) tallies.set(m.user_id, { ...EMPTY_TALLY, marked: 0 });
  const scope = { ...league, instruments: rules.instruments };
  const open: LeagueBet[] = [];
  for (const bet of bets) {
    const acc = tallies.get(bet.user_id);
    if (!acc) continue;
    const o = betOutcome(bet, scope, asOf, marks);
    if (o.kind === 'marked' || o.kind === 'unmarked') open.push(bet);
    else addOutcome(acc, o);
  }
  return boardFromTallies(
    rules,
    league,
    members.map((m) => ({ ...m, ...tallies.get(m.user_id)! })),
    open,
    asOf,
    marks,
  );
}

/** The tickers whose price a board as of an instant needs: counted bets open then, and their benchmarks for skill. */
export function tickersToMark(rules: LeagueRules, league: LeagueWindow, bets: LeagueBet[], asOf: number): string[] {
  const out = new Set<string>();
  const scope = { ...league, instruments: rules.instruments };
  for (const bet of bets) {
    const o = betOutcome(bet, scope, asOf, new Map());
    if (o.kind !== 'unmarked') continue;
    out.add(bet.ticker);
    if (rules.scoring === 'skill') out.add(benchmarkOf(bet.ticker));
  }
  return [...out].sort();
}

/** A member's line of the daily standing and of the final result. */
export function standingText(leagueName: string, row: BoardRow | undefined, members: number, final: boolean): string {
  const head = final ? `${leagueName} has ended` : `${leagueName}: today's standing`;
  if (!row || row.rank === null) return `${head}. You are unranked (${row?.trades ?? 0} counted bets) among ${members} members.`;
  const score = row.score === null ? '' : `, score ${row.score.toFixed(2)}`;
  return `${head}. You are ${final ? 'final ' : ''}#${row.rank} of ${members}${score}, ${row.trades} counted bets.`;
}
