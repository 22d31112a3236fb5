// The service's context without HTTP (createContext), on an isolated test
// database with a fake clock: for tests of services and jobs that need no
// request, which the fast tier runs.
import { type Config, testConfig } from '../../src/config.js';
import type { AppContext, AppDeps } from '../../src/context.js';
import { createContext } from '../../src/create-context.js';
import type { Dialect } from '../../src/db/database.js';
import { FakeClock } from '../../src/lib/clock.js';
import { openTestDatabase, type TestDatabase } from './db.js';
import { FakePriceProvider } from './prices.js';

export interface TestContext {
  ctx: AppContext;
  clock: FakeClock;
  prices: FakePriceProvider;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface TestContextOptions {
  config?: Partial<Config>;
  deps?: Omit<AppDeps, 'database' | 'clock' | 'prices' | 'logger' | 'webDistDir'>;
  prices?: FakePriceProvider;
  clock?: FakeClock;
}

export async function createTestContext(dialect: Dialect, opts: TestContextOptions = {}): Promise<TestContext> {
  const database = await openTestDatabase(dialect, { migrated: true });
  const clock = opts.clock ?? new FakeClock();
  const prices = opts.prices ?? new FakePriceProvider();
  prices.followClock(clock);
  try {
    const ctx = await createContext(testConfig(opts.config), { ...opts.deps, database, clock, prices });
    return {
      ctx,
      clock,
      prices,
      database,
      close: async () => {
        await ctx.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
