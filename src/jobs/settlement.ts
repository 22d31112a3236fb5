// Automatic settlement: closes, at the current price, every OPEN bet whose
// settlement time (DESIGN: first NYSE close on or after the target date for
// stocks and ETFs, 00:00 UTC after it for crypto) has passed. Runs at start
// and every SETTLEMENT_INTERVAL_SECONDS (a minute by default) in each instance; bets are claimed one by one with
// FOR UPDATE SKIP LOCKED, so instances sharing PostgreSQL never close a bet
// twice. A ticker whose price cannot be fetched waits for the next run.
import type { AppContext } from '../context.js';
import { listDueBets } from '../repositories/bets.js';
import { benchmarkOf } from '../domain/rankings.js';
import { benchmarkPrice } from '../services/benchmarks.js';
import { settleBet } from '../services/bets.js';

export interface WorkerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SettlementResult {
  settled: number;
  /** Due bets left OPEN because their price could not be fetched. */
  deferred: number;
}

const BATCH = 200;

export class SettlementWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<SettlementResult> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: WorkerLogger,
  ) {}

  /** One pass over every due bet. Concurrent calls share the pass in progress. */
  runOnce(): Promise<SettlementResult> {
    if (!this.running) this.running = this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<SettlementResult> {
    const result: SettlementResult = { settled: 0, deferred: 0 };
    const now = this.ctx.clock.now();
    const prices = new Map<string, number | null>();
    // Benchmark prices (for alpha), once per benchmark and pass; a failure only leaves those bets without alpha.
    const benchmarks = new Map<string, Promise<number | null>>();
    let afterId = 0;
    for (;;) {
      const due = await listDueBets(this.ctx.db, now, afterId, BATCH);
      for (const bet of due) {
        const price = await this.priceOf(bet.ticker, prices);
        if (price === null) {
          result.deferred++;
          continue;
        }
        const benchmark = benchmarkOf(bet.ticker);
        if (!benchmarks.has(benchmark)) benchmarks.set(benchmark, benchmarkPrice(this.ctx, bet.ticker));
        const settled = await settleBet(this.ctx, bet.id, { price, benchmark: await benchmarks.get(benchmark)! });
        if (!settled) continue; // closed, cancelled or claimed by another instance meanwhile
        result.settled++;
        this.log.info(
          { betId: settled.id, userId: settled.user_id, ticker: settled.ticker, exitPrice: price, gain: settled.percentage_gain },
          'settled bet',
        );
      }
      if (due.length < BATCH) break;
      afterId = due[due.length - 1].id;
    }
    return result;
  }

  /** One price per ticker and pass; null (logged) when the provider fails. */
  private async priceOf(ticker: string, prices: Map<string, number | null>): Promise<number | null> {
    const known = prices.get(ticker);
    if (known !== undefined) return known;
    let price: number | null = null;
    try {
      price = await this.ctx.prices.current(ticker);
    } catch (err) {
      this.log.warn({ ticker, err: (err as Error).message }, 'settlement: price unavailable, retrying next run');
    }
    prices.set(ticker, price);
    return price;
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.runOnce().catch((err: unknown) => this.log.error({ err }, 'settlement run failed'));
    };
    tick();
    this.timer = setInterval(tick, this.ctx.config.workers.settlementIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
