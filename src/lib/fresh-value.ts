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

  get(): Promise<T> {
    if (this.value && this.now() - this.value.at < this.maxAgeMs) return Promise.resolve(this.value.v);
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
