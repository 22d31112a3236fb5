// better-sqlite3 runs every statement synchronously, and the awaits between
// Kysely statements resolve as microtasks: a loop of statements never lets a
// request, a timer or I/O in. Work over many rows awaits this between slices.

/** Resolves on the event loop's next turn, after the I/O and timers that are due. */
export function yieldToLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
