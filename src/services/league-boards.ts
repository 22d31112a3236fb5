// A league's board, feed and proof (docs/leagues.md). A board is its
// members' tallies (kept as bets finish) plus their few bets still open,
// marked at current prices while the league runs and at the end's quotes
// after it; shared for at most SHARED_ANSWER_TTL_MS. Once it ended the
// settlement worker freezes it: the stored final document is what the board
// and the proof answer from then on, and its hash goes into the next
// published day of the verifiable record.
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { boardHashOf, documentRows, encodeBoardDocument } from '../domain/league-record.js';
import {
  awaitsCommitment,
  type BoardRow,
  boardFromTallies,
  countsInstrument,
  type LeagueRules,
  leagueStatus,
  tickersToMark,
} from '../domain/leagues.js';
import { GENESIS } from '../domain/record.js';
import { notFound } from '../errors.js';
import { chainHeadsAt, claimSettlement, findLeague, type LeagueRow, membersAndOpenBets, membersOf, windowFeed } from '../repositories/leagues.js';
import type { LeagueBoard, LeagueBoardDocument, LeagueFeed, LeagueProof } from '../schemas/leagues.js';
import { visibleLeague } from './leagues.js';
import { dayOf, dayProof, publishDay } from './record.js';

/** What league boards, feeds and proofs use of the context. */
export type LeagueBoardDeps = Pick<AppContext, 'database' | 'db' | 'clock' | 'prices' | 'events' | 'sharedAnswers'>;

const iso = (t: number) => new Date(t).toISOString();
const rulesOf = (l: LeagueRow): LeagueRules => ({ instruments: l.instruments, min_closed_bets: l.min_closed_bets, scoring: l.scoring });

/**
 * Open bets at a league's end are marked at the first quote published at or
 * after the end (docs/rankings.md), as a settlement is: a quote any close could
 * get, never the market's price at the instant ahead of the quote in force.
 * The commitments job publishes one within seconds of the end. A ticker whose
 * quote cannot be had is absent: no stand-in, the next pass tries again.
 */
async function marksAtEnd(ctx: LeagueBoardDeps, tickers: readonly string[], end: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await Promise.all(
    [...new Set(tickers)].map(async (ticker) => {
      try {
        out.set(ticker, (await ctx.prices.quoteAtOrAfter(ticker, end)).price);
      } catch {
        // absent
      }
    }),
  );
  return out;
}

/**
 * The board as of `asOf` (now while the league runs, its end after): the
 * members' tallies and their bets open then, marked at the current prices
 * while it runs and at the end's quotes after it (marksAtEnd). `complete` is
 * false when a mark is missing (its bet stays unranked until one is known).
 */
async function countAt(ctx: LeagueBoardDeps, league: LeagueRow, asOf: number) {
  const rules = rulesOf(league);
  const version = league.scoring_version;
  const { members, open } = await membersAndOpenBets(ctx.db, league, asOf);
  const tickers = tickersToMark(rules, league, open, asOf, version);
  const marks = asOf < league.ends_at ? await ctx.prices.marks(tickers) : await marksAtEnd(ctx, tickers, league.ends_at);
  return {
    rules,
    members,
    marks,
    // Version 2 also waits for the committed price of a bet committed by then (the commitment job records it within seconds).
    complete: tickers.every((t) => marks.has(t)) && !awaitsCommitment(rules, league, open, asOf, version),
    rows: boardFromTallies(rules, league, members, open, asOf, marks, version),
  };
}

async function countNow(ctx: LeagueBoardDeps, league: LeagueRow) {
  const now = ctx.clock.now();
  const asOf = Math.min(now, league.ends_at);
  return { now, asOf, ...(await countAt(ctx, league, asOf)) };
}

/** The rows as counted now (the daily standing). */
export async function currentBoard(ctx: LeagueBoardDeps, league: LeagueRow): Promise<BoardRow[]> {
  return (await countNow(ctx, league)).rows;
}

/** The board counted now (or at the end, once past it) from the members' bets, open bets marked at current prices. */
async function liveBoard(ctx: LeagueBoardDeps, league: LeagueRow): Promise<LeagueBoard> {
  const { now, asOf, rules, members, rows } = await countNow(ctx, league);
  const names = new Map(members.map((m) => [m.user_id, m.username]));
  return {
    league_id: league.id,
    status: leagueStatus(league, now),
    final: false,
    settled_at: null,
    as_of: iso(asOf),
    rules,
    scoring_version: league.scoring_version,
    rows: rows.map((r) => withName(r, names)),
  };
}

function withName(r: BoardRow | LeagueBoardDocument['board'][number], names: Map<number, string>) {
  const { user_id, ...rest } = r;
  return { ...rest, rank: rest.rank, user: { id: user_id, username: names.get(user_id) ?? `deleted:${user_id}` } };
}

export async function leagueBoard(ctx: LeagueBoardDeps, id: number, callerId: number | null): Promise<LeagueBoard> {
  const { league } = await visibleLeague(ctx.db, id, callerId);
  if (league.final_document !== null && league.settled_at !== null) {
    const doc = JSON.parse(league.final_document) as LeagueBoardDocument;
    // Names as they are now: a deleted account's row stays under its anonymous name.
    const names = new Map((await membersOf(ctx.db, id)).map((m) => [m.user_id, m.username]));
    return {
      league_id: id,
      status: 'final',
      final: true,
      settled_at: iso(league.settled_at),
      as_of: iso(league.ends_at),
      rules: rulesOf(league),
      scoring_version: league.scoring_version,
      rows: doc.board.map((r) => withName(r, names)),
    };
  }
  return ctx.sharedAnswers.leagueBoard(id, () => liveBoard(ctx, league));
}

export async function leagueFeed(
  ctx: LeagueBoardDeps,
  id: number,
  callerId: number | null,
  page: { limit: number; offset: number },
): Promise<LeagueFeed> {
  const { league } = await visibleLeague(ctx.db, id, callerId);
  const ids = (await membersOf(ctx.db, id)).map((m) => m.user_id);
  const rows = await windowFeed(ctx.db, ids, league.starts_at, league.ends_at, page.limit, page.offset);
  return {
    items: rows.map((b) => ({
      bet_id: b.id,
      user: { id: b.user_id, username: b.username },
      ticker: b.ticker,
      direction: b.direction,
      status: b.status,
      entry_price: b.entry_price,
      exit_price: b.exit_price,
      percentage_gain: b.percentage_gain,
      opened_at: iso(b.opened_at),
      closed_at: b.closed_at === null ? null : iso(b.closed_at),
      counted: countsInstrument(league.instruments, b.ticker),
      committed_price: b.committed_price,
      ranked_gain: b.ranked_gain,
    })),
  };
}

export interface SettledBoard {
  league: LeagueRow;
  rows: BoardRow[];
}

/**
 * Freezes an ended league's board: counted as of its end, open bets marked
 * at the end's quotes, each member's chain head at the end beside
 * it, hashed. Null when a mark is missing (the provider could not give the
 * price then: the next pass tries again) or another instance settled it
 * first. `inside` runs in the settling transaction (the final-result notices).
 */
export async function settleLeague(
  ctx: LeagueBoardDeps,
  league: LeagueRow,
  inside: (trx: Db, settled: SettledBoard) => Promise<void> = async () => {},
): Promise<SettledBoard | null> {
  const { rules, members, marks, complete, rows } = await countAt(ctx, league, league.ends_at);
  if (!complete) return null;
  const ids = members.map((m) => m.user_id);
  const heads = new Map((await chainHeadsAt(ctx.db, ids, league.ends_at)).map((h) => [h.user_id, h]));
  const now = ctx.clock.now();
  const doc: LeagueBoardDocument = {
    league: { id: league.id, starts_at: iso(league.starts_at), ends_at: iso(league.ends_at), ...rules, scoring_version: league.scoring_version },
    settled_at: iso(now),
    board: documentRows(rows),
    marks: Object.fromEntries([...marks].sort(([a], [b]) => (a < b ? -1 : 1))),
    heads: [...ids].sort((a, b) => a - b).map((user_id) => heads.get(user_id) ?? { user_id, seq: 0, hash: GENESIS }),
  };
  const encoded = encodeBoardDocument(doc);
  const settled = { league: { ...league, settled_at: now }, rows };
  const claimed = await ctx.database.transaction(async (trx) => {
    if (!(await claimSettlement(trx, league.id, now, { final_document: encoded, board_hash: boardHashOf(encoded) }))) return false;
    await inside(trx, settled);
    await ctx.events.emit(trx, 'leagueChanged', { leagueId: league.id });
    return true;
  });
  return claimed ? settled : null;
}

/**
 * The proof of a finished league: its frozen board document, the document's
 * hash, and the inclusion proof of its leaf in the Merkle root of the day it
 * was published in (the day it was settled, published once that day ends).
 */
export async function leagueProof(ctx: LeagueBoardDeps, id: number, callerId: number | null): Promise<LeagueProof> {
  const { league: seen } = await visibleLeague(ctx.db, id, callerId);
  if (seen.final_document === null || seen.settled_at === null || seen.board_hash === null) {
    throw notFound('A league has a proof once it has ended and its final board is settled');
  }
  const settledAt = seen.settled_at;
  let league = seen;
  if (league.record_day === null) {
    // Published lazily too, as the record's days are.
    await publishDay(ctx, dayOf(settledAt));
    league = (await findLeague(ctx.db, id)) ?? league;
  }
  if (league.record_day === null || league.record_leaf_idx === null) {
    throw notFound(`The final board is published in the record of ${dayOf(settledAt)} once that day has ended (UTC)`);
  }
  const day = await publishDay(ctx, league.record_day);
  return {
    kind: 'league-board',
    scoring_version: league.scoring_version,
    document: JSON.parse(league.final_document!) as LeagueBoardDocument,
    board_hash: league.board_hash!,
    proof: {
      date: league.record_day,
      root: day!.root,
      tree_size: day!.tree_size,
      leaf_index: league.record_leaf_idx,
      path: await dayProof(ctx, league.record_day, league.record_leaf_idx),
    },
  };
}
