// Checks the verifiable record in the browser with WebCrypto: the same
// canonical JSON and proof walk as the server (src/domain/record-encoding.ts,
// the one module of src/ shared with the browser), the same chain and RFC 6962
// hashing as src/domain/record.ts (a unit test keeps the two in agreement), so
// a reader need not trust the service's own word that a bet is in the
// published root.
// The extensions let the Node unit tests (node16 resolution) read the same files.
import { canonicalJson, eventJson, proofSides, rankingFieldMismatches, thesisPreimage } from '../../../src/domain/record-encoding.js';
import type { components } from '../api/schema.js';

export { canonicalJson, eventJson };

export type UserRecord = components['schemas']['UserRecord'];
export type RecordEvent = components['schemas']['RecordEvent'];
export type RecordEntry = UserRecord['entries'][number];
export type RecordProof = NonNullable<UserRecord['proof']>;

export const GENESIS = '0'.repeat(64);

/** WebCrypto is there only in secure contexts (https, localhost). */
export function canVerifyHere(): boolean {
  return typeof globalThis.crypto?.subtle?.digest === 'function';
}

const utf8 = new TextEncoder();

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function bytesToHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function sha256(...parts: Uint8Array[]): Promise<string> {
  const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return bytesToHex(await crypto.subtle.digest('SHA-256', data));
}

/**
 * An entry's hash: SHA-256 of the previous hash, a newline and the event's
 * canonical JSON, its optional fields that are null left out (an absent field
 * and a null hash alike, so entries of every format verify).
 */
export function entryHash(prevHash: string, event: RecordEvent): Promise<string> {
  return sha256(utf8.encode(`${prevHash}\n${eventJson(event)}`));
}

/** RFC 6962 leaf hash of a chain head: 0x00 ‖ "user_id:seq:hash". */
export function leafHash(head: RecordProof['leaf']): Promise<string> {
  return sha256(Uint8Array.of(0), utf8.encode(`${head.user_id}:${head.seq}:${head.hash}`));
}

/** RFC 6962 inner node: 0x01 ‖ left ‖ right. */
export function nodeHash(left: string, right: string): Promise<string> {
  return sha256(Uint8Array.of(1), hexToBytes(left), hexToBytes(right));
}

/** Recomputes the root from a leaf, its index, the tree size and its audit path (RFC 9162 §2.1.3.2); null when the path does not fit. */
export async function rootFromProof(leaf: string, index: number, size: number, path: readonly string[]): Promise<string | null> {
  const sides = proofSides(index, size, path.length);
  if (!sides) return null;
  let r = leaf;
  for (const [i, p] of path.entries()) r = sides[i] ? await nodeHash(p, r) : await nodeHash(r, p);
  return r;
}

export interface RecordCheck {
  /** This bet's entries, oldest first. */
  entries: RecordEntry[];
  /** What does not check out in the chain and the proof; empty when all of it does. */
  problems: string[];
  /** The root recomputed from the head's leaf and the audit path; null without a proof or when the path does not fit. */
  recomputedRoot: string | null;
  /** How the proof fared: no proof yet, it leads to the published root (and the chain checks out), or not. */
  proof: 'none' | 'verified' | 'mismatch';
  /** The bet's entries at or before the published head (in the root), and the ones after it (in no root yet). */
  covered: RecordEntry[];
  pending: RecordEntry[];
  /** Fields in which the bet as stored differs from its latest recorded event (a bet row edited afterwards). */
  betMismatch: string[];
  /** The bet's thesis as served: none served, its salted hash is the one the opening entry committed to, or not. */
  thesis: 'none' | 'committed' | 'mismatch';
}

/** The thesis_hash a thesis and its salt give (docs/theses.md): SHA-256 of the salt, a newline and the text. */
export function thesisHash(salt: string, text: string): Promise<string> {
  return sha256(utf8.encode(thesisPreimage(salt, text)));
}

const BET_FIELDS = ['ticker', 'direction', 'status', 'entry_price', 'exit_price', 'percentage_gain', 'target_date'] as const;

/**
 * Checks one bet's place in its owner's record: every entry of the chain
 * links to the previous one and hashes to what it claims, the proof leads
 * from the chain head to the day's root (and that root is the one published
 * for the day, when given), and the bet as stored matches its latest event.
 */
export async function checkBetRecord(record: UserRecord, betId: number, publishedRoot?: string): Promise<RecordCheck> {
  const problems: string[] = [];
  const proof = record.proof;
  let prev = GENESIS;
  for (const [i, e] of record.entries.entries()) {
    if (e.seq !== i + 1) problems.push(`gap: expected entry ${i + 1}, found ${e.seq}`);
    if (e.event.user_id !== record.user_id) problems.push(`entry ${e.seq} names user ${e.event.user_id}`);
    if (e.event.seq !== e.seq) problems.push(`entry ${e.seq} carries sequence ${e.event.seq}`);
    if (e.prev_hash !== prev) problems.push(`entry ${e.seq} does not link to the previous entry`);
    if ((await entryHash(e.prev_hash, e.event)) !== e.hash) problems.push(`entry ${e.seq} was changed (its hash does not match)`);
    prev = e.hash;
  }
  const entries = record.entries.filter((e) => e.event.bet_id === betId);
  const headSeq = proof?.leaf.seq ?? 0;
  const covered = entries.filter((e) => e.seq <= headSeq);
  const pending = entries.filter((e) => e.seq > headSeq);

  const latest = entries.at(-1)?.event;
  const bet = record.bets.find((b) => b.id === betId);
  const betMismatch: string[] = bet && latest ? [...BET_FIELDS.filter((k) => bet[k] !== latest[k]), ...rankingFieldMismatches(bet, latest)] : [];

  let thesis: RecordCheck['thesis'] = 'none';
  if (bet?.thesis != null && bet.thesis_salt != null) {
    const opening = entries.find((e) => e.event.kind === 'opened')?.event;
    thesis = opening?.thesis_hash != null && (await thesisHash(bet.thesis_salt, bet.thesis)) === opening.thesis_hash ? 'committed' : 'mismatch';
  }

  let recomputedRoot: string | null = null;
  let verdict: RecordCheck['proof'] = 'none';
  if (proof) {
    const head = record.entries.find((e) => e.seq === proof.leaf.seq);
    if (!head || head.hash !== proof.leaf.hash) problems.push(`the published head (entry ${proof.leaf.seq}) is not in the chain`);
    if (proof.leaf.user_id !== record.user_id) problems.push('the proof is for another user');
    recomputedRoot = await rootFromProof(await leafHash(proof.leaf), proof.leaf_index, proof.tree_size, proof.path);
    if (recomputedRoot === null || recomputedRoot !== proof.root) problems.push(`the proof does not lead to the root of ${proof.date}`);
    else if (publishedRoot !== undefined && publishedRoot !== proof.root) problems.push(`the root of ${proof.date} differs from the published one`);
    verdict = problems.length === 0 ? 'verified' : 'mismatch';
  }
  return { entries, problems, recomputedRoot, proof: verdict, covered, pending, betMismatch, thesis };
}

/** The first and last few characters of a hash, for display. */
export function shortHash(hash: string, keep = 10): string {
  return hash.length <= keep * 2 + 1 ? hash : `${hash.slice(0, keep)}…${hash.slice(-4)}`;
}

/**
 * One word for the reader: verified (the bet's entries are under a published
 * root that the proof reaches), failed (something does not verify), or
 * unpublished (the chain checks out, but no published root covers the bet yet).
 */
export function verdictOf(check: RecordCheck): 'verified' | 'failed' | 'unpublished' {
  if (
    check.problems.length > 0 ||
    check.betMismatch.length > 0 ||
    check.thesis === 'mismatch' ||
    check.proof === 'mismatch' ||
    check.entries.length === 0
  )
    return 'failed';
  return check.proof === 'verified' && check.covered.length > 0 ? 'verified' : 'unpublished';
}
