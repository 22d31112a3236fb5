// The verifiable record: every bet event is appended, in the bet's own
// transaction, to its user's hash chain; each ended UTC day gets a Merkle
// root over all chain heads, published once.
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import type { BetRow } from '../db/tables.js';
import { LRUCache } from 'lru-cache';
import { encodeEntry, GENESIS, leafHash, MerkleFrontier, MerkleLevels, type RecordEvent, type RecordKind, recordEventOf } from '../domain/record.js';
import { notFound } from '../errors.js';
import { yieldToLoop } from '../lib/yield.js';
import {
  dayLeavesAfter,
  entrySlice,
  findDay,
  headsBefore,
  insertDay,
  type LastEntry,
  insertEntry,
  insertEntryIfNext,
  lastEntry,
  latestDay,
  latestLeafOf,
  lockOwnerReadingHead,
  userBetStates,
  userExists,
} from '../repositories/record.js';
import { boardLeavesOf, boardsToPublish, setBoardLeaf } from '../repositories/leagues.js';
import { leagueLeafHash } from '../domain/league-record.js';
import type { RecordDay, UserRecord } from '../schemas/record.js';
import type { AppEvents, BetEvent } from './events.js';
import { thesesOfUser } from '../repositories/theses.js';
import { thesisServedTo } from '../domain/thesis.js';

/** What the verifiable record uses of the context. */
export type RecordDeps = Pick<AppContext, 'clock' | 'database' | 'db'>;

/** The user record also reads the thesis setting. */
type UserRecordDeps = RecordDeps & Pick<AppContext, 'config'>;

const DAY_MS = 86_400_000;
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayEnd = (day: string) => Date.parse(`${day}T00:00:00Z`) + DAY_MS;

/**
 * Appends a bet's event to its owner's chain, under the owner's row lock
 * (other users never wait), its head read after the lock is held. The entry
 * is dated when it is appended, never before the previous entry (instances'
 * clocks may differ), so dates rise with sequence numbers as headsBefore
 * assumes; the event's own instant is its event_at. On PostgreSQL the head is
 * read in the lock's own statement (the caller's, or lockOwnerReadingHead),
 * whose snapshot may predate the lock: an entry built on an out-of-date head
 * finds its sequence number taken and is built again on the head read now.
 */
async function appendEntry(
  ctx: RecordDeps,
  trx: Db,
  kind: RecordKind,
  bet: BetRow,
  owner: Pick<BetEvent, 'ownerLocked' | 'ownerHead'>,
  thesisHash?: string,
): Promise<void> {
  const head = !owner.ownerLocked
    ? await lockOwnerReadingHead(trx, bet.user_id)
    : owner.ownerHead
      ? owner.ownerHead.head
      : await lastEntry(trx, bet.user_id);
  const entryOn = (last: LastEntry | undefined) => {
    const seq = (last?.seq ?? 0) + 1;
    const prev = last?.hash ?? GENESIS;
    const at = Math.max(ctx.clock.now(), last?.at ?? 0);
    const entry = encodeEntry(prev, recordEventOf(kind, bet, seq, at, thesisHash ?? null));
    return { user_id: bet.user_id, seq, bet_id: bet.id, kind, at, ...entry, prev_hash: prev };
  };
  if (await insertEntryIfNext(trx, entryOn(head))) return;
  await insertEntry(trx, entryOn(await lastEntry(trx, bet.user_id)));
}

/** The betChanged handler: one chain entry per event. */
export function recordHandler(ctx: RecordDeps) {
  return (trx: Db, { kind, bet, thesisHash, ...owner }: BetEvent): Promise<void> => appendEntry(ctx, trx, kind, bet, owner, thesisHash);
}

/** The betCommitted handler: a `committed` entry with the bet's committed prices (the bet's status is unchanged). */
export function committedRecordHandler(ctx: RecordDeps) {
  return (trx: Db, { bet }: AppEvents['betCommitted']): Promise<void> => appendEntry(ctx, trx, 'committed', bet, {});
}

const toDay = (d: { day: string; root: string; tree_size: number; published_at: number }): RecordDay => ({
  date: d.day,
  root: d.root,
  tree_size: d.tree_size,
  published_at: new Date(d.published_at).toISOString(),
});

/** Chain heads a publication reads and hashes before it lets the event loop run again (tests lower it). */
export const RECORD_SLICE = 1_000;

/** Publications in progress in this process, by database and day: concurrent callers share one. */
const publishing = new WeakMap<object, Map<string, Promise<RecordDay>>>();

/** Publishes an ended day (idempotent; concurrent publishers agree). Null for a day not yet over. */
export async function publishDay(ctx: RecordDeps, day: string, o: { slice?: number } = {}): Promise<RecordDay | null> {
  const existing = await findDay(ctx.db, day);
  if (existing) return toDay(existing);
  const end = dayEnd(day);
  if (end > ctx.clock.now()) return null;
  // The job and the requests that publish lazily (the first after midnight) share one run of the work.
  let inFlight = publishing.get(ctx.database);
  if (!inFlight) {
    inFlight = new Map();
    publishing.set(ctx.database, inFlight);
  }
  const running = inFlight.get(day);
  if (running) return running;
  const run = publish(ctx, day, end, o.slice ?? RECORD_SLICE).finally(() => inFlight.delete(day));
  inFlight.set(day, run);
  return run;
}

/**
 * Every user's chain head is read and hashed a slice at a time, the event
 * loop running between slices (100,000 heads are too many for one go on
 * SQLite, whose statements block the loop). The day's row, its leaves and its
 * boards are then written in one transaction, so the day appears at once with
 * every leaf its proofs need; the leaves go in chunks with the loop running
 * between them. An entry is dated when it is appended, so once the day is
 * over no new entry falls in it (instances' clocks aside, as ever): reading
 * the heads before the transaction gives the tree reading them inside did.
 */
async function publish(ctx: RecordDeps, day: string, end: number, slice: number): Promise<RecordDay> {
  const tree = new MerkleFrontier();
  const leaves: Array<{ day: string; idx: number; user_id: number; seq: number; hash: string }> = [];
  for (let after = -1; ; ) {
    const heads = await headsBefore(ctx.db, end, after, slice);
    for (const h of heads) {
      tree.push(leafHash(h));
      leaves.push({ day, idx: leaves.length, user_id: h.user_id, seq: h.seq, hash: h.hash });
    }
    if (heads.length < slice) break;
    after = heads.at(-1)!.user_id;
    await yieldToLoop();
  }
  await ctx.database.transaction(async (trx) => {
    // Final boards of leagues settled by then follow the chain heads (docs/leagues.md).
    const boards = await boardsToPublish(trx, end);
    const all = tree.copy();
    for (const b of boards) all.push(leagueLeafHash(b.id, b.board_hash!));
    const inserted = await insertDay(trx, { day, root: all.root(), tree_size: all.size, published_at: ctx.clock.now() }, leaves, {
      between: yieldToLoop,
    });
    if (inserted) for (const [i, b] of boards.entries()) await setBoardLeaf(trx, b.id, day, leaves.length + i);
  });
  return toDay((await findDay(ctx.db, day))!);
}

/**
 * The built trees of published days, per database, the latest few: a proof
 * is then a few dozen lookups and hashes, where hashing the day's 100,000
 * leaves again cost about 600 ms of the event loop per request on the full data. A day
 * never changes once published, so a kept tree is never stale.
 */
const dayTrees = new WeakMap<object, LRUCache<string, Promise<MerkleLevels>>>();
const DAY_TREES_KEPT = 2;

/** The audit path of leaf `index` in the tree of `day`, a published day. */
export async function dayProof(ctx: Pick<RecordDeps, 'database' | 'db'>, day: string, index: number): Promise<string[]> {
  let trees = dayTrees.get(ctx.database);
  if (!trees) {
    trees = new LRUCache({ max: DAY_TREES_KEPT });
    dayTrees.set(ctx.database, trees);
  }
  let tree = trees.get(day);
  if (!tree) {
    const building = buildDayTree(ctx.db, day);
    tree = building;
    trees.set(day, building);
    // A failed build is not kept: the next request builds again.
    building.catch(() => {
      if (trees.get(day) === building) trees.delete(day);
    });
  }
  return (await tree).proof(index);
}

/**
 * The day's leaves in tree order (the users' chain heads, then the leagues'
 * final boards), read and hashed a slice at a time with the event loop
 * running between slices; the root they give must be the one published.
 */
export async function buildDayTree(db: Db, day: string, slice = RECORD_SLICE): Promise<MerkleLevels> {
  const published = await findDay(db, day);
  if (!published) throw new Error(`the record of ${day} is not published`);
  const tree = new MerkleLevels(published.tree_size);
  for (let after = -1; ; ) {
    const leaves = await dayLeavesAfter(db, day, after, slice);
    for (const l of leaves) tree.push(leafHash(l));
    if (leaves.length < slice) break;
    after = leaves.at(-1)!.idx;
    await yieldToLoop();
  }
  for (const b of await boardLeavesOf(db, day)) tree.push(leagueLeafHash(b.id, b.board_hash!));
  if (!tree.complete || tree.root() !== published.root) throw new Error(`the record of ${day}: its leaves do not give its published root`);
  return tree;
}

const yesterday = (ctx: RecordDeps) => dayOf(ctx.clock.now() - DAY_MS);

export async function recordHead(ctx: RecordDeps): Promise<RecordDay> {
  await publishDay(ctx, yesterday(ctx));
  return toDay((await latestDay(ctx.db))!);
}

export async function recordDay(ctx: RecordDeps, day: string): Promise<RecordDay> {
  const d = await publishDay(ctx, day);
  if (!d) throw notFound(`The record of ${day} is published once the day has ended (UTC)`);
  return d;
}

async function withRecordTheses<B extends { id: number }>(ctx: UserRecordDeps, userId: number, bets: B[]) {
  const theses = await thesesOfUser(ctx.db, userId);
  if (theses.size === 0) return bets;
  return bets.map((b) => {
    const t = theses.get(b.id);
    if (!t || !thesisServedTo(t, null, ctx.config.thesisReportsToHide)) return b;
    return { ...b, thesis: t.text, thesis_salt: t.salt };
  });
}

/**
 * A user's record up to its chain's head as read here: everything but the
 * entries, which userRecordText reads as it sends them. The head is read
 * before the bets, as the entries were before, so a close between the two
 * shows in the bets and not yet in the chain sent.
 */
export interface UserRecordHead {
  userId: number;
  /** The last entry sent: entries appended meanwhile wait for the next request. 0 when the chain is empty. */
  lastSeq: number;
  bets: UserRecord['bets'];
  proof: UserRecord['proof'];
}

export async function userRecordHead(ctx: UserRecordDeps, userId: number): Promise<UserRecordHead> {
  if (!(await userExists(ctx.db, userId))) throw notFound('User not found');
  await publishDay(ctx, yesterday(ctx));
  const lastSeq = (await lastEntry(ctx.db, userId))?.seq ?? 0;
  // A thesis shown to everyone is served with its salt, so the opening entry's thesis_hash can be recomputed (docs/theses.md).
  const bets = await withRecordTheses(ctx, userId, await userBetStates(ctx.db, userId));
  let proof: UserRecord['proof'] = null;
  const leaf = await latestLeafOf(ctx.db, userId);
  if (leaf) {
    const day = (await findDay(ctx.db, leaf.day))!;
    proof = {
      date: day.day,
      root: day.root,
      tree_size: day.tree_size,
      leaf_index: leaf.idx,
      leaf: { user_id: leaf.user_id, seq: leaf.seq, hash: leaf.hash },
      path: await dayProof(ctx, leaf.day, leaf.idx),
    };
  }
  return { userId, lastSeq, bets, proof };
}

/** Splits serialized JSON at the first `"key":[]`: the text before the array's closing bracket, and from it on. */
function openArray(json: string, key: string): [string, string] {
  // The first match is the key's: inside a JSON string every quote is escaped.
  const marker = `"${key}":[`;
  const at = json.indexOf(`${marker}]`);
  if (at < 0) throw new Error(`the record shell has no empty ${key}`);
  return [json.slice(0, at + marker.length), json.slice(at + marker.length)];
}

/**
 * The record as JSON text, in pieces: `shell` is the record with no entries and
 * no bets as the route's response schema serializes it, `betsText` that
 * schema's serializer of an array of bets. The entries (read a slice at a
 * time) and the bets (read whole, as of the head) go between their brackets,
 * a slice at a time with a turn of the event loop between slices, so a record
 * of tens of thousands of entries (megabytes) never holds the loop, nor the
 * memory of the whole answer at once. Each event goes out as the bytes
 * stored, which are the bytes its hash covers: canonical JSON of a RecordEvent
 * (eventJson).
 */
export async function* userRecordText(
  ctx: RecordDeps,
  head: UserRecordHead,
  shell: string,
  betsText: (bets: UserRecord['bets']) => string,
  slice = RECORD_SLICE,
): AsyncGenerator<string> {
  const [beforeEntries, afterEntries] = openArray(shell, 'entries');
  const [beforeBets, afterBets] = openArray(afterEntries, 'bets');
  let text = beforeEntries;
  let after = 0;
  while (after < head.lastSeq) {
    // A slice of entries costs the event loop a few milliseconds, as a slice of a publication's heads does.
    const entries = await entrySlice(ctx.db, head.userId, after, head.lastSeq, slice);
    if (entries.length === 0) break;
    for (const e of entries) {
      text += `${after === 0 ? '' : ','}{"seq":${e.seq},"prev_hash":"${e.prev_hash}","hash":"${e.hash}","event":${e.event}}`;
      after = e.seq;
    }
    yield text;
    text = '';
    await yieldToLoop();
  }
  text += beforeBets;
  for (let i = 0; i < head.bets.length; i += slice) {
    const bets = betsText(head.bets.slice(i, i + slice));
    // The slice's array without its brackets, joined to the previous slice's.
    text += (i === 0 ? '' : ',') + bets.slice(1, -1);
    yield text;
    text = '';
    await yieldToLoop();
  }
  yield text + afterBets;
}

/** Publishes yesterday when it is not yet (run by a timer; requests also publish lazily). */
export async function publishYesterday(ctx: RecordDeps): Promise<void> {
  await publishDay(ctx, yesterday(ctx));
}
