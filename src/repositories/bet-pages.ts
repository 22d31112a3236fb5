// A bet's public page (GET /bet/{bet_id}) in one statement: the bet, its
// owner's name and its thesis. Three statements were three round trips on
// PostgreSQL for a page every visitor of a shared link asks for.
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { BetRow } from '../db/tables.js';
import { isPossibleId } from '../domain/ids.js';
import type { ThesisRow } from './theses.js';

export interface BetPageRows {
  bet: BetRow;
  owner: { id: number; username: string };
  thesis: ThesisRow | undefined;
}

const betPageQuery = prepared((db, p: { id: number }) =>
  db
    .selectFrom('bets')
    // A deleted owner's bets have no page: the join finds no live owner.
    .innerJoin('users', (j) => j.onRef('users.id', '=', 'bets.user_id').on('users.deleted_at', 'is', null))
    .leftJoin('bet_theses', 'bet_theses.bet_id', 'bets.id')
    .selectAll('bets')
    .select([
      'users.username as owner_username',
      'bet_theses.user_id as thesis_user_id',
      'bet_theses.text as thesis_text',
      'bet_theses.salt as thesis_salt',
      'bet_theses.hash as thesis_hash',
      'bet_theses.created_at as thesis_created_at',
      'bet_theses.hidden_at as thesis_hidden_at',
      'bet_theses.counted_reports as thesis_counted_reports',
    ])
    .where('bets.id', '=', p.id),
);

/** The bet with its live owner and its thesis; undefined for no such bet or a deleted owner. */
export async function findBetPage(db: Db, id: number): Promise<BetPageRows | undefined> {
  if (!isPossibleId(id)) return undefined;
  const [row] = await betPageQuery(db, { id });
  if (!row) return undefined;
  // The row carries the owner's and the thesis's columns besides the bet's; the bet's readers read only its own.
  const thesis: ThesisRow | undefined =
    row.thesis_text === null || row.thesis_text === undefined
      ? undefined
      : {
          bet_id: row.id,
          user_id: row.thesis_user_id as number,
          text: row.thesis_text,
          salt: row.thesis_salt as string,
          hash: row.thesis_hash as string,
          created_at: row.thesis_created_at as number,
          hidden_at: row.thesis_hidden_at ?? null,
          counted_reports: Number(row.thesis_counted_reports),
        };
  return { bet: row, owner: { id: row.user_id, username: row.owner_username }, thesis };
}
