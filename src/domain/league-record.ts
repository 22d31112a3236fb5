// A finished league in the verifiable record (docs/leagues.md): its final
// board document is hashed, the hash is a leaf of the next day's Merkle root
// beside the users' chain heads, and anyone can check the proof and recount
// each member's row from that member's own record.
import { createHash } from 'node:crypto';
import type { LeagueBoardDocument, LeagueProof } from '../schemas/leagues.js';
import type { UserRecord } from '../schemas/record.js';
import { committedInstant, percentageGain } from './bets.js';
import { type BoardRow, computeBoard, type LeagueBet, type ScoringVersion } from './leagues.js';
import { canonicalJson, eventInstantOf, GENESIS, RECORD_KINDS, rootFromProof } from './record.js';

const sha256 = (...parts: Array<string | Buffer>) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/** The document's canonical JSON: the bytes stored and hashed. */
export const encodeBoardDocument = (doc: LeagueBoardDocument): string => canonicalJson(doc);

export const boardHashOf = (encoded: string): string => sha256(encoded);

/**
 * A league's leaf in a day's tree: a leaf (RFC 6962's 0x00 prefix) whose text
 * starts with "league:", which no user leaf ("<user_id>:<seq>:<hash>") can.
 */
export function leagueLeafHash(leagueId: number, boardHash: string): string {
  return sha256(Buffer.from([0]), `league:${leagueId}:${boardHash}`);
}

/** Board rows as hashed: users by id only (names change when an account is deleted). */
export function documentRows(rows: BoardRow[]): LeagueBoardDocument['board'] {
  return rows.map((r) => ({
    rank: r.rank,
    user_id: r.user_id,
    score: r.score,
    trades: r.trades,
    marked: r.marked,
    cancels: r.cancels,
    cancel_rate: r.cancel_rate,
    left: r.left,
    // Version 2 only: a version-1 document keeps exactly its fields.
    ...(r.early_closes === undefined ? {} : { early_closes: r.early_closes }),
  }));
}

/** A record holds an entry of a kind this recount does not know: it fails rather than guess what that entry did to the bet. */
export class UnknownEntryKind extends Error {}

/**
 * A committed price as an entry carries it (docs/record.md): a number; null
 * in entries of the second format, which leave a null field out (they all
 * carry event_at); undefined in entries of the first format, which predate it.
 */
function committedPriceOf(event: object): number | null | undefined {
  const e = event as { committed_price?: unknown; event_at?: unknown };
  if (typeof e.committed_price === 'number') return e.committed_price;
  return e.event_at !== undefined ? null : undefined;
}

/** Whether any entry of a record is of the format that carries committed prices: only then can a version-2 board be recounted from it. */
export function recordsCommitments(record: UserRecord): boolean {
  return record.entries.some(({ event }) => committedPriceOf(event) !== undefined);
}

/**
 * The bets of a record as they stood at its entry `seq`: the opening instant
 * from the opened entry, the latest state at or before seq, the exit instant
 * from the entry that ended the bet. Instants are the events' own (event_at;
 * `at` on entries of the first format, which lack it). A `committed` entry
 * changes no status but keeps the committed price, and a close at or after the
 * committed instant gets its ranked gain (committed price to exit). A kind not
 * known here throws UnknownEntryKind.
 */
export function betsAtHead(record: UserRecord, seq: number): LeagueBet[] {
  const bets = new Map<number, LeagueBet>();
  for (const { event } of record.entries) {
    if (event.seq > seq) break;
    const kind = event.kind as string;
    if (!(RECORD_KINDS as readonly string[]).includes(kind)) {
      throw new UnknownEntryKind(`entry ${event.seq} is of kind "${kind}", which this verifier does not know (update it)`);
    }
    const at = eventInstantOf(event);
    const known = bets.get(event.bet_id);
    const openedAt = known?.opened_at ?? at;
    const committed = committedPriceOf(event) ?? known?.committed_price ?? null;
    const closedAt = kind === 'opened' ? null : kind === 'committed' ? (known?.closed_at ?? null) : at;
    const ranked =
      event.status === 'CLOSED' && committed !== null && event.exit_price !== null && closedAt !== null && closedAt >= committedInstant(openedAt)
        ? percentageGain(event.direction, committed, event.exit_price)
        : null;
    bets.set(event.bet_id, {
      id: event.bet_id,
      user_id: event.user_id,
      ticker: event.ticker,
      direction: event.direction,
      status: event.status,
      entry_price: event.entry_price,
      exit_price: event.exit_price,
      percentage_gain: event.percentage_gain,
      opened_at: openedAt,
      closed_at: closedAt,
      benchmark_entry: null,
      benchmark_exit: null,
      committed_price: committed,
      ranked_gain: ranked,
    });
  }
  return [...bets.values()];
}

const COUNTS_2 = ['trades', 'marked', 'cancels', 'early_closes'] as const;

const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)));

/**
 * Checks a league proof: the board hashes to board_hash, its leaf leads to
 * the proof's root (and the published root, when given), and each member
 * whose record is given has that chain head in an intact chain, from which
 * the member's counted bets, marks and cancellations (and, for `gain`
 * scoring, the score) are recounted by the document's scoring version
 * (absent: 1, the only one before versions existed). Benchmark prices are not
 * in the record, so a `skill` score is checked through its counts only. A
 * version-2 board needs the committed prices: from a record without them only
 * the cancellations and early closes are recounted. Returns the problems.
 */
export function verifyLeagueProof(
  proof: LeagueProof,
  opts: { publishedRoot?: string; records?: Map<number, UserRecord>; verifyRecord?: (r: UserRecord) => string[] },
): string[] {
  const problems: string[] = [];
  const doc = proof.document;
  if (boardHashOf(encodeBoardDocument(doc)) !== proof.board_hash) problems.push('the board does not hash to board_hash (it was changed)');
  const p = proof.proof;
  const root = rootFromProof(leagueLeafHash(doc.league.id, proof.board_hash), p.leaf_index, p.tree_size, p.path);
  if (root !== p.root) problems.push(`the proof does not lead to the root of ${p.date}`);
  if (opts.publishedRoot !== undefined && opts.publishedRoot !== p.root) problems.push(`the root of ${p.date} differs from the published one`);

  // The hashed document's version is what counts; the answer's top-level one must agree with it.
  const version: ScoringVersion = doc.league.scoring_version ?? 1;
  if (proof.scoring_version !== undefined && proof.scoring_version !== version) {
    problems.push(`the proof says scoring version ${proof.scoring_version} but its document ${version}`);
  }
  const league = { starts_at: Date.parse(doc.league.starts_at), ends_at: Date.parse(doc.league.ends_at) };
  const rules = { instruments: doc.league.instruments, min_closed_bets: doc.league.min_closed_bets, scoring: doc.league.scoring };
  const marks = new Map(Object.entries(doc.marks));
  for (const head of doc.heads) {
    const row = doc.board.find((r) => r.user_id === head.user_id);
    if (!row) problems.push(`member ${head.user_id} has a chain head but no row on the board`);
    const record = opts.records?.get(head.user_id);
    if (!record || !row) continue;
    for (const problem of opts.verifyRecord?.(record) ?? []) problems.push(`member ${head.user_id}: ${problem}`);
    if (head.seq === 0) {
      if (head.hash !== GENESIS) problems.push(`member ${head.user_id}: an empty chain's head must be the genesis hash`);
    } else if (record.entries.find((e) => e.seq === head.seq)?.hash !== head.hash) {
      problems.push(`member ${head.user_id}: the chain head at the end (entry ${head.seq}) is not in the member's record`);
    }
    let bets: LeagueBet[];
    try {
      bets = betsAtHead(record, head.seq);
    } catch (err) {
      if (!(err instanceof UnknownEntryKind)) throw err;
      problems.push(`member ${head.user_id}: not recounted: ${err.message}`);
      continue;
    }
    const [recount] = computeBoard(rules, league, [{ user_id: head.user_id, left_at: null }], bets, league.ends_at, marks, version);
    const scored = version === 1 || recordsCommitments(record);
    const counts = version === 1 ? (['trades', 'marked', 'cancels'] as const) : scored ? COUNTS_2 : (['cancels', 'early_closes'] as const);
    for (const k of counts) {
      if (recount[k] !== row[k]) problems.push(`member ${head.user_id}: the board says ${k} ${row[k]} but the record gives ${recount[k]}`);
    }
    if (scored && rules.scoring === 'gain' && !close(recount.score, row.score)) {
      problems.push(`member ${head.user_id}: the board says score ${row.score} but the record gives ${recount.score}`);
    }
  }
  for (const row of doc.board) {
    if (!doc.heads.some((h) => h.user_id === row.user_id)) problems.push(`member ${row.user_id} is on the board without a chain head`);
  }
  return problems;
}
