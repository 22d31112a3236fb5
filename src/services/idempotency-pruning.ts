// When an instance last deleted expired idempotency keys (src/services/idempotency.ts):
// state of one app, so it lives on the context, never in module scope.

/** Expired rows are deleted at most this often per process, by the claim that finds it due. */
const PRUNE_EVERY_MS = 60_000;

export class IdempotencyPruning {
  private last = Number.NEGATIVE_INFINITY;

  /** True (and noted) when a prune is due at `now`. */
  due(now: number): boolean {
    if (now - this.last < PRUNE_EVERY_MS) return false;
    this.last = now;
    return true;
  }

  /** The prune just made was a full slice: the next claim prunes again. */
  again(): void {
    this.last = Number.NEGATIVE_INFINITY;
  }
}
