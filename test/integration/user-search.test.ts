import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser } from '../helpers/app.js';
import { assertNoPrivateFields, deleteTestUser, insertTestUser } from '../helpers/users.js';

/** A fresh letters-and-digits stem, so each test matches only its own users. */
const stem = () => `s${randomBytes(4).toString('hex')}`;

forEachDialect('user search', (dialect) => {
  let t: TestApp;
  let me: TestUser;
  before(async () => {
    t = await createTestApp(dialect);
    me = await registerAndLogin(t.app);
  });
  after(() => t.close());

  const search = async (q?: string): Promise<Array<{ id: number; username: string }>> => {
    const url = q === undefined ? '/users/search' : `/users/search?q=${encodeURIComponent(q)}`;
    const res = await t.app.inject({ method: 'GET', url, headers: { cookie: me.cookie } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const names = (rows: Array<{ username: string }>) => rows.map((r) => r.username);

  test('case-insensitive substring match, exact then prefix then substring', async () => {
    const s = stem();
    const made = [`x_${s}`, `${s}_zz`, `${s.toUpperCase()}`, `A${s}b`, `${s}A`, `unrelated_${stem()}`];
    for (const n of made) await insertTestUser(t.ctx, n);
    const rows = await search(s.toUpperCase());
    assert.deepEqual(names(rows), [s.toUpperCase(), `${s}A`, `${s}_zz`, `A${s}b`, `x_${s}`]);
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['id', 'username']);
    assert.equal(typeof rows[0]!.id, 'number');
  });

  test('a q with a NUL character → 400 (PostgreSQL cannot compare it), never 500', async () => {
    for (const q of ['a%00b', '%00']) {
      const res = await t.app.inject({ method: 'GET', url: `/users/search?q=${q}`, headers: { cookie: me.cookie } });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
  });

  test('missing, empty or blank q → []', async () => {
    assert.deepEqual(await search(), []);
    assert.deepEqual(await search(''), []);
    assert.deepEqual(await search('   '), []);
  });

  test('at most 20 results', async () => {
    const s = stem();
    for (let i = 0; i < 25; i++) await insertTestUser(t.ctx, `${s}_${String(i).padStart(2, '0')}`);
    const rows = await search(s);
    assert.equal(rows.length, 20);
    assert.deepEqual(
      names(rows),
      Array.from({ length: 20 }, (_, i) => `${s}_${String(i).padStart(2, '0')}`),
    );
  });

  test('%, _ and \\ match literally, never as wildcards', async () => {
    const s = stem();
    await insertTestUser(t.ctx, `${s}_x`);
    await insertTestUser(t.ctx, `${s}ax`);
    await insertTestUser(t.ctx, `${s}nounderscore`);
    assert.deepEqual(names(await search(`${s}_`)), [`${s}_x`], '_ is not "any character"');
    assert.deepEqual(await search(`${s}%x`), [], '% is not "anything"');
    assert.deepEqual(await search('%'), [], 'no username contains %');
    assert.deepEqual(await search('\\'), [], 'no username contains \\');
    assert.deepEqual(await search(`${s}\\`), []);
    const underscores = await search('_');
    assert.ok(underscores.length > 0);
    for (const u of underscores) assert.match(u.username, /_/);
  });

  test('deleted accounts never appear', async () => {
    const s = stem();
    const gone = await insertTestUser(t.ctx, `${s}_gone`);
    await insertTestUser(t.ctx, `${s}_here`);
    await deleteTestUser(t.ctx, gone);
    assert.deepEqual(names(await search(s)), [`${s}_here`]);
  });

  test('answers PublicUser only: no private field', async () => {
    const rows = await search(me.username);
    assert.deepEqual(names(rows), [me.username]);
    assertNoPrivateFields(rows);
  });

  test('401 without a session; 400 for an over-long q', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/users/search?q=abc' });
    assert.equal(res.statusCode, 401);
    const long = await t.app.inject({ method: 'GET', url: `/users/search?q=${'a'.repeat(101)}`, headers: { cookie: me.cookie } });
    assert.equal(long.statusCode, 400);
    assert.deepEqual(Object.keys(long.json()), ['error']);
  });
});
