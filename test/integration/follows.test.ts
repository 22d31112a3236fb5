import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, registerAndLogin, type TestApp, type TestUser, uniqueName } from '../helpers/app.js';
import { deleteTestUser, insertTestUser, setExtraSlots } from '../helpers/users.js';

const BASE_FOLLOWS = 3;

forEachDialect('follow, unfollow and the following list', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { capacities: { baseBets: 10, baseFollows: BASE_FOLLOWS } } });
  });
  after(() => t.close());

  const followReq = (u: TestUser, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/follow', payload: payload as object, headers: { cookie: u.cookie, ...headers } });
  const follow = (u: TestUser, id: number) => followReq(u, { followed_id: id, action: 'follow' });
  const unfollow = (u: TestUser, id: number) => followReq(u, { followed_id: id, action: 'unfollow' });
  const following = async (u: TestUser): Promise<number[]> => {
    const res = await t.app.inject({ method: 'GET', url: '/following', headers: { cookie: u.cookie } });
    assert.equal(res.statusCode, 200);
    return res.json();
  };
  const others = (n: number) => Promise.all(Array.from({ length: n }, () => insertTestUser(t.ctx, uniqueName('f'))));

  test('follow → 200 {success: true}; the id appears in /following', async () => {
    const me = await registerAndLogin(t.app);
    const [a, b] = await others(2);
    for (const id of [b, a]) {
      const res = await follow(me, id);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { success: true });
    }
    assert.deepEqual(
      await following(me),
      [a, b].sort((x, y) => x - y),
    );
  });

  test('follow is idempotent: again is a success and no second row', async () => {
    const me = await registerAndLogin(t.app);
    const [a] = await others(1);
    assert.equal((await follow(me, a)).statusCode, 200);
    assert.equal((await follow(me, a)).statusCode, 200);
    assert.deepEqual(await following(me), [a]);
    const rows = await t.ctx.db.selectFrom('follows').selectAll().where('follower_id', '=', me.id).execute();
    assert.equal(rows.length, 1);
  });

  test('unfollow removes the relation; unfollowing someone not followed is a success', async () => {
    const me = await registerAndLogin(t.app);
    const [a, b] = await others(2);
    await follow(me, a);
    const res = await unfollow(me, a);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { success: true });
    assert.deepEqual(await following(me), []);
    assert.equal((await unfollow(me, a)).statusCode, 200, 'again');
    assert.equal((await unfollow(me, b)).statusCode, 200, 'never followed');
  });

  test('following or unfollowing yourself → 400 Error', async () => {
    const me = await registerAndLogin(t.app);
    for (const action of ['follow', 'unfollow']) {
      const res = await followReq(me, { followed_id: me.id, action });
      assert.equal(res.statusCode, 400, action);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
    assert.deepEqual(await following(me), []);
  });

  test('unknown or deleted user → 404 Error, an id no user can have 400; a follow of a since-deleted user can still be dropped', async () => {
    const me = await registerAndLogin(t.app);
    for (const action of ['follow', 'unfollow']) {
      // Ids are safe integers from 1 (issue 22): anything else is an invalid request.
      for (const [id, status] of [
        [987654321, 404],
        [0, 400],
        [-5, 400],
        [1e20, 400],
      ]) {
        const res = await followReq(me, { followed_id: id, action });
        assert.equal(res.statusCode, status, `${action} ${id}`);
        assert.deepEqual(Object.keys(res.json()), ['error']);
      }
    }
    const [gone, later] = await others(2);
    await deleteTestUser(t.ctx, gone);
    assert.equal((await follow(me, gone)).statusCode, 404);
    await follow(me, later);
    await deleteTestUser(t.ctx, later);
    assert.deepEqual(await following(me), [], 'deleted accounts are not listed');
    assert.equal((await unfollow(me, later)).statusCode, 200);
    const rows = await t.ctx.db.selectFrom('follows').selectAll().where('follower_id', '=', me.id).execute();
    assert.equal(rows.length, 0);
  });

  test('bad bodies → 400: bad action, wrong types, missing or unknown fields', async () => {
    const me = await registerAndLogin(t.app);
    const [a] = await others(1);
    const bad: unknown[] = [
      { followed_id: a, action: 'block' },
      { followed_id: String(a), action: 'follow' },
      { followed_id: a + 0.5, action: 'follow' },
      { followed_id: a },
      { action: 'follow' },
      { followed_id: a, action: 'follow', extra: 1 },
      [],
    ];
    for (const body of bad) {
      const res = await followReq(me, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
    assert.deepEqual(await following(me), []);
  });

  test('401 without a session on /follow and /following', async () => {
    const [a] = await others(1);
    const f = await t.app.inject({ method: 'POST', url: '/follow', payload: { followed_id: a, action: 'follow' } });
    assert.equal(f.statusCode, 401);
    const l = await t.app.inject({ method: 'GET', url: '/following' });
    assert.equal(l.statusCode, 401);
    const bogus = await t.app.inject({ method: 'GET', url: '/following', headers: { cookie: 'auth_token=nope' } });
    assert.equal(bogus.statusCode, 401);
  });

  test('a cross-site follow carrying the cookie → 403 Error, nothing followed', async () => {
    const me = await registerAndLogin(t.app);
    const [a] = await others(1);
    const res = await followReq(me, { followed_id: a, action: 'follow' }, { origin: 'https://evil.example' });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(Object.keys(res.json()), ['error']);
    assert.deepEqual(await following(me), []);
  });

  test('follow limit → 403 LIMIT_REACHED with the limit; following again stays a success', async () => {
    const me = await registerAndLogin(t.app);
    const ids = await others(BASE_FOLLOWS + 1);
    for (const id of ids.slice(0, BASE_FOLLOWS)) assert.equal((await follow(me, id)).statusCode, 200);
    const res = await follow(me, ids[BASE_FOLLOWS]!);
    assert.equal(res.statusCode, 403);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['error', 'limit', 'message']);
    assert.equal(body.error, 'LIMIT_REACHED');
    assert.equal(body.limit, BASE_FOLLOWS);
    assert.equal(typeof body.message, 'string');
    assert.equal((await follow(me, ids[0]!)).statusCode, 200, 'an existing follow is not a new one');
    assert.equal((await following(me)).length, BASE_FOLLOWS);
  });

  test('concurrent follows at the limit: exactly the capacity succeeds', async () => {
    const me = await registerAndLogin(t.app);
    const ids = await others(BASE_FOLLOWS + 5);
    const results = await Promise.all(ids.map((id) => follow(me, id)));
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, BASE_FOLLOWS, codes.join(','));
    assert.equal(codes.filter((c) => c === 403).length, 5, codes.join(','));
    for (const r of results.filter((x) => x.statusCode === 403)) assert.equal(r.json().error, 'LIMIT_REACHED');
    assert.equal((await following(me)).length, BASE_FOLLOWS);
  });

  test('a plan adds follow slots; when it ends existing follows stay and new ones wait until under the limit', async () => {
    const me = await registerAndLogin(t.app);
    const ids = await others(BASE_FOLLOWS + 3);
    await setExtraSlots(t.ctx, me.id, 2);
    const me2 = await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: me.cookie } });
    assert.equal(me2.json().follow_capacity, BASE_FOLLOWS + 2);
    for (const id of ids.slice(0, BASE_FOLLOWS + 2)) assert.equal((await follow(me, id)).statusCode, 200);

    await setExtraSlots(t.ctx, me.id, 0);
    assert.equal((await following(me)).length, BASE_FOLLOWS + 2, 'existing follows stay');
    const refused = await follow(me, ids[BASE_FOLLOWS + 2]!);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().limit, BASE_FOLLOWS);
    assert.equal((await follow(me, ids[0]!)).statusCode, 200, 'following again is still a success');

    await unfollow(me, ids[0]!);
    await unfollow(me, ids[1]!);
    assert.equal((await follow(me, ids[BASE_FOLLOWS + 2]!)).statusCode, 403, 'at the limit, not under it');
    await unfollow(me, ids[2]!);
    assert.equal((await follow(me, ids[BASE_FOLLOWS + 2]!)).statusCode, 200, 'under the limit again');
  });

  test('a follow of a deleted account does not use a slot', async () => {
    const me = await registerAndLogin(t.app);
    const ids = await others(BASE_FOLLOWS + 1);
    for (const id of ids.slice(0, BASE_FOLLOWS)) await follow(me, id);
    await deleteTestUser(t.ctx, ids[0]!);
    assert.equal((await follow(me, ids[BASE_FOLLOWS]!)).statusCode, 200);
  });
});
