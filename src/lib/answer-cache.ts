// Hot read-only answers, kept serialized for a short while and shared by
// every caller with the same key: one load per key and period however many
// ask. An answer names the users whose changes alter it; invalidate(user)
// drops those at once, clear() drops everything. An answer whose users
// changed while it was being loaded is handed to the callers waiting for it
// but not kept, so no answer older than a change is served after it.
// Bounded by total size, oldest dropped first.
import { FreshValue } from './fresh-value.js';

export interface LoadedAnswer {
  json: string;
  /** Users the answer depends on beyond those known before loading (a feed's followed users). */
  deps?: readonly number[];
}

interface Entry {
  fresh: FreshValue<Buffer>;
  deps: Set<number>;
  bytes: number;
}

/** Past this many remembered invalidations the memory of them is reset (and loads then running are not kept). */
const MAX_REMEMBERED = 100_000;

export class AnswerCache {
  private entries = new Map<string, Entry>();
  private byDep = new Map<number, Set<string>>();
  private bytes = 0;
  private seq = 0;
  /** Loads started before this sequence number are not kept. */
  private floor = 0;
  private readonly invalidatedAt = new Map<number, number>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxBytes = 16 * 1024 * 1024,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<LoadedAnswer>, knownDeps: readonly number[] = []): Promise<Buffer> {
    const existing = this.entries.get(key);
    if (existing) return existing.fresh.get();
    // Failed loads keep no bytes, so the count is bounded too (requests for ids that do not exist).
    if (this.entries.size >= this.maxEntries) this.drop(this.entries.keys().next().value!);
    const entry: Entry = { deps: new Set(), bytes: 0, fresh: new FreshValue(() => this.loadInto(key, entry, load), this.maxAgeMs) };
    this.entries.set(key, entry);
    this.index(key, entry, knownDeps);
    return entry.fresh.get();
  }

  /** The answer's bytes when the cache holds a fresh one for key; never loads. */
  peek(key: string): Buffer | undefined {
    return this.entries.get(key)?.fresh.peek();
  }

  /** Drops every answer that depends on this user. */
  invalidate(dep: number): void {
    this.seq++;
    if (this.invalidatedAt.size >= MAX_REMEMBERED) {
      this.invalidatedAt.clear();
      this.floor = this.seq;
    }
    this.invalidatedAt.set(dep, this.seq);
    const keys = this.byDep.get(dep);
    if (keys) for (const key of [...keys]) this.drop(key);
  }

  clear(): void {
    this.seq++;
    this.floor = this.seq;
    this.invalidatedAt.clear();
    this.entries = new Map();
    this.byDep = new Map();
    this.bytes = 0;
  }

  /** Total size of the kept answers (bytes). */
  get size(): number {
    return this.bytes;
  }

  private async loadInto(key: string, entry: Entry, load: () => Promise<LoadedAnswer>): Promise<Buffer> {
    const started = this.seq;
    const { json, deps = [] } = await load();
    // Kept encoded: each answer then goes out without re-encoding or measuring the text.
    const body = Buffer.from(json, 'utf8');
    if (this.entries.get(key) !== entry) return body;
    const changed = started < this.floor || [...entry.deps, ...deps].some((d) => (this.invalidatedAt.get(d) ?? 0) > started);
    if (changed) {
      this.drop(key);
      return body;
    }
    this.index(key, entry, deps);
    this.bytes += body.length - entry.bytes;
    entry.bytes = body.length;
    // Oldest first; the answer just made stays even when alone over the bound.
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      if (oldest !== key) this.drop(oldest);
    }
    return body;
  }

  private index(key: string, entry: Entry, deps: readonly number[]): void {
    for (const d of deps) {
      entry.deps.add(d);
      let keys = this.byDep.get(d);
      if (!keys) this.byDep.set(d, (keys = new Set()));
      keys.add(key);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    for (const d of entry.deps) {
      const keys = this.byDep.get(d);
      keys?.delete(key);
      if (keys?.size === 0) this.byDep.delete(d);
    }
  }
}
