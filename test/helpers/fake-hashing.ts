// A stand-in for argon2 whose every hash and verification can be held until
// the test lets it finish: floods pile up in the password queue exactly as
// the test arranges, and what is asserted is counts and statuses, never time.
import type { PasswordHashing } from '../../src/services/passwords.js';

export class GatedHashing implements PasswordHashing {
  private readonly pending: Array<() => void> = [];
  private held = false;
  /** Hashes and verifications begun so far (held or not). */
  started = 0;

  /** From now on, work waits until release(). */
  hold(): void {
    this.held = true;
  }

  /** Lets everything held finish, and what comes later run at once. */
  release(): void {
    this.held = false;
    for (const finish of this.pending.splice(0)) finish();
  }

  /** Work begun and held now. */
  get inFlight(): number {
    return this.pending.length;
  }

  async hash(password: string): Promise<string> {
    await this.gate();
    return `fake$${password}`;
  }

  async verify(hash: string, password: string): Promise<boolean> {
    await this.gate();
    return hash === `fake$${password}`;
  }

  needsRehash(hash: string): boolean {
    return !hash.startsWith('fake$');
  }

  private async gate(): Promise<void> {
    this.started++;
    if (this.held) await new Promise<void>((resolve) => this.pending.push(resolve));
  }
}

/** Resolves once check() holds, looking again after each turn of the event loop (no clock involved). */
export async function settled(what: string, check: () => boolean, turns = 100_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`${what}: not reached`);
}
