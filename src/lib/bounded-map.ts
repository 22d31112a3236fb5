// The in-memory caches (sessions, verified tokens, recent open bets, record
// chain heads, slow-changing price answers, prepared statements) each keep at
// most a fixed number of entries. They share this one eviction rule: setting
// a key counts it as the newest, and a new key past the bound drops the
// oldest (a Map iterates in insertion order, so the oldest is the first key).

export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`a BoundedMap holds at least one entry (got ${max})`);
  }

  /** Sets key as the newest entry, dropping the oldest when a new key would pass the bound. */
  override set(key: K, value: V): this {
    if (!super.delete(key) && this.size >= this.max) super.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}
