// Checks an exported user record (GET /record/user/{id}): the chain, the bets
// against their latest events, and the inclusion proof of the chain head.
import { type ChainEntry, leafHash, rootFromProof, verifyChain } from './record.js';
import type { UserRecord } from '../schemas/record.js';

export function verifyUserRecord(record: UserRecord, publishedRoot?: string): string[] {
  const problems = verifyChain(record.user_id, record.entries as ChainEntry[], record.bets);
  const p = record.proof;
  if (p) {
    const entry = record.entries.find((e) => e.seq === p.leaf.seq);
    if (!entry || entry.hash !== p.leaf.hash) problems.push(`the published head (entry ${p.leaf.seq}) is not in the chain as exported`);
    if (p.leaf.user_id !== record.user_id) problems.push('the proof is for another user');
    const root = rootFromProof(leafHash(p.leaf), p.leaf_index, p.tree_size, p.path);
    if (root !== p.root) problems.push(`the proof does not lead to the root of ${p.date}`);
    if (publishedRoot !== undefined && publishedRoot !== p.root) problems.push(`the root of ${p.date} differs from the published one`);
  }
  return problems;
}
