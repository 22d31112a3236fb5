// Password hashing with argon2id. Hashes run on libuv's thread pool, never on
// the event loop; the semaphore bounds how many run at once so a burst of
// logins cannot starve other work of threads and memory.
import argon2 from 'argon2';
import { Semaphore } from '../lib/semaphore.js';

// OWASP's minimum for argon2id: 19 MiB, 2 iterations, 1 lane.
const OPTIONS = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export class PasswordHasher {
  private readonly gate: Semaphore;
  private dummy: Promise<string> | null = null;

  constructor(concurrency: number) {
    this.gate = new Semaphore(concurrency);
  }

  hash(password: string): Promise<string> {
    return this.gate.run(() => argon2.hash(password, OPTIONS));
  }

  async verify(hash: string, password: string): Promise<boolean> {
    return this.gate.run(async () => {
      try {
        return await argon2.verify(hash, password);
      } catch {
        return false;
      }
    });
  }

  /** Spends the same time as a real verification, for an email with no account, so timing does not reveal which emails exist. */
  async verifyDummy(password: string): Promise<false> {
    this.dummy ??= argon2.hash('dummy password for timing equalisation', OPTIONS);
    await this.verify(await this.dummy, password);
    return false;
  }
}
