// Whether an outside service (price provider, chat transport) is failing now,
// judged by the outcome of our own recent calls to it: no probing traffic.
export const FAILING_FOR_MS = 60_000;

export class ProviderStatus {
  private lastFailureAt: number | null = null;

  constructor(readonly name: string) {}

  succeeded(): void {
    this.lastFailureAt = null;
  }

  failed(now: number): void {
    this.lastFailureAt = now;
  }

  /** True when the latest call failed, less than FAILING_FOR_MS ago. */
  failing(now: number): boolean {
    return this.lastFailureAt !== null && now - this.lastFailureAt < FAILING_FOR_MS;
  }
}
