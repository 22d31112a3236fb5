// The real entry point in production: without a choice for each outside
// service it exits before listening and says what is missing; with the
// simulated ones stated it serves (the rules: test/unit/production-choices.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../helpers/server-process.js';

const PRODUCTION = { NODE_ENV: 'production', DATABASE_URL: 'sqlite::memory:', WORKERS: 'off' };

test('production with no outside service chosen exits with code 2 naming each missing choice', async () => {
  const server = startServer(PRODUCTION);
  try {
    await assert.rejects(server.ready, /code 2\b.*MAIL_TRANSPORT.*PAYMENTS.*CHAT_TRANSPORT.*PRICE_PROVIDER/s);
    assert.equal((await server.exited).code, 2);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
  }
});

test('production with the simulated choices stated starts and answers', async () => {
  const server = startServer({ ...PRODUCTION, MAIL_TRANSPORT: 'log', PAYMENTS: 'local', CHAT_TRANSPORT: 'log', PRICE_PROVIDER: 'simulated' });
  try {
    const base = await server.ready;
    assert.equal((await fetch(`${base}/`)).status, 200);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
