// A bet's thesis (issue 38, docs/theses.md): what may be written, how it is
// committed in the record, and who may read it. Pure rules; the service
// (src/services/theses.ts) applies them.
import { createHash, randomBytes } from 'node:crypto';
import { thesisPreimage } from './record-encoding.js';

export const THESIS_MAX_CHARS = 280;

/**
 * Characters a plain-text thesis may not hold: C0 and C1 controls (newlines
 * included: a thesis is one paragraph), and every Unicode bidi control
 * (embeddings, overrides, isolates and the implicit marks) and the Unicode
 * line and paragraph separators, which can make
 * text read differently from what it is (CVE-2021-42574's "Trojan source").
 */
function forbidden(cp: number): boolean {
  return (
    cp <= 0x1f ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x061c ||
    cp === 0x200e ||
    cp === 0x200f ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069)
  );
}

/** The first forbidden character's code point, or undefined. */
function firstForbidden(text: string): number | undefined {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (forbidden(cp)) return cp;
  }
  return undefined;
}

/** Counted in code points, as a reader counts characters (an emoji is one, not two UTF-16 units). */
export const thesisLength = (text: string): number => [...text].length;

/**
 * The problem with a thesis as given, or null when it may be stored. Blank
 * (only whitespace) is refused rather than stored as an empty thesis; the
 * text is otherwise kept exactly as written (no trimming: the hash commits to
 * the bytes the reader is shown).
 */
export function thesisProblem(text: string): string | null {
  if (text.trim() === '') return 'thesis must not be blank; leave it out for a bet without one';
  if (thesisLength(text) > THESIS_MAX_CHARS) return `thesis must be at most ${THESIS_MAX_CHARS} characters`;
  const bad = firstForbidden(text);
  if (bad !== undefined) {
    const code = bad.toString(16).toUpperCase().padStart(4, '0');
    return `thesis must be plain text: control and text-direction characters (such as U+${code}) are not allowed`;
  }
  return null;
}

/** A fresh salt: 16 random bytes as hex, so a short thesis cannot be found by hashing guesses. */
export const newThesisSalt = (): string => randomBytes(16).toString('hex');

/** The record's thesis_hash: SHA-256 (hex) of the salt, a newline and the text (thesisPreimage, shared with the browser). */
export const thesisHash = (salt: string, text: string): string => createHash('sha256').update(thesisPreimage(salt, text)).digest('hex');

/** A thesis as stored. */
export interface StoredThesis {
  user_id: number;
  hidden_at: number | null;
  counted_reports: number;
}

/** shown; hidden by its owner (served to no one); reported: withheld from others after enough counted reports. */
export type ThesisState = 'shown' | 'hidden' | 'reported';

export function thesisState(t: Pick<StoredThesis, 'hidden_at' | 'counted_reports'>, reportsToWithhold: number): ThesisState {
  if (t.hidden_at !== null) return 'hidden';
  return t.counted_reports >= reportsToWithhold ? 'reported' : 'shown';
}

/** Whether the text is served to `viewerId` (null: a visitor): never once hidden; a reported one to its owner only. */
export function thesisServedTo(t: StoredThesis, viewerId: number | null, reportsToWithhold: number): boolean {
  const state = thesisState(t, reportsToWithhold);
  return state === 'shown' || (state === 'reported' && viewerId === t.user_id);
}

/** What a reporter's account must have for the report to count: a verified email and at least one ranked bet. */
export interface Reporter {
  emailVerified: boolean;
  rankedBets: number;
}

/** Fresh or farmed accounts cannot withhold anyone's words: only established ones' reports count. */
export const reportCounts = (r: Reporter): boolean => r.emailVerified && r.rankedBets >= 1;
