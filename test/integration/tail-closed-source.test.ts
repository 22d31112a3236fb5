// A tail or fade of a bet closed after the caller looked at it is refused
// inside the opening transaction, not only by the earlier check.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openBet } from '../../src/services/bets.js';
import { AppError } from '../../src/errors.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

forEachDialect('tail of a bet closed meanwhile', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices: new FakePriceProvider() } });
  });
  after(() => t.close());

  test('openBet with a source that is no longer OPEN → 400, nothing opened', async () => {
    const leader = await registerAndLogin(t.app);
    const follower = await registerAndLogin(t.app);
    const opened = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      headers: { cookie: leader.cookie },
      payload: { ticker: 'AAPL', direction: 'LONG' },
    });
    const betId = opened.json().bet_id as number;
    const closed = await t.app.inject({ method: 'POST', url: '/bet/close', headers: { cookie: leader.cookie }, payload: { bet_id: betId } });
    assert.equal(closed.statusCode, 200);
    await assert.rejects(
      openBet(t.ctx, follower.id, { ticker: 'AAPL', direction: 'LONG' }, { betId, kind: 'tail' }),
      (err: unknown) => err instanceof AppError && err.statusCode === 400,
    );
    const rows = await t.ctx.db.selectFrom('bets').select('id').where('user_id', '=', follower.id).execute();
    assert.equal(rows.length, 0);
  });
});
