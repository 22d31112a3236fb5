// League rules as pure functions (docs/leagues.md): the window, the state a
// league is in, which bets count and how, and the board. No I/O: callers
// pass the bets, the marks and the clock's "now".
import { type BetStatus, committedInstant, type Direction, percentageGain } from './bets.js';
import { isCryptoTicker } from './market-calendar.js';
import { alphaOf, benchmarkOf, skillOf } from './rankings.js';

export type Instruments = 'all' | 'stocks' | 'crypto';
export type Scoring = 'gain' | 'skill';
export type Visibility = 'private' | 'public';
export type LeagueStatus = 'upcoming' | 'running' | 'ended' | 'final';

export const INSTRUMENTS: Instruments[] = ['all', 'stocks', 'crypto'];

/**
 * How a league scores its bets (docs/leagues.md, migration 0024): 1, raw
 * gains (entry to exit of every counted close), kept by the leagues already
 * running when ranked gains shipped; 2, ranked gains (committed price to
 * exit, only bets committed by the end), every league started since.
 */
export type ScoringVersion = 1 | 2;
/** What a league created now scores by. */
export const CURRENT_SCORING_VERSION: ScoringVersion = 2;
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
  /** Read by version 2 only (absent: not known, as null). */
  committed_price?: number | null;
  benchmark_committed?: number | null;
  ranked_gain?: number | null;
  unranked_reason?: string | null;
}

/** How one bet stands in a league at an instant. */
export type BetOutcome =
  | { kind: 'excluded' }
  | { kind: 'cancelled' }
  | { kind: 'closed'; gain: number; alpha: number | null }
  /** Open at the instant: marked at that instant's price (the bet itself stays open). */
  | { kind: 'marked'; gain: number; alpha: number | null }
  /** Open, and no price to mark it with. */
  | { kind: 'unmarked' }
  /**
   * Version 2: shown, never scored. `early`: finished before its committed
   * instant (closed or settled inside its cancel window); otherwise committed
   * after the league's end, or never rankable (unranked_reason).
   */
  | { kind: 'unscored'; early: boolean }
  /** Version 2: open, its committed instant not yet come (as of a running league's now); scored once it is. */
  | { kind: 'pending' }
  /** Version 2: open past its committed instant, the committed price not yet recorded (the commitment job's lag). */
  | { kind: 'uncommitted' };

/**
 * A bet's part in a league as of `asOf` (the end, or now while it runs): only
 * bets opened within the window on counted instruments; closed or settled by
 * then, its gain; cancelled by then, a cancellation (never scored); anything
 * later, or still open, marked at `marks`' price for its ticker. Nothing done
 * after the end changes it. Version 1 scores raw gains (entry to exit);
 * version 2 ranked gains (rankedOutcome).
 */
export function betOutcome(
  bet: LeagueBet,
  league: LeagueWindow & { instruments: Instruments },
  asOf: number,
  marks: ReadonlyMap<string, number>,
  version: ScoringVersion = 1,
): BetOutcome {
  if (bet.opened_at < league.starts_at || bet.opened_at >= league.ends_at) return { kind: 'excluded' };
  if (!countsInstrument(league.instruments, bet.ticker)) return { kind: 'excluded' };
  if (bet.opened_at > asOf) return { kind: 'excluded' };
  if (version === 2) return rankedOutcome(bet, league, asOf, marks);
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

/**
 * Version 2 (a bet already in the window, on a counted instrument): a bet is
 * scored only when its committed instant is at or before the league's end.
 * Closed by `asOf` with a ranked gain, that gain (alpha from the benchmark's
 * committed price to its exit); closed without one (inside its cancel
 * window), shown as an early close; open at `asOf` and committed, marked from
 * its committed price to `marks`' price. A cancel window that gives a free
 * option scores nothing, and no bet is scored on a price later than the end.
 */
function rankedOutcome(
  bet: LeagueBet,
  league: LeagueWindow & { instruments: Instruments },
  asOf: number,
  marks: ReadonlyMap<string, number>,
): BetOutcome {
  const committedAt = committedInstant(bet.opened_at);
  const endedBy = bet.closed_at !== null && bet.closed_at <= asOf;
  if (endedBy && bet.status === 'CANCELLED') return { kind: 'cancelled' };
  if (endedBy && bet.status === 'CLOSED') {
    const ranked = bet.ranked_gain ?? null;
    if (ranked === null || committedAt > league.ends_at) return { kind: 'unscored', early: bet.closed_at! < committedAt };
    return { kind: 'closed', gain: ranked, alpha: alphaOf(bet.direction, ranked, bet.benchmark_committed ?? null, bet.benchmark_exit) };
  }
  if (committedAt > league.ends_at || (bet.unranked_reason ?? null) !== null) return { kind: 'unscored', early: false };
  if (committedAt > asOf) return { kind: 'pending' };
  const committed = bet.committed_price ?? null;
  if (committed === null) return { kind: 'uncommitted' };
  const mark = marks.get(bet.ticker);
  if (mark === undefined) return { kind: 'unmarked' };
  const gain = percentageGain(bet.direction, committed, mark);
  return { kind: 'marked', gain, alpha: alphaOf(bet.direction, gain, bet.benchmark_committed ?? null, marks.get(benchmarkOf(bet.ticker)) ?? null) };
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

/** A tally with version 2's count of closes made before their committed instant (shown, not scored); absent in version 1. */
export interface LeagueTally extends MemberTally {
  early_closes?: number;
}

export const EMPTY_TALLY: MemberTally = { trades: 0, cancels: 0, gain_sum: 0, alpha_n: 0, alpha_sum: 0, alpha_sq_sum: 0 };

/**
 * What one finished bet adds to the tally of every league it counts in
 * (the leagues themselves are chosen by the caller's query: opened within
 * the window, finished by the end, on counted instruments). Version 2 adds a
 * close only with its ranked gain (a bet with one was committed before it
 * finished, so by the end), and counts a close before the committed instant
 * as an early close.
 */
export function tallyDelta(
  bet: Pick<LeagueBet, 'status' | 'direction' | 'percentage_gain' | 'benchmark_entry' | 'benchmark_exit'> &
    Partial<Pick<LeagueBet, 'opened_at' | 'closed_at' | 'ranked_gain' | 'benchmark_committed'>>,
  version: ScoringVersion = 1,
): LeagueTally | null {
  if (version === 2) return rankedTallyDelta(bet);
  if (bet.status === 'CANCELLED') return { ...EMPTY_TALLY, cancels: 1 };
  if (bet.status !== 'CLOSED' || bet.percentage_gain === null) return null;
  return scoredDelta(bet.percentage_gain, alphaOf(bet.direction, bet.percentage_gain, bet.benchmark_entry, bet.benchmark_exit));
}

function scoredDelta(gain: number, alpha: number | null): MemberTally {
  return {
    trades: 1,
    cancels: 0,
    gain_sum: gain,
    alpha_n: alpha === null ? 0 : 1,
    alpha_sum: alpha ?? 0,
    alpha_sq_sum: alpha === null ? 0 : alpha * alpha,
  };
}

function rankedTallyDelta(
  bet: Pick<LeagueBet, 'status' | 'direction' | 'benchmark_exit'> &
    Partial<Pick<LeagueBet, 'opened_at' | 'closed_at' | 'ranked_gain' | 'benchmark_committed'>>,
): LeagueTally | null {
  if (bet.status === 'CANCELLED') return { ...EMPTY_TALLY, cancels: 1, early_closes: 0 };
  if (bet.status !== 'CLOSED') return null;
  const ranked = bet.ranked_gain ?? null;
  if (ranked === null) {
    const early =
      bet.opened_at !== undefined && bet.closed_at !== undefined && bet.closed_at !== null && bet.closed_at < committedInstant(bet.opened_at);
    return early ? { ...EMPTY_TALLY, early_closes: 1 } : null;
  }
  return { ...scoredDelta(ranked, alphaOf(bet.direction, ranked, bet.benchmark_committed ?? null, bet.benchmark_exit)), early_closes: 0 };
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
  /** Version 2 only: closes made before their committed instant, shown but not scored. */
  early_closes?: number;
}

interface Running extends LeagueTally {
  marked: number;
}

function addOutcome(acc: Running, o: BetOutcome): void {
  if (o.kind === 'cancelled') acc.cancels++;
  if (o.kind === 'unscored' && o.early) acc.early_closes = (acc.early_closes ?? 0) + 1;
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
 * count) or without a score are listed after, unranked. A version-2 row
 * also says how many closes came before their committed instant.
 */
export function boardFromTallies(
  rules: LeagueRules,
  league: LeagueWindow,
  members: Array<BoardMember & LeagueTally>,
  open: LeagueBet[],
  asOf: number,
  marks: ReadonlyMap<string, number>,
  version: ScoringVersion = 1,
): BoardRow[] {
  const byUser = new Map<number, Running>();
  for (const m of members) {
    const { trades, cancels, gain_sum, alpha_n, alpha_sum, alpha_sq_sum, early_closes } = m;
    byUser.set(m.user_id, { trades, cancels, gain_sum, alpha_n, alpha_sum, alpha_sq_sum, early_closes, marked: 0 });
  }
  const scope = { ...league, instruments: rules.instruments };
  for (const bet of open) {
    const acc = byUser.get(bet.user_id);
    const o = betOutcome(bet, scope, asOf, marks, version);
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
      ...(version === 2 ? { early_closes: a.early_closes ?? 0 } : {}),
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
  version: ScoringVersion = 1,
): BoardRow[] {
  const tallies = new Map<number, Running>();
  for (const m of members) tallies.set(m.user_id, { ...EMPTY_TALLY, marked: 0 });
  const scope = { ...league, instruments: rules.instruments };
  const open: LeagueBet[] = [];
  for (const bet of bets) {
    const acc = tallies.get(bet.user_id);
    if (!acc) continue;
    const o = betOutcome(bet, scope, asOf, marks, version);
    if (isOpenAt(o)) open.push(bet);
    else addOutcome(acc, o);
  }
  return boardFromTallies(
    rules,
    league,
    members.map((m) => ({ ...m, ...tallies.get(m.user_id)! })),
    open,
    asOf,
    marks,
    version,
  );
}

/** Outcomes of a bet open at the instant: read from the bets at each count, never from a tally. */
const isOpenAt = (o: BetOutcome) => o.kind === 'marked' || o.kind === 'unmarked' || o.kind === 'pending' || o.kind === 'uncommitted';

/**
 * Version 2: whether a counted bet open at `asOf` past its committed instant
 * has no committed price recorded yet. A final board waits for it (the
 * commitment job records it within seconds), as it waits for a missing mark.
 */
export function awaitsCommitment(rules: LeagueRules, league: LeagueWindow, bets: LeagueBet[], asOf: number, version: ScoringVersion): boolean {
  const scope = { ...league, instruments: rules.instruments };
  return version === 2 && bets.some((bet) => betOutcome(bet, scope, asOf, new Map(), version).kind === 'uncommitted');
}

/** The tickers whose price a board as of an instant needs: counted bets open then, and their benchmarks for skill. */
export function tickersToMark(rules: LeagueRules, league: LeagueWindow, bets: LeagueBet[], asOf: number, version: ScoringVersion = 1): string[] {
  const out = new Set<string>();
  const scope = { ...league, instruments: rules.instruments };
  for (const bet of bets) {
    const o = betOutcome(bet, scope, asOf, new Map(), version);
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
