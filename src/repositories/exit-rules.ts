// Queries on exit rules (docs/exits.md). Each takes the database or the
// caller's transaction first.
import type { Db } from '../db/database.js';
import type { BetRow, ExitRulesTable } from '../db/tables.js';
import { type Selectable, sql } from 'kysely';
import { prepared } from '../db/prepared.js';

export type ExitRuleRow = Selectable<ExitRulesTable>;

const toRule = (r: ExitRuleRow): ExitRuleRow => ({
  bet_id: Number(r.bet_id),
  ticker: r.ticker,
  stop_loss: r.stop_loss === null ? null : Number(r.stop_loss),
  take_profit: r.take_profit === null ? null : Number(r.take_profit),
  set_at: Number(r.set_at),
});

export async function findExitRule(db: Db, betId: number): Promise<ExitRuleRow | undefined> {
  const row = await db.selectFrom('exit_rules').selectAll().where('bet_id', '=', betId).executeTakeFirst();
  return row ? toRule(row) : undefined;
}

/** Sets a bet's levels (both null: removes the rule). The caller holds the bet's lock. */
export async function saveExitRule(db: Db, rule: ExitRuleRow): Promise<void> {
  if (rule.stop_loss === null && rule.take_profit === null) {
    await db.deleteFrom('exit_rules').where('bet_id', '=', rule.bet_id).execute();
    return;
  }
  await db
    .insertInto('exit_rules')
    .values(rule)
    .onConflict((oc) => oc.column('bet_id').doUpdateSet({ stop_loss: rule.stop_loss, take_profit: rule.take_profit, set_at: rule.set_at }))
    .execute();
}

/** Instruments with at least one live rule (a rule of an OPEN bet), distinct. */
export async function liveExitTickers(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('exit_rules as e')
    .innerJoin('bets as b', 'b.id', 'e.bet_id')
    .select('e.ticker')
    .distinct()
    .where('b.status', '=', 'OPEN')
    .execute();
  return rows.map((r) => r.ticker);
}

/** A live rule with what its evaluation needs of its OPEN bet; the bet's whole row is read only for one that fires. */
export type LiveExitRule = ExitRuleRow & Pick<BetRow, 'direction' | 'entry_price' | 'settle_at'>;

/** The earliest last change of a live rule (a rule of an OPEN bet), or null when none is live. */
export async function earliestLiveExitRule(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('exit_rules as e')
    .innerJoin('bets as b', 'b.id', 'e.bet_id')
    .select((eb) => eb.fn.min('e.set_at').as('set_at'))
    .where('b.status', '=', 'OPEN')
    .executeTakeFirst();
  return row?.set_at === null || row?.set_at === undefined ? null : Number(row.set_at);
}

// A bet's gain at a price, as percentageGain (src/domain/bets.ts) works it out, operation for
// operation: IEEE doubles on both dialects round alike, so a quote the rule's own check finds
// at or beyond a level is never missed here.
const gainAt = (price: 'q.lo' | 'q.hi') =>
  sql.raw(
    `case when b.direction = 'LONG' then ((${price} - b.entry_price) / b.entry_price) * 100 else ((b.entry_price - ${price}) / b.entry_price) * 100 end`,
  );
// A LONG's lowest gain is at the lowest price, a SHORT's at the highest, and the other way round.
const lowestGain = sql`case when b.direction = 'LONG' then ${gainAt('q.lo')} else ${gainAt('q.hi')} end`;
const highestGain = sql`case when b.direction = 'LONG' then ${gainAt('q.hi')} else ${gainAt('q.lo')} end`;

// Compiled once: the trigger engine asks every quote interval.
const candidatesQuery = prepared((db, p: { from: number; until: number }) =>
  db
    .selectFrom((eb) =>
      eb
        .selectFrom('quotes')
        .select((q) => ['ticker', q.fn.min('price').as('lo'), q.fn.max('price').as('hi')])
        .where('published_at', '>', p.from)
        .where('published_at', '<=', p.until)
        .groupBy('ticker')
        .as('q'),
    )
    .innerJoin('exit_rules as e', 'e.ticker', 'q.ticker')
    .innerJoin('bets as b', 'b.id', 'e.bet_id')
    .select(['e.bet_id', 'e.ticker', 'e.stop_loss', 'e.take_profit', 'e.set_at', 'b.direction', 'b.entry_price', 'b.settle_at'])
    .where('b.status', '=', 'OPEN')
    .where((eb) =>
      eb.or([
        eb.and([eb('e.stop_loss', 'is not', null), eb(lowestGain, '<=', eb.ref('e.stop_loss'))]),
        eb.and([eb('e.take_profit', 'is not', null), eb(highestGain, '>=', eb.ref('e.take_profit'))]),
      ]),
    )
    .orderBy('e.ticker')
    .orderBy('e.bet_id'),
);

/**
 * The live rules that a quote published after `from` and up to `until` may fire: those whose
 * level the instrument's lowest or highest price of that span meets, in one statement for
 * every instrument, so a pass reads the rules it may fire rather than every live rule. A
 * superset: each is checked against the quotes themselves after its own last change
 * (firstCrossing), and only the instruments with one are read.
 */
export async function exitRuleCandidates(db: Db, from: number, until: number): Promise<LiveExitRule[]> {
  const rows = await candidatesQuery(db, { from, until });
  return rows.map((r) => ({
    bet_id: Number(r.bet_id),
    ticker: r.ticker,
    stop_loss: r.stop_loss === null ? null : Number(r.stop_loss),
    take_profit: r.take_profit === null ? null : Number(r.take_profit),
    set_at: Number(r.set_at),
    direction: r.direction,
    entry_price: Number(r.entry_price),
    settle_at: r.settle_at === null ? null : Number(r.settle_at),
  }));
}
