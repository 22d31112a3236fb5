// The parts of the verifiable record's format that need no hashing library:
// shared by the server (node:crypto, src/domain/record.ts) and the web app
// (WebCrypto, web/src/lib/record-proof.ts), so both encode the same bytes.
// The one module of src/ the web app may import, and it imports nothing, so
// the browser bundle takes it as it is (both rules in .dependency-cruiser.cjs).

/** JSON with keys sorted at every level and no whitespace: one byte string per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  // Loops rather than map/filter/join: every bet event is encoded on the write path.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (canonicalJson(value[i]) ?? '');
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let out = '{';
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/**
 * Fields entries gained after the record's first format (docs/record.md):
 * absent on older entries, and a null one is left out of the encoding, so an
 * absent field and a null hash alike. Fields of the first format keep their
 * nulls (exit_price, percentage_gain, target_date): old entries' bytes are
 * unchanged, and no version marker is needed.
 */
export const OPTIONAL_EVENT_FIELDS = ['event_at', 'committed_price', 'benchmark_committed', 'close_reason', 'thesis_hash', 'ranked_gain'] as const;

/** The bytes an entry's event is stored and hashed as: its canonical JSON, the optional fields that are null left out. */
export function eventJson(event: object): string {
  const source = event as Record<string, unknown>;
  let out = source;
  for (const k of OPTIONAL_EVENT_FIELDS) {
    if (source[k] !== null) continue;
    if (out === source) out = { ...source };
    out[k] = undefined; // canonicalJson leaves undefined out
  }
  return canonicalJson(out);
}

/**
 * Fields of a bet row checked against its latest entry beside the first
 * format's (the ranked boards read them), when that entry is of the new
 * format (it has event_at): an entry of the first format says nothing of
 * them. Absent and null compare equal. Returns the fields that differ.
 */
export const RANKING_BET_FIELDS = ['committed_price', 'benchmark_committed', 'ranked_gain'] as const;

export function rankingFieldMismatches(bet: object, event: object): Array<(typeof RANKING_BET_FIELDS)[number]> {
  const b = bet as Record<string, unknown>;
  const e = event as Record<string, unknown>;
  if (e.event_at === undefined || e.event_at === null) return [];
  return RANKING_BET_FIELDS.filter((k) => (b[k] ?? null) !== (e[k] ?? null));
}

/**
 * The walk of RFC 9162 §2.1.3.2 from leaf `index` of a tree of `size` leaves
 * to its root: for each hash of an audit path of `pathLength`, true when that
 * hash is the left sibling (node = H(sibling, r)), false when it is the right
 * one (node = H(r, sibling)). Null when such a path cannot fit the index and size.
 */
export function proofSides(index: number, size: number, pathLength: number): boolean[] | null {
  if (index >= size) return null;
  let fn = index;
  let sn = size - 1;
  const sides: boolean[] = [];
  for (let i = 0; i < pathLength; i++) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      sides.push(true);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else sides.push(false);
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? sides : null;
}

/**
 * The bytes a thesis_hash is the SHA-256 of: the bet's salt (32 hex
 * characters), a newline, and the thesis text as UTF-8. The salt is random
 * per bet, so a short thesis cannot be recovered from its hash by guessing.
 */
export const thesisPreimage = (salt: string, text: string): string => `${salt}\n${text}`;
