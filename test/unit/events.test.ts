// The event mechanism (src/services/events.ts) without a database or Fastify:
// handlers inside the transaction run in the order registered and a failure
// reaches the caller (who rolls back); after-commit handlers wait for the
// commit, and only the emitted event's own handlers run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/database.js';
import type { BetRow } from '../../src/db/tables.js';
import { Events } from '../../src/services/events.js';

/** A stand-in for the database's onCommit: the work waits until commit() is called. */
function fakeDatabase() {
  const waiting: Array<() => void> = [];
  return {
    onCommit: (work: () => void) => void waiting.push(work),
    commit: () => {
      for (const work of waiting.splice(0)) work();
    },
  };
}

const trx = {} as Db;
const bet = { id: 7, user_id: 3 } as BetRow;

test('in-transaction handlers run in order with the transaction; after-commit ones only once it commits', async () => {
  const database = fakeDatabase();
  const events = new Events(database);
  const seen: string[] = [];
  events.inTransaction('betChanged', async (t, e) => void seen.push(`first ${e.kind} ${t === trx}`));
  events.inTransaction('betChanged', async (_t, e) => void seen.push(`second ${e.bet.id}`));
  events.afterCommit('betChanged', (e) => void seen.push(`committed ${e.bet.user_id}`));
  events.afterCommit('leagueChanged', () => void seen.push('league'));

  await events.emit(trx, 'betChanged', { kind: 'closed', bet, at: 0 });
  assert.deepEqual(seen, ['first closed true', 'second 7']);
  database.commit();
  assert.deepEqual(seen, ['first closed true', 'second 7', 'committed 3']);
});

test('a failing in-transaction handler stops the rest and rejects the emit; nothing waits for a commit', async () => {
  const database = fakeDatabase();
  const events = new Events(database);
  const seen: string[] = [];
  events.inTransaction('accountDeleted', async () => {
    throw new Error('handler failed');
  });
  events.inTransaction('accountDeleted', async () => void seen.push('after the failure'));
  events.afterCommit('accountDeleted', () => void seen.push('committed'));

  await assert.rejects(events.emit(trx, 'accountDeleted', { userId: 1 }), /handler failed/);
  database.commit();
  assert.deepEqual(seen, []);
});

test('an event without after-commit handlers asks nothing of the database', async () => {
  let asked = 0;
  const events = new Events({ onCommit: () => void asked++ });
  await events.emit(trx, 'leagueChanged', { leagueId: 1 });
  assert.equal(asked, 0);
});
