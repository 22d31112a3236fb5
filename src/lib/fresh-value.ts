// A value that is expensive to get and may be a little old: reused for maxAgeMs
// (monotonic time), refreshed by one load that concurrent callers share.
export class FreshValue<T> {
  private value: { v: T; at: number } | null = null;
  private loading: Promise<T> | null = null;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private held(): { v: T } | null {
    return this.value && this.now() - this.value.at < this.maxAgeMs ? this.value : null;
  }

  /** The value when one is held and still fresh; never loads. */
  peek(): T | undefined {
    return this.held()?.v;
  }

  get(): Promise<T> {
    const held = this.held();
    if (held) return Promise.resolve(held.v);
    if (!this.loading) {
      const started = this.now();
      this.loading = this.load()
        .then((v) => {
          this.value = { v, at: started };
          return v;
        })
        .finally(() => {
          this.loading = null;
        });
    }
    return this.loading;
  }
}
