// Queries on exit rules (docs/exits.md). Each takes the database or the
// caller's transaction first.
import type { Db } from '../db/database.js';
import type { BetRow, ExitRulesTable } from '../db/tables.js';
import type { Selectable } from 'kysely';
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

// Compiled once: the trigger engine asks for each watched instrument every quote interval.
const liveOnQuery = prepared((db, p: { ticker: string }) =>
  db
    .selectFrom('exit_rules as e')
    .innerJoin('bets as b', 'b.id', 'e.bet_id')
    .select(['e.bet_id', 'e.stop_loss', 'e.take_profit', 'e.set_at', 'b.direction', 'b.entry_price', 'b.settle_at'])
    .where('e.ticker', '=', p.ticker)
    .where('b.status', '=', 'OPEN')
    .orderBy('e.bet_id'),
);

/** The live rules on one instrument, each with its OPEN bet's direction, entry and settlement instant. */
export async function liveExitRulesOn(db: Db, ticker: string): Promise<LiveExitRule[]> {
  const rows = await liveOnQuery(db, { ticker });
  return rows.map((r) => ({
    ...toRule({ bet_id: r.bet_id, ticker, stop_loss: r.stop_loss, take_profit: r.take_profit, set_at: r.set_at }),
    direction: r.direction,
    entry_price: Number(r.entry_price),
    settle_at: r.settle_at === null ? null : Number(r.settle_at),
  }));
}
