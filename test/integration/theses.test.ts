// Theses (issue 38 part 1, docs/theses.md), end to end on both dialects: given
// at opening only and checked; committed in the opening entry as a salted hash
// that verify-log and the browser check recompute; served on the bet page,
// feed, profiles, history and the link preview, never on the portfolio;
// hidden by the owner only; reported once per user, counted only from
// verified accounts with a ranked bet, withheld from others at the setting.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { committedInstant } from '../../src/domain/bets.js';
import { verifyUserRecord } from '../../src/domain/verify-record.js';
import { commitDueBets } from '../../src/jobs/commitments.js';
import { markVerified } from '../../src/repositories/email.js';
import { findThesis, thesesOf } from '../../src/repositories/theses.js';
import type { UserRecord } from '../../src/schemas/record.js';
import { checkBetRecord } from '../../web/src/lib/record-proof.js';
import { createTestApp, PASSWORD, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';
import { FakePriceProvider } from '../helpers/prices.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const REPORTS_TO_HIDE = 2;
const INDEX =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Paper Bets</title><meta property="og:description" content="default"></head><body><div id="root"></div></body></html>';
const HOSTILE = `"'><script>alert(1)</script>&amp; buy`;

forEachDialect('theses', (dialect) => {
  let t: TestApp;
  let dist: string;
  const prices = new FakePriceProvider();
  before(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'thesis-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), INDEX);
    t = await createTestApp(dialect, {
      deps: { prices, webDistDir: dist },
      config: { thesisReportsToHide: REPORTS_TO_HIDE, capacities: { baseBets: 50, baseFollows: 20 } },
    });
    t.clock.set('2026-03-04T10:00:00Z');
    prices.set('BTC-USD', 50_000);
  });
  after(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, user?: TestUser, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      ...(payload === undefined
        ? {}
        : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json', ...(user ? { cookie: user.cookie } : {}) } }),
      ...(payload === undefined ? { headers: user ? { cookie: user.cookie } : {} } : {}),
    });

  async function open(user: TestUser, body: Record<string, unknown>): Promise<number> {
    const res = await call('POST', '/bet/open', user, body);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }
  async function getRecord(userId: number): Promise<UserRecord> {
    const res = await call('GET', `/record/user/${userId}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  const bet = async (id: number) => (await call('GET', `/bet/${id}`)).json();

  /** An established account: verified email and one ranked bet (opened, committed after its window, closed). */
  async function established(): Promise<TestUser> {
    const u = await registerAndLogin(t.app, 'rep');
    await markVerified(t.ctx.db, u.id, u.email, t.clock.now());
    const opened = t.clock.now();
    const id = await open(u, { ticker: 'BTC-USD', direction: 'LONG' });
    t.clock.set(committedInstant(opened) + 1_000);
    await commitDueBets(t.ctx, quiet);
    assert.equal((await call('POST', '/bet/close', u, { bet_id: id })).statusCode, 200);
    assert.notEqual((await bet(id)).ranked_gain, null, 'the reporter has a ranked bet');
    return u;
  }

  test('bad theses are refused with a clear 400 in the error shape, before any bet is opened', async () => {
    const u = await registerAndLogin(t.app);
    const cases: Array<[unknown, RegExp]> = [
      ['x'.repeat(281), /thesis|280/i],
      ['', /thesis/i],
      ['   ', /blank/],
      ['up\nand away', /control and text-direction characters/],
      ['bell\u0007', /U\+0007/],
      ['sell \u202eyub', /U\+202E/],
      ['isolate \u2066x\u2069', /U\+2066/],
      ['mark \u200f', /U\+200F/],
      [42, /thesis/i],
      [null, /thesis/i],
    ];
    for (const [thesis, message] of cases) {
      const res = await call('POST', '/bet/open', u, { ticker: 'BTC-USD', direction: 'LONG', thesis });
      assert.equal(res.statusCode, 400, `${JSON.stringify(thesis)}: ${res.body}`);
      assert.deepEqual(Object.keys(res.json()), ['error']);
      assert.match(res.json().error, message, JSON.stringify(thesis));
    }
    assert.equal(
      (await call('POST', '/bet/open', u, { ticker: 'BTC-USD', direction: 'LONG', thesis_text: 'x' })).statusCode,
      400,
      'other fields stay unknown',
    );
    assert.equal((await call('GET', '/portfolio', u)).json().length, 0, 'nothing opened');
    // 280 characters, counted as code points: emoji are one each.
    const id = await open(u, { ticker: 'BTC-USD', direction: 'LONG', thesis: '🚀'.repeat(280) });
    assert.equal((await bet(id)).thesis, '🚀'.repeat(280));
  });

  test('thesesOf reads any list of bets in one statement: mixed, unknown, repeated, longer than 500, empty', async () => {
    const u = await registerAndLogin(t.app, 'lists');
    const withText = [
      await open(u, { ticker: 'BTC-USD', direction: 'LONG', thesis: 'first reason' }),
      await open(u, { ticker: 'BTC-USD', direction: 'SHORT', thesis: HOSTILE }),
    ];
    const without = await open(u, { ticker: 'BTC-USD', direction: 'LONG' });
    const unknown = Array.from({ length: 1_200 }, (_, i) => 900_000_000 + i);
    const ids = [...unknown.slice(0, 600), withText[1]!, without, withText[0]!, withText[0]!, ...unknown.slice(600)];
    const found = await thesesOf(t.ctx.db, ids);
    assert.deepEqual(
      [...found.keys()].sort((a, b) => a - b),
      [...withText].sort((a, b) => a - b),
    );
    for (const id of withText) assert.deepEqual(found.get(id), await findThesis(t.ctx.db, id));
    assert.equal(found.get(withText[1]!)?.text, HOSTILE);
    assert.equal((await thesesOf(t.ctx.db, [])).size, 0);
    assert.equal((await thesesOf(t.ctx.db, [without])).size, 0);
  });

  test('the opening entry commits to the salted hash; the shown text and salt verify with verify-log and the browser; a changed text fails', async () => {
    const u = await registerAndLogin(t.app);
    const text = 'Halving supply shock: long into the summer.';
    const id = await open(u, { ticker: 'BTC-USD', direction: 'LONG', thesis: text });
    const detail = await bet(id);
    assert.equal(detail.thesis, text);
    assert.equal(detail.thesis_state, 'shown');
    assert.match(detail.thesis_salt, /^[0-9a-f]{32}$/);
    assert.equal((await call('POST', '/bet/close', u, { bet_id: id })).statusCode, 200);

    const rec = await getRecord(u.id);
    const [opening, closing] = rec.entries.map((e) => e.event);
    assert.equal(opening.thesis_hash, createHash('sha256').update(`${detail.thesis_salt}\n${text}`).digest('hex'));
    assert.equal(closing.thesis_hash, undefined, 'only the opening commits to it');
    const exported = rec.bets.find((b) => b.id === id)!;
    assert.deepEqual([exported.thesis, exported.thesis_salt], [text, detail.thesis_salt]);
    assert.deepEqual(verifyUserRecord(rec), []);
    assert.equal((await checkBetRecord(rec as Parameters<typeof checkBetRecord>[0], id)).thesis, 'committed');

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thesis-record-'));
    const file = path.join(dir, 'record.json');
    const run = () => execFileSync(process.execPath, ['--import', 'tsx', 'scripts/verify-log.ts', file], { encoding: 'utf8' });
    try {
      fs.writeFileSync(file, JSON.stringify(rec));
      assert.match(run(), /^OK: user \d+/);
      // The words shown differ from those committed at opening (a row edited afterwards).
      const changed = structuredClone(rec);
      changed.bets.find((b) => b.id === id)!.thesis = 'Halving supply shock: short into the summer.';
      fs.writeFileSync(file, JSON.stringify(changed));
      assert.throws(
        run,
        (err: { status: number; stdout: string }) => err.status === 1 && /thesis shown is not the one committed at opening/.test(err.stdout),
      );
      assert.equal((await checkBetRecord(changed as Parameters<typeof checkBetRecord>[0], id)).thesis, 'mismatch');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Edited in the database: the service's own export fails verification too.
    await t.ctx.db.updateTable('bet_theses').set({ text: 'something else' }).where('bet_id', '=', id).execute();
    assert.ok(verifyUserRecord(await getRecord(u.id)).some((p) => p.includes(`bet ${id}: the thesis shown is not the one committed`)));
  });

  test('shown on the bet page, feed, profile, history and link preview, escaped; never on the portfolio; tail copies none', async () => {
    const owner = await registerAndLogin(t.app);
    const follower = await registerAndLogin(t.app);
    assert.equal((await call('POST', '/follow', follower, { followed_id: owner.id, action: 'follow' })).statusCode, 200);
    const openId = await open(owner, { ticker: 'BTC-USD', direction: 'SHORT', thesis: HOSTILE });
    const closedId = await open(owner, { ticker: 'BTC-USD', direction: 'LONG', thesis: 'closed one' });
    const plainId = await open(owner, { ticker: 'BTC-USD', direction: 'LONG' });
    assert.equal((await call('POST', '/bet/close', owner, { bet_id: closedId })).statusCode, 200);

    assert.equal((await bet(openId)).thesis, HOSTILE, 'JSON carries the text as written');
    const plain = await bet(plainId);
    assert.equal('thesis' in plain || 'thesis_state' in plain, false, 'a bet without a thesis carries no thesis fields');

    const feed = (await call('GET', '/feed', follower)).json() as Array<{ id: number; thesis?: string }>;
    assert.equal(feed.find((i) => i.id === openId)?.thesis, HOSTILE);
    assert.equal(feed.find((i) => i.id === plainId)?.thesis, undefined);
    t.clock.advance(2_000); // past the shared answer's second
    const profile = (await call('GET', `/user/${owner.id}/public`)).json();
    assert.equal(profile.history.find((b: { id: number }) => b.id === closedId).thesis, 'closed one');
    for (const p of profile.portfolio) assert.equal('thesis' in p, false, 'PortfolioBet is closed: no thesis');
    for (const p of (await call('GET', '/portfolio', owner)).json())
      assert.deepEqual(
        Object.keys(p).filter((k) => k.startsWith('thesis')),
        [],
      );
    assert.equal((await call('GET', '/history', owner)).json().find((b: { id: number }) => b.id === closedId).thesis, 'closed one');

    const page = await call('GET', `/app/bet/${openId}`);
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes('<script>alert(1)'), 'escaped in the preview');
    assert.ok(page.body.includes('&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp; buy'), page.body);
    assert.match(page.body, /<meta property="og:description" content="“&quot;/);

    const tailed = await call('POST', `/bet/${openId}/tail`, follower);
    assert.equal(tailed.statusCode, 200, tailed.body);
    assert.equal('thesis' in (await bet(tailed.json().bet_id)), false, "a tail does not copy the owner's words");
  });

  test('the owner hides a thesis: text no longer served anywhere, the commitment stays; no one else can hide it', async () => {
    const owner = await registerAndLogin(t.app);
    const other = await registerAndLogin(t.app);
    const id = await open(owner, { ticker: 'BTC-USD', direction: 'LONG', thesis: 'regret this' });
    const otherHide = await call('POST', `/bet/${id}/thesis/hide`, other);
    assert.equal(otherHide.statusCode, 403, otherHide.body);
    assert.equal((await bet(id)).thesis, 'regret this', "another user's hide did nothing");
    assert.equal((await call('POST', `/bet/${id}/thesis/hide`)).statusCode, 401);
    const plainId = await open(owner, { ticker: 'BTC-USD', direction: 'LONG' });
    assert.equal((await call('POST', `/bet/${plainId}/thesis/hide`, owner)).statusCode, 404);
    assert.equal((await call('POST', '/bet/999999999/thesis/hide', owner)).statusCode, 404);

    const hide = await call('POST', `/bet/${id}/thesis/hide`, owner);
    assert.equal(hide.statusCode, 200, hide.body);
    assert.equal(hide.json().thesis_state, 'hidden');
    assert.equal((await call('POST', `/bet/${id}/thesis/hide`, owner)).statusCode, 200, 'hiding again answers the same');
    const detail = await bet(id);
    assert.deepEqual([detail.thesis, detail.thesis_salt, detail.thesis_state], [null, null, 'hidden']);
    assert.ok(!(await call('GET', `/app/bet/${id}`)).body.includes('regret this'));
    const rec = await getRecord(owner.id);
    const exported = rec.bets.find((b) => b.id === id)!;
    assert.equal(exported.thesis, undefined);
    assert.match(
      rec.entries.find((e) => e.event.bet_id === id && e.event.kind === 'opened')!.event.thesis_hash ?? '',
      /^[0-9a-f]{64}$/,
      'the commitment stays',
    );
    assert.deepEqual(verifyUserRecord(rec), []);
    // Never editable: the open endpoint is the only way a thesis is written, and only for a new bet.
    assert.equal((await call('POST', `/bet/${id}/thesis`, owner, { thesis: 'new words' })).statusCode, 404);
  });

  test('reports: fresh unverified accounts do nothing, a user reporting twice counts once, established reports withhold it from others only', async () => {
    const owner = await registerAndLogin(t.app);
    const text = 'Contrarian call: this one gets reported';
    const id = await open(owner, { ticker: 'BTC-USD', direction: 'SHORT', thesis: text });
    assert.equal((await call('POST', `/bet/${id}/thesis/report`, owner)).statusCode, 400, 'no reporting your own');
    assert.equal((await call('POST', `/bet/${id}/thesis/report`)).statusCode, 401);

    // A crowd of fresh accounts (and verified ones without a ranked bet) reports: nothing changes.
    for (let i = 0; i < REPORTS_TO_HIDE + 3; i++) {
      const fresh = await registerAndLogin(t.app, 'fresh');
      if (i % 2 === 1) await markVerified(t.ctx.db, fresh.id, fresh.email, t.clock.now());
      assert.equal((await call('POST', `/bet/${id}/thesis/report`, fresh)).statusCode, 200);
    }
    assert.equal((await bet(id)).thesis_state, 'shown');

    // One established account reports twice: counted once.
    const first = await established();
    assert.equal((await call('POST', `/bet/${id}/thesis/report`, first)).statusCode, 200);
    const again = await call('POST', `/bet/${id}/thesis/report`, first);
    assert.equal(again.statusCode, 409, again.body);
    assert.deepEqual(Object.keys(again.json()), ['error']);
    const racing = await Promise.all([0, 1, 2].map(() => call('POST', `/bet/${id}/thesis/report`, first)));
    assert.deepEqual(
      racing.map((r) => r.statusCode),
      [409, 409, 409],
    );
    assert.equal((await bet(id)).thesis, text, 'one counted report is below the setting');
    const row = await t.ctx.db.selectFrom('bet_theses').select('counted_reports').where('bet_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(Number(row.counted_reports), 1);

    // A second established account: the setting is reached.
    const second = await established();
    assert.equal((await call('POST', `/bet/${id}/thesis/report`, second)).statusCode, 200);
    const detail = await bet(id);
    assert.deepEqual([detail.thesis, detail.thesis_salt, detail.thesis_state], [null, null, 'reported']);
    assert.ok(!(await call('GET', `/app/bet/${id}`)).body.includes('Contrarian'), 'not in the link preview');
    assert.equal((await getRecord(owner.id)).bets.find((b) => b.id === id)!.thesis, undefined, 'not in the public record');

    // The owner still sees it, and why, in their own history.
    assert.equal((await call('POST', '/bet/close', owner, { bet_id: id })).statusCode, 200);
    const mine = (await call('GET', '/history', owner)).json().find((b: { id: number }) => b.id === id);
    assert.deepEqual([mine.thesis, mine.thesis_state], [text, 'reported']);
    t.clock.advance(2_000);
    const theirs = (await call('GET', `/user/${owner.id}/public`)).json().history.find((b: { id: number }) => b.id === id);
    assert.deepEqual([theirs.thesis, theirs.thesis_state], [null, 'reported']);
    // Reporting a bet without a thesis, or none at all.
    const plainId = await open(owner, { ticker: 'BTC-USD', direction: 'LONG' });
    assert.equal((await call('POST', `/bet/${plainId}/thesis/report`, first)).statusCode, 404);
    assert.equal((await call('POST', '/bet/abc/thesis/report', first)).statusCode, 400);
  });

  test("deleting an account removes its theses' words and the reports on them; the record keeps the hashes and verifies", async () => {
    const owner = await registerAndLogin(t.app);
    const id = await open(owner, { ticker: 'BTC-USD', direction: 'LONG', thesis: 'personal words' });
    const reporter = await registerAndLogin(t.app);
    assert.equal((await call('POST', `/bet/${id}/thesis/report`, reporter)).statusCode, 200);
    const del = await call('DELETE', '/me', owner, { password: PASSWORD });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(await t.ctx.db.selectFrom('bet_theses').select('bet_id').where('bet_id', '=', id).executeTakeFirst(), undefined);
    assert.equal(await t.ctx.db.selectFrom('thesis_reports').select('bet_id').where('bet_id', '=', id).executeTakeFirst(), undefined);
    const rec = await getRecord(owner.id);
    assert.equal(rec.bets.find((b) => b.id === id)!.thesis, undefined);
    assert.match(rec.entries[0].event.thesis_hash ?? '', /^[0-9a-f]{64}$/);
    assert.deepEqual(verifyUserRecord(rec), []);
  });

  test("the owner's export carries the words (quoted and defused in CSV); a hidden thesis is exported as null", async () => {
    const owner = await registerAndLogin(t.app);
    const text = '=HYPERLINK("x"), a "quoted", comma';
    const id = await open(owner, { ticker: 'BTC-USD', direction: 'LONG', thesis: text });
    const hiddenId = await open(owner, { ticker: 'BTC-USD', direction: 'SHORT', thesis: 'soon hidden' });
    assert.equal((await call('POST', `/bet/${hiddenId}/thesis/hide`, owner)).statusCode, 200);
    const list = (await call('GET', '/me/export', owner)).json() as Array<{ id: number; thesis: string | null }>;
    assert.deepEqual(
      list.map((b) => [b.id, b.thesis]),
      [
        [id, text],
        [hiddenId, null],
      ],
    );
    const csv = (await call('GET', '/me/export?format=csv', owner)).body.trim().split('\r\n');
    assert.ok(csv[1]!.endsWith(`,"'=HYPERLINK(""x""), a ""quoted"", comma"`), csv[1]);
    assert.ok(csv[2]!.endsWith(','), 'a hidden thesis is an empty cell');
  });
});
