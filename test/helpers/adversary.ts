// The adversary suite of issue 33 (docs/rankings.md, "What the adversary
// suite measures"): scripted traders (issue 33's six, A to F, and G, which
// probes the committed instant itself) play the bet service directly (no
// HTTP) on the seeded simulated walk of a crypto pair, with the injected clock,
// while the commitments job runs as the worker would. Each strategy is one
// user; its rounds (one bet, or one LONG + SHORT pair) follow one another,
// each starting at least an hour after the last finished.
//
// The rules of the strategies and the statistics are pure functions (unit
// tested in test/unit/adversary-rules.test.ts); the harness below them is the
// only part that touches a database.
import { type Config, testConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { createContext } from '../../src/create-context.js';
import type { Dialect } from '../../src/db/database.js';
import { CANCEL_WINDOW_MS, committedInstant, type Direction, percentageGain } from '../../src/domain/bets.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import type { JobLogger } from '../../src/jobs/periodic-job.js';
import { isCryptoTicker } from '../../src/domain/market-calendar.js';
import { FakeClock } from '../../src/lib/clock.js';
import { SIMULATED_UNIVERSE, SimulatedMarket } from '../../src/providers/prices/simulated-market.js';
import { findBetById } from '../../src/repositories/bets.js';
import { cancelBet, closeBet, openBet, portfolio } from '../../src/services/bets.js';
import { tickerHistory } from '../../src/services/price-requests.js';
import { uniqueName } from './app.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { insertTestUser } from './users.js';

// ---------------------------------------------------------------------------
// The strategies' rules and the statistics (pure)
// ---------------------------------------------------------------------------

/** A to F are issue 33's; G probes the one instant where the cancel window and the committed price meet. */
export type StrategyName = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G';

export const STRATEGIES: Record<StrategyName, string> = {
  A: 'LONG + SHORT, close the winner as soon as it is up, cancel the other',
  B: 'one bet, close at the first uptick, else cancel at 4 min 59 s',
  C: 'LONG + SHORT, cancel the one down at 4 min 59 s, close the other after 1 h',
  D: 'one bet, cancel at 4 min 59 s if down, else close after 1 h',
  E: "the chart's last move, close after 1 h",
  F: "oracle: the next hour's move, close after 1 h",
  G: 'LONG + SHORT, at the committed instant (after its job pass) cancel the one down, close the other after 1 h',
};

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
/** How often the polling strategies (A, B) look: one published quote each time (PRICE_CACHE_MS is 5 s). */
export const POLL_MS = 5 * SECOND;
/** "4 min 59 s": the last look of C and D, and B's cancel, one second inside the cancel window. */
export const LAST_LOOK_MS = CANCEL_WINDOW_MS - SECOND;
/** How long C, D, E and F hold a bet. */
export const HOLD_MS = HOUR;
/** The pause between a strategy's rounds, at least (a seeded jitter of up to a minute is added). */
export const PAUSE_MS = HOUR;
/** The commitments job's period in production (src/jobs/commitments.ts): its passes fall on whole seconds here. */
export const JOB_PERIOD_MS = 1000;

/** The direction a bet opened at `entry` would be winning in at `mark`; null when flat. */
export function upSide(entry: number, mark: number): Direction | null {
  if (mark > entry) return 'LONG';
  if (mark < entry) return 'SHORT';
  return null;
}

export const opposite = (d: Direction): Direction => (d === 'LONG' ? 'SHORT' : 'LONG');

/** E's rule: the direction of the chart's last move (its last two points); null when flat or too short. */
export function lastMove(points: ReadonlyArray<{ price: number }>): Direction | null {
  if (points.length < 2) return null;
  return upSide(points[points.length - 2].price, points[points.length - 1].price);
}

/** F's rule: the direction that wins from `now` to `later`, LONG on a tie. */
export function oracleDirection(now: number, later: number): Direction {
  return later < now ? 'SHORT' : 'LONG';
}

/** A small seeded generator (mulberry32): the rounds' jitter and the single-bet strategies' directions. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Mean {
  n: number;
  mean: number;
  /** The sample standard deviation over √n; NaN below two values. */
  stdError: number;
}

export function meanOf(xs: readonly number[]): Mean {
  const n = xs.length;
  if (n === 0) return { n, mean: Number.NaN, stdError: Number.NaN };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, stdError: Number.NaN };
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { n, mean, stdError: Math.sqrt(variance / n) };
}

/** What the suite reads of a finished bet. */
export interface BetOutcome {
  status: 'OPEN' | 'CLOSED' | 'CANCELLED';
  percentage_gain: number | null;
  ranked_gain: number | null;
}

export interface StrategyStats {
  strategy: StrategyName;
  rounds: number;
  opened: number;
  /** Closed bets: what SPEC's /leaderboard counts (total_trades). */
  closed: number;
  cancelled: number;
  stillOpen: number;
  /** Raw gain (percentage_gain, entry → exit) per closed bet: what /leaderboard sums. */
  raw: Mean;
  /** Ranked gain (committed price → exit) per ranked bet: what every board we define sums. */
  ranked: Mean;
}

export function strategyStats(strategy: StrategyName, rounds: number, bets: readonly BetOutcome[]): StrategyStats {
  const closed = bets.filter((b) => b.status === 'CLOSED');
  return {
    strategy,
    rounds,
    opened: bets.length,
    closed: closed.length,
    cancelled: bets.filter((b) => b.status === 'CANCELLED').length,
    stillOpen: bets.filter((b) => b.status === 'OPEN').length,
    raw: meanOf(closed.map((b) => b.percentage_gain ?? 0)),
    ranked: meanOf(bets.flatMap((b) => (b.ranked_gain === null ? [] : [b.ranked_gain]))),
  };
}

/** How many standard errors every bound of the suite is wide. */
export const K_STD_ERRORS = 4;

/**
 * The suite's verdict: one line per broken expectation, none when it passes.
 * A, B: no ranked bet at all. C, D, E, F: every closed bet is ranked (it
 * outlived its window). C, D, E (and G): mean ranked gain within k standard errors of
 * zero. C, D (and G): a selection head start (mean raw gain) above k standard errors,
 * else the test means nothing, and the mean ranked gain below half of it.
 * F: mean ranked gain above k standard errors.
 */
export function adversaryFailures(stats: readonly StrategyStats[], k = K_STD_ERRORS): string[] {
  const out: string[] = [];
  const f = (x: number) => x.toFixed(5);
  for (const s of stats) {
    const name = `${s.strategy} (${STRATEGIES[s.strategy]})`;
    if (s.stillOpen > 0) out.push(`${name}: ${s.stillOpen} bets still open`);
    if (s.closed === 0) out.push(`${name}: no closed bet, nothing measured`);
    if (s.strategy === 'A' || s.strategy === 'B') {
      if (s.ranked.n > 0) out.push(`${name}: ${s.ranked.n} ranked bets, mean ranked gain ${f(s.ranked.mean)} %; expected none`);
      continue;
    }
    if (s.ranked.n !== s.closed) out.push(`${name}: ${s.ranked.n} ranked bets of ${s.closed} closed; every bet held an hour must be ranked`);
    const { mean, stdError } = s.ranked;
    if (s.strategy === 'F') {
      if (!(mean > k * stdError)) out.push(`${name}: mean ranked gain ${f(mean)} % is not above ${k} standard errors (${f(k * stdError)})`);
      continue;
    }
    if (!(Math.abs(mean) <= k * stdError))
      out.push(`${name}: mean ranked gain ${f(mean)} % is not within ${k} standard errors of zero (±${f(k * stdError)})`);
    if (s.strategy === 'C' || s.strategy === 'D' || s.strategy === 'G') {
      if (!(s.raw.mean > k * s.raw.stdError)) {
        out.push(
          `${name}: head start (mean raw gain ${f(s.raw.mean)} %) is not above ${k} standard errors (${f(k * s.raw.stdError)}): more bets needed`,
        );
      }
      if (!(mean < s.raw.mean / 2)) out.push(`${name}: mean ranked gain ${f(mean)} % is not below half the mean raw gain ${f(s.raw.mean)} %`);
    }
  }
  return out;
}

/** The summary the suites print (and docs/rankings.md quotes): gains in percent per bet. */
export function summaryTable(stats: readonly StrategyStats[]): string {
  const head = [
    'strategy',
    'rounds',
    'bets',
    'closed',
    'cancelled',
    'mean raw %',
    'raw s.e.',
    'raw t',
    'ranked',
    'mean ranked %',
    'ranked s.e.',
    'ranked t',
  ];
  const num = (x: number, d = 4) => (Number.isNaN(x) ? '-' : x.toFixed(d));
  const rows = stats.map((s) => [
    s.strategy,
    String(s.rounds),
    String(s.opened),
    String(s.closed),
    String(s.cancelled),
    num(s.raw.mean),
    num(s.raw.stdError),
    num(s.raw.mean / s.raw.stdError, 1),
    String(s.ranked.n),
    num(s.ranked.mean),
    num(s.ranked.stdError),
    num(s.ranked.mean / s.ranked.stdError, 1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(head),
    `|${widths.map((w, i) => `${i === 0 ? '-' : ''}${'-'.repeat(w + 1)}${i === 0 ? '' : ':'}`).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

// ---------------------------------------------------------------------------
// The harness: a context without HTTP on the seeded walk, and the job's passes
// ---------------------------------------------------------------------------

/** The walk's seed (fixed: the suite's figures are the same on every run and dialect). */
export const ADVERSARY_MARKET_SEED = 'adversary-suite-market-seed-0123456789abcdef';
/**
 * A crypto pair: it moves around the clock. It is its own benchmark, so a bet
 * costs one quote at each instant, but its alpha is always zero: a board
 * scored by alpha (GET /rankings, a league scored by skill) needs another pair
 * (`ticker: 'ETH-USD'`, whose benchmark BTC-USD walks independently).
 */
export const ADVERSARY_TICKER = 'BTC-USD';
export const ADVERSARY_START = Date.parse('2026-03-02T15:00:00Z');

export interface AdversaryWorld {
  ctx: AppContext;
  clock: FakeClock;
  /** The walk itself, read by the oracle (the service's provider refuses instants in the future). */
  market: SimulatedMarket;
  ticker: string;
  /** Commitments job passes run so far. */
  jobPasses: number;
  /** Wall time spent in each kind of service call (open, close, cancel, mark, chart, job pass): where a run's time goes. */
  timings: Map<string, { calls: number; ms: number; cpuMs: number }>;
  /** Runs a service call, adding its wall time to `timings`. */
  timed<T>(what: string, call: () => Promise<T>): Promise<T>;
  /** Moves the clock to `t`, running the job's passes that fall due on the way (a pass at `t` itself runs first). */
  advanceTo(t: number): Promise<void>;
  /** The bet's committed instant is now awaited by the job. */
  watch(betId: number, openedAt: number): void;
  /** The bet finished: no pass is needed for it. */
  forget(betId: number): void;
  close(): Promise<void>;
}

/**
 * The service's context (createContext, no Fastify) on an isolated test
 * database, with the simulated provider on ADVERSARY_MARKET_SEED: what
 * createTestContext builds, but with the seeded walk in place of its fake
 * provider.
 */
export async function createAdversaryWorld(
  dialect: Dialect,
  opts: { config?: Partial<Config>; start?: number; ticker?: string } = {},
): Promise<AdversaryWorld> {
  const database: TestDatabase = await openTestDatabase(dialect, { migrated: true });
  const clock = new FakeClock(opts.start ?? ADVERSARY_START);
  const config = testConfig({ marketSeed: ADVERSARY_MARKET_SEED, ...opts.config });
  if (config.prices.provider !== 'simulated') throw new Error('the adversary suite plays the simulated market');
  const ticker = opts.ticker ?? ADVERSARY_TICKER;
  // A stock stands still outside NYSE hours: the rounds, an hour apart around the clock, need a pair that always moves.
  if (!isCryptoTicker(ticker)) throw new Error(`the adversary suite plays a crypto pair, not ${ticker}`);
  let ctx: AppContext;
  try {
    ctx = await createContext(config, { database, clock });
  } catch (err) {
    await database.close();
    throw err;
  }
  const warnings: string[] = [];
  const log: JobLogger = {
    info: () => {},
    warn: (obj, msg) => warnings.push(`${msg} ${JSON.stringify(obj)}`),
    error: (obj, msg) => warnings.push(`${msg} ${JSON.stringify(obj)}`),
  };
  /** Open bets awaiting their commit: bet id → committed instant. */
  const awaited = new Map<number, number>();
  const world: AdversaryWorld = {
    ctx,
    clock,
    market: new SimulatedMarket(ADVERSARY_MARKET_SEED, config.marketCalendar),
    ticker,
    jobPasses: 0,
    timings: new Map(),
    async timed(what, call) {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      try {
        return await call();
      } finally {
        const cpu = process.cpuUsage(cpu0);
        const entry = world.timings.get(what) ?? { calls: 0, ms: 0, cpuMs: 0 };
        entry.calls++;
        entry.ms += performance.now() - t0;
        entry.cpuMs += (cpu.user + cpu.system) / 1000;
        world.timings.set(what, entry);
      }
    },
    // Production runs the job every second; a pass with no bet past its
    // committed instant does nothing, so only the passes where one is due run
    // here: the first whole second at or after each committed instant.
    async advanceTo(t) {
      if (t < clock.now()) throw new Error(`the clock cannot go back (${clock.now()} → ${t})`);
      for (;;) {
        let due = Number.POSITIVE_INFINITY;
        for (const at of awaited.values()) due = Math.min(due, at);
        const pass = Math.ceil(due / JOB_PERIOD_MS) * JOB_PERIOD_MS;
        if (!(pass <= t)) break;
        clock.set(Math.max(clock.now(), pass));
        const result = await world.timed('job pass', () => commitDueBets(ctx, log));
        world.jobPasses++;
        if (result.deferred > 0 || warnings.length > 0) throw new Error(`commitments job: ${warnings.join('; ')}`);
        for (const [id, at] of awaited) if (at <= clock.now()) awaited.delete(id);
      }
      clock.set(t);
    },
    watch(betId, openedAt) {
      awaited.set(betId, committedInstant(openedAt));
    },
    forget(betId) {
      awaited.delete(betId);
    },
    close: async () => {
      await ctx.close();
      await database.close();
    },
  };
  return world;
}

/** The timings as lines: calls, total and mean milliseconds of each kind of call. */
export function timingLines(timings: ReadonlyMap<string, { calls: number; ms: number; cpuMs: number }>): string[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(1).padStart(7)} s`;
  const each = (ms: number, n: number) => `${(ms / n).toFixed(2).padStart(6)} ms`;
  return [...timings].map(
    ([what, t]) =>
      `${what.padEnd(9)} ${String(t.calls).padStart(6)} calls: wall ${s(t.ms)} (${each(t.ms, t.calls)} each), CPU ${s(t.cpuMs)} (${each(t.cpuMs, t.calls)} each)`,
  );
}

/** One strategy's run: its user (for the board assertions) and its figures. */
export interface StrategyRun {
  strategy: StrategyName;
  userId: number;
  stats: StrategyStats;
  /** Simulated time the run spanned. */
  from: number;
  to: number;
}

interface Player {
  world: AdversaryWorld;
  userId: number;
}

async function open(p: Player, direction: Direction): Promise<{ id: number; entry: number }> {
  const { bet_id, entry_price } = await p.world.timed('open', () => openBet(p.world.ctx, p.userId, { ticker: p.world.ticker, direction }));
  p.world.watch(bet_id, p.world.clock.now());
  return { id: bet_id, entry: entry_price };
}

async function close(p: Player, betId: number): Promise<void> {
  await p.world.timed('close', () => closeBet(p.world.ctx, p.userId, betId));
  p.world.forget(betId);
}

async function cancel(p: Player, betId: number): Promise<void> {
  await p.world.timed('cancel', () => cancelBet(p.world.ctx, p.userId, betId));
  p.world.forget(betId);
}

/** The mark of the player's open bets (GET /portfolio's `current`): the published quote in force. */
async function mark(p: Player): Promise<number> {
  const open = await p.world.timed('mark', () => portfolio(p.world.ctx, p.userId));
  if (open.length === 0) throw new Error('no open bet to mark');
  return open[0].current;
}

type Round = (p: Player, start: number, coin: () => number) => Promise<void>;

const ROUNDS: Record<StrategyName, Round> = {
  // The free option on a pair: whichever side is up first is closed, the other cancelled, all inside the window.
  async A(p, start) {
    const long = await open(p, 'LONG');
    const short = await open(p, 'SHORT');
    for (let t = start + POLL_MS; t < start + LAST_LOOK_MS; t += POLL_MS) {
      await p.world.advanceTo(t);
      const side = upSide(long.entry, await mark(p));
      if (side === null) continue;
      const [winner, loser] = side === 'LONG' ? [long, short] : [short, long];
      await close(p, winner.id);
      await cancel(p, loser.id);
      return;
    }
    await p.world.advanceTo(start + LAST_LOOK_MS);
    await cancel(p, long.id);
    await cancel(p, short.id);
  },
  // The free option on one bet.
  async B(p, start, coin) {
    const direction: Direction = coin() < 0.5 ? 'LONG' : 'SHORT';
    const bet = await open(p, direction);
    for (let t = start + POLL_MS; t < start + LAST_LOOK_MS; t += POLL_MS) {
      await p.world.advanceTo(t);
      if (upSide(bet.entry, await mark(p)) === direction) {
        await close(p, bet.id);
        return;
      }
    }
    await p.world.advanceTo(start + LAST_LOOK_MS);
    await cancel(p, bet.id);
  },
  // Selection inside the window, then a held bet: the survivor starts up by its first five minutes.
  async C(p, start) {
    const long = await open(p, 'LONG');
    const short = await open(p, 'SHORT');
    await p.world.advanceTo(start + LAST_LOOK_MS);
    // Flat: neither is down; SHORT goes, so one bet is held each round.
    const keep = upSide(long.entry, await mark(p)) ?? 'LONG';
    const [kept, dropped] = keep === 'LONG' ? [long, short] : [short, long];
    await cancel(p, dropped.id);
    await p.world.advanceTo(start + HOLD_MS);
    await close(p, kept.id);
  },
  async D(p, start, coin) {
    const direction: Direction = coin() < 0.5 ? 'LONG' : 'SHORT';
    const bet = await open(p, direction);
    await p.world.advanceTo(start + LAST_LOOK_MS);
    if (percentageGain(direction, bet.entry, await mark(p)) < 0) {
      await cancel(p, bet.id);
      return;
    }
    await p.world.advanceTo(start + HOLD_MS);
    await close(p, bet.id);
  },
  // The issue's look-ahead: read the chart, wait 4 s, open in the direction of its last move.
  async E(p, start, coin) {
    const chart = await p.world.timed('chart', () => tickerHistory(p.world.ctx, p.world.ticker, '1d'));
    const direction = lastMove(chart.points) ?? (coin() < 0.5 ? 'LONG' : 'SHORT');
    const opened = start + 4 * SECOND;
    await p.world.advanceTo(opened);
    const bet = await open(p, direction);
    await p.world.advanceTo(opened + HOLD_MS);
    await close(p, bet.id);
  },
  // C, with its look and cancel at the committed instant itself: the job's pass
  // there has committed both bets, the quote seen is the committed price, and
  // the window is still open (it closes after that instant). Opened on a whole
  // second, so the pass falls on that instant.
  async G(p, start) {
    const opened = Math.ceil(start / JOB_PERIOD_MS) * JOB_PERIOD_MS;
    await p.world.advanceTo(opened);
    const long = await open(p, 'LONG');
    const short = await open(p, 'SHORT');
    await p.world.advanceTo(committedInstant(opened));
    const seen = await mark(p);
    // The premise: what it sees is its committed price already.
    const committed = (await findBetById(p.world.ctx.db, long.id))?.committed_price;
    if (committed !== seen) throw new Error(`G saw ${seen} at the committed instant, the bet was committed at ${committed}`);
    const keep = upSide(long.entry, seen) ?? 'LONG';
    const [kept, dropped] = keep === 'LONG' ? [long, short] : [short, long];
    await cancel(p, dropped.id);
    await p.world.advanceTo(opened + HOLD_MS);
    await close(p, kept.id);
  },
  // A real edge, as a control: the walk itself, an hour ahead.
  async F(p, start) {
    const symbol = SIMULATED_UNIVERSE.get(p.world.ticker);
    if (!symbol) throw new Error(`${p.world.ticker} is not in the simulated universe`);
    const direction = oracleDirection(p.world.market.price(symbol, start), p.world.market.price(symbol, start + HOLD_MS));
    const bet = await open(p, direction);
    await p.world.advanceTo(start + HOLD_MS);
    await close(p, bet.id);
  },
};

/** A seed per strategy, fixed: the rounds' jitter and coins. */
const STRATEGY_SEEDS: Record<StrategyName, number> = { A: 0xa11ce, B: 0xb0b, C: 0xc0ffee, D: 0xd00d, E: 0xe1e1, F: 0xf00d, G: 0x9a7e };

/** Plays `rounds` rounds of a strategy as a new user, from the world's clock on; the clock ends an hour after its last round. */
export async function runStrategy(
  world: AdversaryWorld,
  strategy: StrategyName,
  rounds: number,
  opts: { userId?: number } = {},
): Promise<StrategyRun> {
  const userId = opts.userId ?? (await insertTestUser(world.ctx, uniqueName(`adv${strategy}`)));
  const p: Player = { world, userId };
  const random = seededRandom(STRATEGY_SEEDS[strategy]);
  const from = world.clock.now();
  for (let i = 0; i < rounds; i++) {
    // At least PAUSE_MS after the last round finished, at a seeded millisecond (the job's passes fall anywhere in a second).
    const start = world.clock.now() + PAUSE_MS + Math.floor(random() * MINUTE);
    await world.advanceTo(start);
    await ROUNDS[strategy](p, start, random);
  }
  const to = world.clock.now();
  await world.advanceTo(to + PAUSE_MS);
  const bets = (await world.ctx.db
    .selectFrom('bets')
    .select(['status', 'percentage_gain', 'ranked_gain'])
    .where('user_id', '=', userId)
    .execute()) as BetOutcome[];
  return { strategy, userId, stats: strategyStats(strategy, rounds, bets), from, to };
}

/**
 * Every strategy named, one after another in simulated time, each as its own
 * user. `rounds`: how many rounds each plays.
 */
export async function runAdversaries(
  world: AdversaryWorld,
  rounds: Partial<Record<StrategyName, number>>,
  opts: { userIds?: Partial<Record<StrategyName, number>> } = {},
): Promise<StrategyRun[]> {
  const runs: StrategyRun[] = [];
  for (const strategy of Object.keys(rounds).sort() as StrategyName[]) {
    runs.push(await runStrategy(world, strategy, rounds[strategy] ?? 0, { userId: opts.userIds?.[strategy] }));
  }
  return runs;
}

/** Each strategy's user id, for the board assertions (test/long/adversary.test.ts). */
export function adversaryUserIds(runs: readonly StrategyRun[]): Partial<Record<StrategyName, number>> {
  return Object.fromEntries(runs.map((r) => [r.strategy, r.userId]));
}
