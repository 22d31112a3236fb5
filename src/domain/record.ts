// The verifiable record, as pure functions: per-user hash chains of bet
// events and a daily Merkle tree over the chain heads (RFC 6962 hashing, so
// leaves and inner nodes can never be confused).
import { createHash } from 'node:crypto';
import { committedInstant } from './bets.js';
import { canonicalJson, eventJson, OPTIONAL_EVENT_FIELDS, proofSides, rankingFieldMismatches, thesisPreimage } from './record-encoding.js';

export { canonicalJson, eventJson, OPTIONAL_EVENT_FIELDS };

export const GENESIS = '0'.repeat(64);

/** The fields of a bet the record commits to. */
export interface BetFields {
  ticker: string;
  direction: 'LONG' | 'SHORT';
  status: 'OPEN' | 'CLOSED' | 'CANCELLED';
  entry_price: number;
  exit_price: number | null;
  percentage_gain: number | null;
  target_date: string | null;
}

/** Entry kinds: `committed` records a bet's committed prices (it changes no status). */
export const RECORD_KINDS = ['opened', 'committed', 'closed', 'cancelled', 'settled'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** Why a bet stopped being OPEN, as the record names it. */
export const CLOSE_REASONS = ['manual', 'cancel', 'target_date', 'stop_loss', 'take_profit'] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

export interface RecordEvent extends BetFields {
  user_id: number;
  seq: number;
  kind: RecordKind;
  /** When the entry was appended (ISO); never earlier than the previous entry's. On entries of the first format, the event's instant as well. */
  at: string;
  bet_id: number;
  // Optional fields (OPTIONAL_EVENT_FIELDS): absent on entries of the first format; absent and null are equal.
  /** The event's own instant (ISO): opening, end of the cancel window, exit (a settlement's due instant). */
  event_at?: string | null;
  committed_price?: number | null;
  benchmark_committed?: number | null;
  close_reason?: CloseReason | null;
  /** On an opening with a thesis: SHA-256 (hex) of its salt, a newline and its text (thesisPreimage); null otherwise. */
  thesis_hash?: string | null;
  ranked_gain?: number | null;
}

/** The bets table's close_reason as the record names it; a reason the record cannot name fails the change rather than record a wrong one. */
export function recordCloseReason(reason: string | null): CloseReason | null {
  if (reason === null) return null;
  if (reason === 'user') return 'manual';
  if (reason === 'settlement') return 'target_date';
  if ((CLOSE_REASONS as readonly string[]).includes(reason)) return reason as CloseReason;
  throw new Error(`close reason "${reason}" has no name in the record (src/domain/record.ts)`);
}

/** A bet row as the record reads it. */
export interface RecordedBet extends BetFields {
  id: number;
  user_id: number;
  opened_at: number;
  closed_at: number | null;
  close_reason: string | null;
  committed_price: number | null;
  benchmark_committed: number | null;
  ranked_gain: number | null;
}

/** The event's own instant: the opening, the end of the cancel window for a commitment, the exit otherwise. */
function eventInstant(kind: RecordKind, bet: RecordedBet, appendedAt: number): number {
  if (kind === 'opened') return bet.opened_at;
  if (kind === 'committed') return committedInstant(bet.opened_at);
  return bet.closed_at ?? appendedAt;
}

/** The entry for a bet's event, appended at `appendedAt` as entry `seq` of its owner's chain; an opening carries its thesis's salted hash, if any. */
export function recordEventOf(kind: RecordKind, bet: RecordedBet, seq: number, appendedAt: number, thesisHash: string | null = null): RecordEvent {
  return {
    user_id: bet.user_id,
    seq,
    kind,
    at: new Date(appendedAt).toISOString(),
    bet_id: bet.id,
    ticker: bet.ticker,
    direction: bet.direction,
    status: bet.status,
    entry_price: bet.entry_price,
    exit_price: bet.exit_price,
    percentage_gain: bet.percentage_gain,
    target_date: bet.target_date,
    event_at: new Date(eventInstant(kind, bet, appendedAt)).toISOString(),
    committed_price: bet.committed_price,
    benchmark_committed: bet.benchmark_committed,
    close_reason: recordCloseReason(bet.close_reason),
    // The opening entry alone commits to the thesis: it was given then, and can never change.
    thesis_hash: kind === 'opened' ? thesisHash : null,
    ranked_gain: bet.ranked_gain,
  };
}

/** The instant an entry's event happened: event_at, or on entries of the first format (which lack it) at. */
export const eventInstantOf = (event: Pick<RecordEvent, 'at' | 'event_at'>): number => Date.parse(event.event_at ?? event.at);

const sha256 = (...parts: Array<string | Buffer>) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/** Each entry commits to the previous entry's hash and to the event's canonical JSON (null optional fields left out). */
export function entryHash(prevHash: string, event: RecordEvent): string {
  return hashOfEncoded(prevHash, eventJson(event));
}

/** An entry as stored: the event's canonical JSON (encoded once, null optional fields left out) and the entry's hash. */
export function encodeEntry(prevHash: string, event: RecordEvent): { event: string; hash: string } {
  const json = eventJson(event);
  return { event: json, hash: hashOfEncoded(prevHash, json) };
}

const hashOfEncoded = (prevHash: string, json: string) => sha256(prevHash, '\n', json);

export interface ChainHead {
  user_id: number;
  seq: number;
  hash: string;
}

export function leafHash(head: ChainHead): string {
  return sha256(Buffer.from([0]), `${head.user_id}:${head.seq}:${head.hash}`);
}

const nodeHash = (left: string, right: string) => sha256(Buffer.from([1]), Buffer.from(left, 'hex'), Buffer.from(right, 'hex'));

/** Largest power of two strictly below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 6962 Merkle tree hash over leaf hashes; the empty tree hashes the empty string. */
export function merkleRoot(leaves: string[]): string {
  if (leaves.length === 0) return sha256('');
  if (leaves.length === 1) return leaves[0];
  const k = split(leaves.length);
  return nodeHash(merkleRoot(leaves.slice(0, k)), merkleRoot(leaves.slice(k)));
}

/**
 * The same root as merkleRoot, built one leaf at a time: it keeps only the
 * perfect subtrees the leaves so far form (one per bit of their count), so a
 * publication hashes its leaves slice by slice as it reads them.
 */
export class MerkleFrontier {
  private readonly stack: Array<{ hash: string; size: number }> = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(leaf: string): void {
    let node = { hash: leaf, size: 1 };
    while (this.stack.length > 0 && this.stack.at(-1)!.size === node.size) {
      const left = this.stack.pop()!;
      node = { hash: nodeHash(left.hash, node.hash), size: node.size * 2 };
    }
    this.stack.push(node);
    this.count++;
  }

  /** The root over every leaf pushed: the subtrees folded right to left, as RFC 6962 splits at the largest power of two. */
  root(): string {
    if (this.stack.length === 0) return sha256('');
    let acc = this.stack.at(-1)!.hash;
    for (let i = this.stack.length - 2; i >= 0; i--) acc = nodeHash(this.stack[i]!.hash, acc);
    return acc;
  }

  copy(): MerkleFrontier {
    const c = new MerkleFrontier();
    c.stack.push(...this.stack.map((n) => ({ ...n })));
    c.count = this.count;
    return c;
  }
}

const INNER = Buffer.from([1]);
const HASH_BYTES = 32;

/**
 * Every perfect subtree's root of a day's tree, one buffer a level (level L
 * holds floor(size / 2^L) nodes of 32 bytes), filled one leaf at a time. An
 * inclusion proof then costs a few dozen lookups and hashes instead of
 * hashing every leaf again: about 6 MB for 100,000 leaves.
 */
export class MerkleLevels {
  private readonly levels: Buffer[] = [];
  private count = 0;

  constructor(readonly size: number) {
    for (let width = size; width >= 1; width = Math.floor(width / 2)) this.levels.push(Buffer.alloc(width * HASH_BYTES));
  }

  get complete(): boolean {
    return this.count === this.size;
  }

  push(leaf: string): void {
    if (this.count >= this.size) throw new Error(`a tree of ${this.size} leaves is full`);
    let i = this.count++;
    this.levels[0]!.write(leaf, i * HASH_BYTES, HASH_BYTES, 'hex');
    // A right child completes its parent.
    for (let level = 0; i % 2 === 1 && level + 1 < this.levels.length; level++) {
      i = (i - 1) / 2;
      createHash('sha256')
        .update(INNER)
        .update(this.node(level, 2 * i))
        .update(this.node(level, 2 * i + 1))
        .digest()
        .copy(this.levels[level + 1]!, i * HASH_BYTES);
    }
  }

  /** The tree hash over every leaf (merkleRoot's). */
  root(): string {
    if (this.size === 0) return sha256('');
    return this.range(0, this.size).toString('hex');
  }

  /** RFC 6962 audit path for leaf m (inclusionProof's). */
  proof(m: number): string[] {
    if (!this.complete) throw new Error('the tree is not complete');
    const path: string[] = [];
    const walk = (lo: number, hi: number) => {
      if (hi - lo <= 1) return;
      const k = split(hi - lo);
      if (m < lo + k) {
        walk(lo, lo + k);
        path.push(this.range(lo + k, hi).toString('hex'));
      } else {
        walk(lo + k, hi);
        path.push(this.range(lo, lo + k).toString('hex'));
      }
    };
    walk(0, this.size);
    return path;
  }

  private node(level: number, i: number): Buffer {
    return this.levels[level]!.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES);
  }

  /** The root over leaves [lo, hi): stored when it is a perfect subtree (lo is then a multiple of its width), else split as RFC 6962 does. */
  private range(lo: number, hi: number): Buffer {
    const width = hi - lo;
    if ((width & (width - 1)) === 0) return this.node(Math.log2(width), lo / width);
    const k = split(width);
    return createHash('sha256')
      .update(INNER)
      .update(this.range(lo, lo + k))
      .update(this.range(lo + k, hi))
      .digest();
  }
}

/** RFC 6962 audit path for leaf m. */
export function inclusionProof(leaves: string[], m: number): string[] {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k
    ? [...inclusionProof(leaves.slice(0, k), m), merkleRoot(leaves.slice(k))]
    : [...inclusionProof(leaves.slice(k), m - k), merkleRoot(leaves.slice(0, k))];
}

/** Recomputes the root from a leaf, its index, the tree size and its audit path (RFC 9162 §2.1.3.2). */
export function rootFromProof(leaf: string, index: number, size: number, path: string[]): string | null {
  const sides = proofSides(index, size, path.length);
  return sides && path.reduce((r, p, i) => (sides[i] ? nodeHash(p, r) : nodeHash(r, p)), leaf);
}

export interface ChainEntry {
  seq: number;
  event: RecordEvent;
  prev_hash: string;
  hash: string;
}

export interface BetState extends BetFields {
  id: number;
  /** Checked when the bet's latest entry is of the new format (rankingFieldMismatches); absent in exports made before. */
  committed_price?: number | null;
  benchmark_committed?: number | null;
  ranked_gain?: number | null;
  /** A thesis as served with its salt (docs/theses.md): checked against the opening entry's thesis_hash. */
  thesis?: string | null;
  thesis_salt?: string | null;
}

/** The problem with a bet's served thesis, or null: its salted hash must be the one its opening entry committed to. */
export function thesisMismatch(bet: Pick<BetState, 'id' | 'thesis' | 'thesis_salt'>, opening: RecordEvent | undefined): string | null {
  if (bet.thesis == null || bet.thesis_salt == null) return null;
  if (!opening) return `bet ${bet.id}: a thesis is shown but the record has no opening entry for it`;
  if (opening.thesis_hash == null) return `bet ${bet.id}: a thesis is shown but its opening entry committed to none`;
  if (createHash('sha256').update(thesisPreimage(bet.thesis_salt, bet.thesis)).digest('hex') !== opening.thesis_hash)
    return `bet ${bet.id}: the thesis shown is not the one committed at opening (thesis_hash mismatch)`;
  return null;
}

/**
 * Checks a user's chain: consecutive sequence numbers from 1, each entry
 * linked to the previous hash and hashing to what it claims; and, when the
 * current bet rows are given, that each bet matches its latest event (so a
 * bet row edited in the database is caught). Returns the problems found.
 */
export function verifyChain(userId: number, entries: ChainEntry[], bets?: BetState[]): string[] {
  const problems: string[] = [];
  let prev = GENESIS;
  const latest = new Map<number, RecordEvent>();
  const openings = new Map<number, RecordEvent>();
  entries.forEach((e, i) => {
    if (e.seq !== i + 1) problems.push(`gap: expected entry ${i + 1}, found ${e.seq}`);
    if (e.event.user_id !== userId) problems.push(`entry ${e.seq} names user ${e.event.user_id}`);
    if (e.event.seq !== e.seq) problems.push(`entry ${e.seq} carries sequence ${e.event.seq}`);
    if (e.prev_hash !== prev) problems.push(`entry ${e.seq} does not link to the previous entry`);
    const h = entryHash(e.prev_hash, e.event);
    if (h !== e.hash) problems.push(`entry ${e.seq} was changed (hash mismatch)`);
    prev = e.hash;
    latest.set(e.event.bet_id, e.event);
    if (e.event.kind === 'opened' && !openings.has(e.event.bet_id)) openings.set(e.event.bet_id, e.event);
  });
  for (const b of bets ?? []) {
    const thesisProblem = thesisMismatch(b, openings.get(b.id));
    if (thesisProblem) problems.push(thesisProblem);
    const ev = latest.get(b.id);
    if (!ev) {
      problems.push(`bet ${b.id} has no entry in the record`);
      continue;
    }
    for (const k of ['ticker', 'direction', 'status', 'entry_price', 'exit_price', 'percentage_gain', 'target_date'] as const) {
      if (ev[k] !== b[k]) problems.push(`bet ${b.id}: ${k} is ${JSON.stringify(b[k])} but the record says ${JSON.stringify(ev[k])}`);
    }
    for (const k of rankingFieldMismatches(b, ev)) {
      problems.push(`bet ${b.id}: ${k} is ${JSON.stringify(b[k] ?? null)} but the record says ${JSON.stringify(ev[k] ?? null)}`);
    }
  }
  if (bets) {
    const ids = new Set(bets.map((b) => b.id));
    for (const id of latest.keys()) if (!ids.has(id)) problems.push(`bet ${id} is in the record but missing from the bets`);
  }
  return problems;
}
