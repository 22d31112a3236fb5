// GET /record/user/{id} is sent a slice at a time (userRecordText): the text
// must be the response schema's answer exactly, whatever the slice size, each
// event the bytes its hash covers, and a chain that grows while it is sent
// ends at the head read first.
import assert from 'node:assert/strict';
import { brotliDecompressSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import build from 'fast-json-stringify';
import { verifyUserRecord } from '../../src/domain/verify-record.js';
import { RecordEventSchema, type UserRecord, UserRecordSchema } from '../../src/schemas/record.js';
import { userRecordHead, userRecordText } from '../../src/services/record.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
ajv.addSchema(RecordEventSchema);
const validRecord = ajv.compile(UserRecordSchema);
const schemaProblems = (record: unknown) => (validRecord(record) ? '' : ajv.errorsText(validRecord.errors));

const betsText = build(UserRecordSchema.properties.bets) as (bets: UserRecord['bets']) => string;

forEachDialect('the user record, sent in slices', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  async function call(user: TestUser, method: string, url: string, payload?: object) {
    const res = await t.app.inject({ method, url, payload, headers: { cookie: user.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  /** A trader with `n` bets, every second one closed after its cancel window. */
  async function trader(n: number): Promise<TestUser> {
    const u = await registerAndLogin(t.app);
    for (let i = 0; i < n; i++) {
      const { bet_id } = await call(u, 'POST', '/bet/open', { ticker: i % 2 ? 'AAPL' : 'MSFT', direction: i % 3 ? 'LONG' : 'SHORT' });
      if (i % 2 === 0) {
        t.clock.advance(6 * 60_000);
        await call(u, 'POST', '/bet/close', { bet_id });
      }
    }
    return u;
  }

  /** The whole text userRecordText makes with this slice size, and how many pieces it came in. */
  async function textOf(userId: number, slice: number): Promise<{ text: string; pieces: number }> {
    const head = await userRecordHead(t.ctx, userId);
    const shell = JSON.stringify({ user_id: head.userId, entries: [], bets: [], proof: head.proof });
    let text = '';
    let pieces = 0;
    for await (const piece of userRecordText(t.ctx, head, shell, betsText, slice)) {
      text += piece;
      pieces++;
    }
    return { text, pieces };
  }

  test('the answer is the schema’s, every event the stored bytes its hash covers; it verifies; slices of 1, 2 or 1,000 give the same text', async () => {
    const u = await trader(6);
    const res = await t.app.inject({ method: 'GET', url: `/record/user/${u.id}`, headers: { 'accept-encoding': 'br' } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
    assert.equal(res.headers['content-encoding'], 'br');
    const body = brotliDecompressSync(res.rawPayload).toString();
    const record = JSON.parse(body) as UserRecord;
    assert.equal(schemaProblems(record), '');
    assert.equal(record.user_id, u.id);
    assert.equal(record.bets.length, 6);
    assert.deepEqual(verifyUserRecord(record), []);
    // Each event as stored: the text between `"event":` and its entry's closing brace is the row's event column.
    const stored = await t.ctx.db.selectFrom('record_entries').select(['seq', 'event']).where('user_id', '=', u.id).orderBy('seq').execute();
    // 6 openings, 3 closes, and a commitment of each bet held past its cancel window.
    assert.ok(stored.length >= 9);
    assert.deepEqual(
      record.entries.map((e) => e.seq),
      stored.map((r) => r.seq),
    );
    for (const row of stored)
      assert.ok(body.includes(`"seq":${row.seq},`) && body.includes(`"event":${row.event}}`), `entry ${row.seq} is sent as stored`);
    // The shell serialized by JSON.stringify here, by the schema in the route: the same record.
    for (const slice of [1, 2, 1_000]) {
      const { text, pieces } = await textOf(u.id, slice);
      assert.deepEqual(JSON.parse(text), record, `slice ${slice}`);
      if (slice === 1) assert.ok(pieces >= 9 + 6, `a piece per entry and per bet: ${pieces}`);
    }
  });

  test('a trader with no bets: an empty chain and no bets, the schema’s answer; an unknown user is a 404 in the error shape', async () => {
    const u = await registerAndLogin(t.app);
    const res = await t.app.inject({ method: 'GET', url: `/record/user/${u.id}` });
    assert.equal(res.statusCode, 200);
    const record = res.json();
    assert.deepEqual({ ...record, proof: null }, { user_id: u.id, entries: [], bets: [], proof: null });
    assert.equal(schemaProblems(record), '');
    const missing = await t.app.inject({ method: 'GET', url: '/record/user/987654321' });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(Object.keys(missing.json()), ['error']);
    const head = await t.app.inject({ method: 'HEAD', url: `/record/user/${u.id}` });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  test('entries appended while a record is being sent wait for the next request: the chain ends at the head read first', async () => {
    const u = await trader(3);
    const head = await userRecordHead(t.ctx, u.id);
    const shell = JSON.stringify({ user_id: head.userId, entries: [], bets: [], proof: head.proof });
    const pieces = userRecordText(t.ctx, head, shell, betsText, 1);
    let text = (await pieces.next()).value as string;
    await call(u, 'POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' });
    for await (const piece of pieces) text += piece;
    const record = JSON.parse(text) as UserRecord;
    assert.equal(record.entries.length, head.lastSeq);
    assert.deepEqual(
      record.entries.map((e) => e.seq),
      Array.from({ length: head.lastSeq }, (_, i) => i + 1),
    );
    assert.equal(record.bets.length, 3);
    assert.deepEqual(verifyUserRecord(record), []);
    assert.equal((await t.app.inject({ method: 'GET', url: `/record/user/${u.id}` })).json().entries.length, head.lastSeq + 1);
  });
});
