// The bet lifecycle's service on a context without HTTP (createContext): what
// an opening, a close and a cancel write, and the handlers their events run
// in the same transaction (the leaderboard aggregate, the verifiable record),
// with the fake clock and the fake price provider.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { findBetById } from '../../src/repositories/bets.js';
import { cancelBet, closeBet, openBet, portfolio } from '../../src/services/bets.js';
import { windowedLeaderboard } from '../../src/services/rankings.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { forEachDialect } from '../helpers/db.js';
import { insertTestUser } from '../helpers/users.js';
import { uniqueName } from '../helpers/app.js';

const MINUTE = 60_000;

/** The status and error a rejected service call carries (what the HTTP layer answers). */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return `${err.statusCode} ${err.body.error}`;
  }
  assert.fail('the call succeeded');
}

forEachDialect('the bet service on a context without HTTP', (dialect) => {
  let t: TestContext;
  before(async () => {
    t = await createTestContext(dialect, { config: { capacities: { baseBets: 2, baseFollows: 5 } } });
  });
  after(() => t.close());

  test('an opening at the provider’s price, a close at the next one: gain, leaderboard and record in one transaction', async () => {
    const userId = await insertTestUser(t.ctx, uniqueName('svc'));
    t.prices.set('AAPL', 100);
    const opened = await openBet(t.ctx, userId, { ticker: 'AAPL', direction: 'LONG' });
    assert.equal(opened.entry_price, 100);
    assert.deepEqual(
      (await portfolio(t.ctx, userId)).map((b) => b.id),
      [opened.bet_id],
    );

    t.clock.advance(10 * MINUTE);
    t.prices.set('AAPL', 110);
    const closed = await closeBet(t.ctx, userId, opened.bet_id);
    assert.equal(closed.exit_price, 110);
    assert.equal(closed.gain_percent, 10);

    const row = await findBetById(t.ctx.db, opened.bet_id);
    assert.equal(row?.status, 'CLOSED');
    const board = await windowedLeaderboard(t.ctx, {});
    const mine = board.find((u) => u.id === userId);
    assert.deepEqual({ score: mine?.total_score, trades: mine?.total_trades }, { score: 10, trades: 1 });
    // Closed past its cancel window: its committed price is recorded first, in the close's transaction.
    const entries = await t.ctx.db.selectFrom('record_entries').select('kind').where('user_id', '=', userId).orderBy('seq').execute();
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['opened', 'committed', 'closed'],
    );
  });

  test('the plan’s capacity, the cancel window and another user’s bet are refused with their codes, and change nothing', async () => {
    const userId = await insertTestUser(t.ctx, uniqueName('svc'));
    const other = await insertTestUser(t.ctx, uniqueName('svc'));
    const first = await openBet(t.ctx, userId, { ticker: 'MSFT', direction: 'SHORT' });
    await openBet(t.ctx, userId, { ticker: 'SPY', direction: 'LONG' });
    assert.equal(await codeOf(openBet(t.ctx, userId, { ticker: 'AAPL', direction: 'LONG' })), '403 LIMIT_REACHED');
    assert.equal(await codeOf(cancelBet(t.ctx, other, first.bet_id)), '404 Bet not found');

    t.clock.advance(4 * MINUTE + 59_000);
    assert.deepEqual(await cancelBet(t.ctx, userId, first.bet_id), { message: 'Cancelled SHORT MSFT', bet_id: first.bet_id });
    const second = await openBet(t.ctx, userId, { ticker: 'AAPL', direction: 'LONG' });
    t.clock.advance(5 * MINUTE + 1);
    assert.equal(await codeOf(cancelBet(t.ctx, userId, second.bet_id)), '403 CANCEL_WINDOW_EXPIRED');
    assert.equal((await findBetById(t.ctx.db, second.bet_id))?.status, 'OPEN');
    assert.equal((await portfolio(t.ctx, userId)).length, 2);
  });
});
