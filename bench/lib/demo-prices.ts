// The demo's bets at the service's own prices (issue 36 item 3). The
// benchmark's generator prices bets from a fixed table, which is fine for
// timing but not for a newcomer: a BTC entry of 99,975 beside a chart at 240k.
// This pass reprices every generated bet from the simulated market the demo's
// server will quote (its seed stored where the server reads it), at the bet's
// own instants: the entry at its opening, the exit at its close, the committed
// and benchmark prices at their instants, the ranked gain from them, exactly
// as the service would have recorded them. Then each user's verifiable record
// is rebuilt with the app's own record functions (an opening, a commitment, a
// close, as the service appends them) and every aggregate is recounted by the
// app's own recount, so the rankings, statistics and record are populated and
// verify.
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import type { BetRow } from '../../src/db/tables.js';
import { committedInstant, percentageGain } from '../../src/domain/bets.js';
import type { MarketCalendar } from '../../src/domain/market-calendar.js';
import { benchmarkOf } from '../../src/domain/rankings.js';
import { encodeEntry, GENESIS, type RecordedBet, type RecordKind, recordEventOf } from '../../src/domain/record.js';
import { newMarketSeed, SIMULATED_UNIVERSE, SimulatedMarket } from '../../src/providers/prices/simulated-market.js';
import { getOrInitSetting } from '../../src/repositories/settings.js';
import { recomputeAggregates } from '../../src/services/recompute-aggregates.js';
import type { GenerateTarget } from './generate.js';

/** The market setting the server reads when MARKET_SEED is unset (src/create-context.ts). */
const SEED_SETTING = 'market_seed';
const BATCH = 500;

export interface DemoPricing {
  bets: number;
  ranked: number;
  recordEntries: number;
}

/** A bet's prices at its instants, from the market; `now` bounds what may be committed. */
export function pricedBet(market: SimulatedMarket, bet: BetRow, now: number): Partial<BetRow> {
  const price = (ticker: string, at: number) => {
    const symbol = SIMULATED_UNIVERSE.get(ticker);
    if (!symbol) throw new Error(`demo ticker ${ticker} is not in the simulated universe`);
    return market.price(symbol, at);
  };
  const benchmark = benchmarkOf(bet.ticker);
  const entry = price(bet.ticker, bet.opened_at);
  const committedAt = committedInstant(bet.opened_at);
  const base = {
    entry_price: entry,
    benchmark_entry: price(benchmark, bet.opened_at),
    unranked_reason: null,
    committed_price: null,
    benchmark_committed: null,
    ranked_gain: null,
  };
  if (bet.status === 'CANCELLED') return { ...base, exit_price: entry, percentage_gain: 0, benchmark_exit: null };
  // Open past its cancel window, or closed at or after that instant: committed at the price then, as the commitments job does.
  const commits = bet.status === 'OPEN' ? committedAt <= now : bet.closed_at !== null && bet.closed_at >= committedAt;
  const committed = commits ? { committed_price: price(bet.ticker, committedAt), benchmark_committed: price(benchmark, committedAt) } : {};
  if (bet.status === 'OPEN') return { ...base, ...committed, exit_price: null, percentage_gain: null, benchmark_exit: null };
  const closedAt = bet.closed_at ?? bet.opened_at;
  const exit = price(bet.ticker, closedAt);
  return {
    ...base,
    ...committed,
    exit_price: exit,
    percentage_gain: percentageGain(bet.direction, entry, exit),
    benchmark_exit: price(benchmark, closedAt),
    ranked_gain: commits ? percentageGain(bet.direction, committed.committed_price as number, exit) : null,
  };
}

/** A user's chain as the service appends it: each bet's opening, commitment and end, in the order they happened. */
export function demoChain(
  bets: RecordedBet[],
): Array<{ user_id: number; seq: number; bet_id: number; kind: RecordKind; at: number; event: string; prev_hash: string; hash: string }> {
  const events: Array<{ bet: RecordedBet; kind: RecordKind; at: number; order: number }> = [];
  for (const bet of bets) {
    const opened: RecordedBet = {
      ...bet,
      status: 'OPEN',
      exit_price: null,
      percentage_gain: null,
      closed_at: null,
      close_reason: null,
      committed_price: null,
      benchmark_committed: null,
      ranked_gain: null,
    };
    events.push({ bet: opened, kind: 'opened', at: bet.opened_at, order: 0 });
    if (bet.committed_price !== null) {
      events.push({
        bet: { ...opened, committed_price: bet.committed_price, benchmark_committed: bet.benchmark_committed },
        kind: 'committed',
        at: committedInstant(bet.opened_at),
        order: 1,
      });
    }
    if (bet.status !== 'OPEN')
      events.push({ bet, kind: bet.status === 'CANCELLED' ? 'cancelled' : 'closed', at: bet.closed_at ?? bet.opened_at, order: 2 });
  }
  events.sort((x, y) => x.at - y.at || x.order - y.order || x.bet.id - y.bet.id);
  let prev = GENESIS;
  return events.map(({ bet, kind, at }, i) => {
    const { event, hash } = encodeEntry(prev, recordEventOf(kind, bet, i + 1, at));
    const row = { user_id: bet.user_id, seq: i + 1, bet_id: bet.id, kind, at, event, prev_hash: prev, hash };
    prev = hash;
    return row;
  });
}

/**
 * Reprices the generated bets of `target` at the market of `seed` (MARKET_SEED when
 * set, else the seed stored in the database, made now when there is none), rebuilds
 * the record and recounts the aggregates.
 */
export async function priceDemoBets(target: GenerateTarget, seed: string | null, calendar: MarketCalendar, now = Date.now()): Promise<DemoPricing> {
  const handle: DatabaseHandle =
    target.dialect === 'sqlite'
      ? openDatabase({ dialect: 'sqlite', path: target.path })
      : openDatabase({ dialect: 'postgres', url: target.url }, { pgSchema: target.schema, pgPoolSize: 2 });
  try {
    const marketSeed = seed ?? (await getOrInitSetting(handle.db, SEED_SETTING, newMarketSeed()));
    const market = new SimulatedMarket(marketSeed, calendar);
    const result: DemoPricing = { bets: 0, ranked: 0, recordEntries: 0 };
    await handle.transaction(async (trx) => {
      for (let afterId = 0; ; ) {
        const page = await trx.selectFrom('bets').selectAll().where('id', '>', afterId).orderBy('id').limit(BATCH).execute();
        if (page.length === 0) break;
        for (const bet of page) {
          const priced = pricedBet(market, bet, now);
          await trx.updateTable('bets').set(priced).where('id', '=', bet.id).execute();
          result.bets++;
          if (priced.ranked_gain !== null && priced.ranked_gain !== undefined) result.ranked++;
        }
        afterId = page[page.length - 1].id;
      }
      await trx.deleteFrom('record_entries').execute();
      const users = await trx.selectFrom('bets').select('user_id').distinct().orderBy('user_id').execute();
      for (const { user_id } of users) {
        const bets = (await trx.selectFrom('bets').selectAll().where('user_id', '=', user_id).execute()) as RecordedBet[];
        const rows = demoChain(bets);
        for (let i = 0; i < rows.length; i += BATCH)
          await trx
            .insertInto('record_entries')
            .values(rows.slice(i, i + BATCH))
            .execute();
        result.recordEntries += rows.length;
      }
      await recomputeAggregates(trx);
    });
    return result;
  } finally {
    await handle.close();
  }
}
