// The service built in the test's own process (buildApp) and listening on a
// free port, for browser tests that need an injected clock: the web app is
// served from web/dist as by the real server.
import type { FastifyInstance } from 'fastify';
import { freePort } from '../../bench/lib/server.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { FakeClock } from '../../src/lib/clock.js';
import { openTestDatabase, type TestDatabase } from '../helpers/db.js';
import { ensureWebBuilt } from './harness.js';

export interface InProcessServer {
  app: FastifyInstance;
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startInProcessServer(clock: FakeClock): Promise<InProcessServer> {
  await ensureWebBuilt();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const database: TestDatabase = await openTestDatabase('sqlite', { migrated: true });
  const config = loadConfig({
    NODE_ENV: 'development',
    PUBLIC_URL: baseUrl,
    DATABASE_URL: 'sqlite::memory:',
    RATE_LIMITS: 'off',
    // Background work is run by the tests themselves, at the clock they set.
    WORKERS: 'off',
    MARKET_SEED: 'test-market-seed-not-a-secret-0123456789',
    LOG_LEVEL: 'warn',
  });
  // Development's local mailbox would be ./data/ of the checkout; these suites read no mail.
  config.mailbox = null;
  let app: FastifyInstance;
  try {
    app = await buildApp(config, { logger: false, database, clock });
    await app.listen({ host: '127.0.0.1', port });
  } catch (err) {
    await database.close();
    throw err;
  }
  return {
    app,
    baseUrl,
    stop: async () => {
      await app.close();
      await database.close();
    },
  };
}
