/** The source of "now" for every rule that depends on time; tests inject a fake. */
export interface Clock {
  now(): number; // epoch milliseconds
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  constructor(private t: number = Date.parse('2026-03-02T15:00:00Z')) {}
  now(): number {
    return this.t;
  }
  set(t: number | string | Date): void {
    this.t = typeof t === 'number' ? t : new Date(t).getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
