import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BetRow } from '../../src/db/tables.js';
import { BetEvents } from '../../src/services/bet-events.js';
import { RecentOpenBets } from '../../src/services/open-bets.js';

const bet = (id: number): BetRow => ({ id, user_id: 1, ticker: 'AAPL', direction: 'LONG', status: 'OPEN', entry_price: 100 }) as BetRow;

test('recent open bets: bounded, the oldest opening forgotten first', () => {
  const memo = new RecentOpenBets(2);
  memo.add(bet(1));
  memo.add(bet(2));
  memo.add(bet(3));
  assert.equal(memo.size, 2);
  assert.equal(memo.get(1), undefined);
  assert.equal(memo.get(3)?.id, 3);
  memo.forget(3);
  assert.equal(memo.get(3), undefined);
});

test('recent open bets: remembered when an opening commits, forgotten when any end commits, never before', async () => {
  const memo = new RecentOpenBets();
  const events = new BetEvents();
  memo.follow(events);
  // Outside withTransaction afterCommit runs at once, as after a commit.
  await events.emit({} as never, { kind: 'opened', bet: bet(7), at: 0 });
  assert.equal(memo.get(7)?.id, 7);
  for (const kind of ['closed', 'cancelled', 'settled'] as const) {
    memo.add(bet(7));
    await events.emit({} as never, { kind, bet: { ...bet(7), status: kind === 'cancelled' ? 'CANCELLED' : 'CLOSED' }, at: 0 });
    assert.equal(memo.get(7), undefined, kind);
  }
});
