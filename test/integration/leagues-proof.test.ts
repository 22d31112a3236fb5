// A finished league's final board in the verifiable record: settled by the
// league worker at the end, its hash a leaf of the next day's Merkle root
// (published with the injected clock, not by waiting a day), GET
// /leagues/{id}/proof checked by `npm run verify-log` from a URL and from a
// file, and a tampered proof refused.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { verifyLeagueProof } from '../../src/domain/league-record.js';
import { verifyUserRecord } from '../../src/domain/verify-record.js';
import { publishYesterday } from '../../src/services/record.js';
import { runLeagueSteps } from '../../src/services/league-notices.js';
import type { LeagueProof } from '../../src/schemas/leagues.js';
import type { UserRecord } from '../../src/schemas/record.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { DAY, leagueApi } from '../helpers/leagues.js';
import { FakePriceProvider } from '../helpers/prices.js';

forEachDialect('leagues: the proof of a final board', (dialect) => {
  let t: TestApp;
  let base = '';
  const prices = new FakePriceProvider();
  before(async () => {
    t = await createTestApp(dialect, { deps: { prices } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(() => t.close());
  const { call, create, join, open, close, board } = leagueApi(() => t, { scoringVersion: 1 });
  const setPrice = (ticker: string, price: number) => {
    prices.set(ticker, price);
    t.clock.advance(10_000);
  };
  // Asynchronous: the command fetches from this process's server, which must keep answering meanwhile.
  const verifyLog = async (...args: string[]) =>
    (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/verify-log.ts', ...args], { encoding: 'utf8' })).stdout;

  test('settled at the end, published in the next root, verified by npm run verify-log; a tampered proof fails', async () => {
    const owner = await registerAndLogin(t.app, 'po');
    const a = await registerAndLogin(t.app, 'pa');
    const idle = await registerAndLogin(t.app, 'pi');
    const league = await create(owner, { visibility: 'public', ends_at: new Date(t.clock.now() + 2 * DAY).toISOString() });
    await join(a, league.invite_code);
    await join(idle, league.invite_code);
    t.clock.set(Date.parse(league.starts_at) + 60_000);
    setPrice('AAPL', 100);
    setPrice('MSFT', 400);
    const o1 = await open(owner, 'AAPL');
    const stillOpen = await open(a, 'MSFT', 'SHORT');
    const a1 = await open(a, 'AAPL');
    setPrice('AAPL', 104);
    await close(owner, o1);
    await close(a, a1);
    assert.equal((await call(null, 'GET', `/leagues/${league.id}/proof`)).statusCode, 404, 'no proof while it runs');

    t.clock.set(Date.parse(league.ends_at) + 5_000);
    setPrice('MSFT', 380);
    assert.equal((await runLeagueSteps(t.ctx)).settled, 1);
    // Events after the end change neither the board nor its proof.
    await close(a, stillOpen);
    const final = await board(null, league.id);
    assert.equal(final.final, true);
    const notYet = await call(null, 'GET', `/leagues/${league.id}/proof`);
    assert.equal(notYet.statusCode, 404);
    assert.match(notYet.json().error, /once that day has ended/);

    // The next day: the settlement day's root is published (the timer's job, run with the injected clock).
    t.clock.advance(DAY);
    await publishYesterday(t.ctx);
    const res = await call(null, 'GET', `/leagues/${league.id}/proof`);
    assert.equal(res.statusCode, 200, res.body);
    const proof = res.json() as LeagueProof;
    assert.equal(proof.kind, 'league-board');
    assert.equal(proof.document.board.length, 3);
    assert.deepEqual(proof.document.heads.map((h) => h.user_id).sort(), [owner.id, a.id, idle.id].sort());
    assert.equal(proof.document.heads.find((h) => h.user_id === idle.id)!.seq, 0);
    const day = (await call(null, 'GET', `/record/days/${proof.proof.date}`)).json();
    assert.equal(day.root, proof.proof.root);
    // A user's own proof in the same day still verifies with the league's leaf in the tree.
    const records = new Map<number, UserRecord>();
    for (const u of [owner, a, idle]) records.set(u.id, (await call(null, 'GET', `/record/user/${u.id}`)).json());
    assert.deepEqual(verifyUserRecord(records.get(a.id)!, day.root), []);
    assert.deepEqual(verifyLeagueProof(proof, { publishedRoot: day.root, records, verifyRecord: (r) => verifyUserRecord(r) }), []);

    const url = `${base}/leagues/${league.id}/proof`;
    assert.match(await verifyLog(url), /^OK: league \d+, 3 members, board in the root of \d{4}-\d{2}-\d{2}, 3 member records checked/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'league-proof-'));
    try {
      const file = path.join(dir, 'proof.json');
      fs.writeFileSync(file, JSON.stringify(proof));
      assert.match(await verifyLog(file, base), /^OK: .*3 member records checked/);
      // A winner's score raised, and the hash recomputed to match: the root no longer does, and the record disagrees.
      const forged = structuredClone(proof);
      forged.document.board.find((r) => r.user_id === a.id)!.score = 99;
      fs.writeFileSync(file, JSON.stringify(forged));
      let failed: { code: number; stdout: string } | null = null;
      try {
        await verifyLog(file, base);
      } catch (err) {
        failed = err as { code: number; stdout: string };
      }
      assert.ok(failed, 'the forged proof must fail');
      assert.equal(failed.code, 1);
      assert.match(failed.stdout, /does not hash to board_hash/);
      assert.match(failed.stdout, /score 99 but the record gives/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
