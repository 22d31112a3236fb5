// GET /bet/{bet_id} reads the bet, its owner and its thesis in one statement
// (src/repositories/bet-pages.ts): one round trip on PostgreSQL. The answer
// is the same as the three reads gave: the owner's name, the thesis as others
// see it, and 404 once the owner's account is deleted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { findBetPage } from '../../src/repositories/bet-pages.js';
import { findThesis } from '../../src/repositories/theses.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

forEachDialect('a bet page in one statement', (dialect) => {
  let t: TestApp;
  let log: string[] | null = null;
  before(async () => {
    t = await createTestApp(dialect, { onQuery: (s) => log?.push(s) });
  });
  after(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, u?: TestUser, payload?: object) =>
    t.app.inject({ method, url, headers: u ? { cookie: u.cookie } : {}, ...(payload ? { payload } : {}) });

  async function open(u: TestUser, body: object): Promise<number> {
    const res = await call('POST', '/bet/open', u, body);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }

  /** The page as a visitor gets it, and the statements (and PostgreSQL round trips) it took. */
  async function page(id: number) {
    const statements: string[] = [];
    const tripsBefore = t.ctx.database.pgRoundTrips;
    log = statements;
    try {
      const res = await call('GET', `/bet/${id}`);
      const tripsAfter = t.ctx.database.pgRoundTrips;
      return { res, statements, trips: tripsBefore === null || tripsAfter === null ? null : tripsAfter - tripsBefore };
    } finally {
      log = null;
    }
  }

  test('one statement (one round trip on PostgreSQL) for a bet with a thesis, one without, and no bet', async () => {
    const u = await registerAndLogin(t.app, 'page');
    const withThesis = await open(u, { ticker: 'AAPL', direction: 'LONG', thesis: 'earnings beat' });
    // A closed bet: no quote is read for it, so the count is the database's alone.
    assert.equal((await call('POST', '/bet/close', u, { bet_id: withThesis })).statusCode, 200);
    const plain = await open(u, { ticker: 'MSFT', direction: 'SHORT' });
    assert.equal((await call('POST', '/bet/close', u, { bet_id: plain })).statusCode, 200);

    const a = await page(withThesis);
    assert.equal(a.res.statusCode, 200, a.res.body);
    assert.equal(a.statements.length, 1, a.statements.join('\n'));
    if (dialect === 'postgres') assert.equal(a.trips, 1);
    const body = a.res.json();
    assert.deepEqual(body.user, { id: u.id, username: u.username });
    assert.equal(body.thesis, 'earnings beat');
    assert.equal(body.thesis_state, 'shown');
    const stored = await findThesis(t.ctx.db, withThesis);
    assert.equal(body.thesis_salt, stored?.salt);

    const b = await page(plain);
    assert.equal(b.res.statusCode, 200);
    assert.equal(b.statements.length, 1);
    assert.equal('thesis_state' in b.res.json(), false, 'a bet without a thesis carries no thesis fields');

    const none = await page(99_999_999);
    assert.equal(none.res.statusCode, 404);
    assert.deepEqual(Object.keys(none.res.json()), ['error']);
    assert.equal(none.statements.length, 1);
  });

  test('the thesis row read with the bet is the stored one; a hidden thesis is withheld from visitors', async () => {
    const u = await registerAndLogin(t.app, 'page');
    const id = await open(u, { ticker: 'AAPL', direction: 'LONG', thesis: 'a cheap quarter' });
    assert.equal((await call('POST', `/bet/${id}/thesis/hide`, u)).statusCode, 200);
    const rows = await findBetPage(t.ctx.db, id);
    assert.deepEqual(rows?.thesis, await findThesis(t.ctx.db, id));
    assert.equal(rows?.owner.username, u.username);
    assert.equal(rows?.bet.id, id);
    assert.equal(rows?.bet.status, 'OPEN');
    const body = (await page(id)).res.json();
    assert.deepEqual([body.thesis, body.thesis_salt, body.thesis_state], [null, null, 'hidden']);
    assert.equal(await findBetPage(t.ctx.db, -1), undefined, 'not an id: no query');
  });

  test("a deleted owner's bet has no page", async () => {
    const u = await registerAndLogin(t.app, 'page');
    const id = await open(u, { ticker: 'AAPL', direction: 'LONG', thesis: 'gone soon' });
    assert.equal((await call('GET', `/bet/${id}`)).statusCode, 200);
    assert.equal((await call('DELETE', '/me', u, { password: PASSWORD })).statusCode, 200);
    const res = await call('GET', `/bet/${id}`);
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { error: 'Bet not found' });
  });
});
