// Hot read-only answers shared by every caller for a short while: one load per
// key and period however many ask, the JSON made once per load. clear() drops
// everything at once (a change that affects the answers); loads already
// running then fill only the dropped entries, never the new ones.
import { FreshValue } from './fresh-value.js';

export interface CachedAnswer<T> {
  value: T;
  /** The serialized form, filled by the first caller that needs it. */
  json: string | null;
}

export class AnswerCache<T> {
  private entries = new Map<string, FreshValue<CachedAnswer<T>>>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries = 100,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<CachedAnswer<T>> {
    let entry = this.entries.get(key);
    if (!entry) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      entry = new FreshValue(async () => ({ value: await load(), json: null }), this.maxAgeMs);
      this.entries.set(key, entry);
    }
    return entry.get();
  }

  clear(): void {
    this.entries = new Map();
  }
}
