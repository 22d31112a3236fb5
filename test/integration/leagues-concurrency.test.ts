// Parallel joins at a league's member limit admit exactly the limit: the
// league's row lock (PostgreSQL) or the immediate transaction (SQLite) makes
// each join count the members after the one before it committed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { leagueApi } from '../helpers/leagues.js';

forEachDialect('leagues: parallel joins', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { leagueLimit: 3 } });
  });
  after(() => t.close());
  const { call, create } = leagueApi(() => t);

  test('20 parallel joins of a league with room for 7 more admit exactly 7; the others get 409', async () => {
    const owner = await registerAndLogin(t.app, 'cc');
    const league = await create(owner, { member_limit: 8 });
    const joiners = await Promise.all(Array.from({ length: 20 }, () => registerAndLogin(t.app, 'cj')));
    const answers = await Promise.all(joiners.map((u) => call(u, 'POST', '/leagues/join', { code: league.invite_code })));
    const codes = answers.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 7, codes.join(','));
    assert.equal(codes.filter((c) => c === 409).length, 13, codes.join(','));
    for (const r of answers.filter((a) => a.statusCode === 409)) assert.match(r.json().error, /full/);
    const page = (await call(owner, 'GET', `/leagues/${league.id}`)).json();
    assert.equal(page.member_count, 8);
    assert.equal(page.members.length, 8);
  });

  test("one user's parallel joins of several leagues stop at the league limit", async () => {
    const u = await registerAndLogin(t.app, 'cu');
    const owners = [await registerAndLogin(t.app, 'co'), await registerAndLogin(t.app, 'co')];
    const limit = t.ctx.config.leagueLimit;
    const leagues = [];
    for (const owner of owners) for (let i = 0; i < limit; i++) leagues.push(await create(owner, { visibility: 'public' }));
    const answers = await Promise.all(leagues.map((l) => call(u, 'POST', `/leagues/${l.id}/join`)));
    const codes = answers.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, limit, codes.join(','));
    assert.equal(codes.filter((c) => c === 403).length, leagues.length - limit, codes.join(','));
  });
});
