// Every password check is throttled like /login (per account and address,
// and per account from any address), and the hashing behind them is a
// bounded queue shared fairly. The hashing is a fake the test holds and
// releases, so floods pile up exactly as arranged; the assertions are on
// counts and statuses, never on time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { testConfig } from '../../src/config.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, PASSWORD, registerAndLogInThroughApi, type TestApp, type TestUser, uniqueName } from '../helpers/app.js';
import { GatedHashing, settled } from '../helpers/fake-hashing.js';

const FREE_FAILURES = 3;
const ACCOUNT_FREE_FAILURES = 6;
const PER_CLIENT = 3;
const CONCURRENCY = 2;
const MAX_WAITING = 8;
const LOGIN_RESERVE = 2;
const CHECKS_PER_HOUR = 8;

const config = () => ({
  rateLimits: { ...testConfig().rateLimits, enabled: true, authPerMinute: 100_000, loginFailuresBeforeDelay: FREE_FAILURES },
  accountThrottle: { failuresBeforeDelay: ACCOUNT_FREE_FAILURES, maxDelayMs: 60_000, passwordChecksPerHour: CHECKS_PER_HOUR },
  hashConcurrency: CONCURRENCY,
  hashQueue: { maxWaiting: MAX_WAITING, maxWaitMs: 60_000, perClient: PER_CLIENT, loginReserve: LOGIN_RESERVE },
});

const tally = (responses: LightMyRequestResponse[]) => {
  const out: Record<number, number> = {};
  for (const r of responses) out[r.statusCode] = (out[r.statusCode] ?? 0) + 1;
  return out;
};

forEachDialect('password checks', (dialect) => {
  let t: TestApp;
  let hashing: GatedHashing;
  before(async () => {
    hashing = new GatedHashing();
    t = await createTestApp(dialect, { config: config(), deps: { passwordHashing: hashing } });
  });
  after(() => t.close());

  const login = (email: string, password: string, ip = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: '/login', payload: { email, password }, remoteAddress: ip });
  const changePassword = (cookie: string, current: string, ip = '127.0.0.1', next = 'a brand new passphrase here') =>
    t.app.inject({
      method: 'POST',
      url: '/me/password',
      headers: { cookie },
      payload: { current_password: current, new_password: next },
      remoteAddress: ip,
    });
  const deleteMe = (cookie: string, password: string, ip = '127.0.0.1') =>
    t.app.inject({ method: 'DELETE', url: '/me', headers: { cookie }, payload: { password }, remoteAddress: ip });
  const changeEmail = (cookie: string, password: string, ip = '127.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/me/email',
      headers: { cookie },
      payload: { new_email: `${uniqueName()}@elsewhere.test`, password },
      remoteAddress: ip,
    });

  describe('throttled like /login', () => {
    test('POST /me/password: wrong current passwords get 403, then 429 with Retry-After; failures add up with /login', async () => {
      const u = await registerAndLogInThroughApi(t.app);
      const ip = '10.20.0.1';
      for (let i = 0; i < FREE_FAILURES; i++) assert.equal((await changePassword(u.cookie, `wrong guess ${i} at it`, ip)).statusCode, 403);
      const refused = await changePassword(u.cookie, PASSWORD, ip);
      assert.equal(refused.statusCode, 429);
      assert.match(String(refused.headers['retry-after']), /^\d+$/);
      assert.deepEqual(Object.keys(refused.json()), ['error']);
      assert.equal((await login(u.email, PASSWORD, ip)).statusCode, 429, 'the same account and address on /login');
      assert.equal((await changePassword(u.cookie, PASSWORD, '10.20.0.2')).statusCode, 200, 'the owner elsewhere is not locked out');
    });

    test('DELETE /me: wrong passwords get 403, then 429; the account stays until the right one after the wait', async () => {
      const u = await registerAndLogInThroughApi(t.app);
      const ip = '10.21.0.1';
      for (let i = 0; i < FREE_FAILURES; i++) assert.equal((await deleteMe(u.cookie, `wrong guess ${i} at it`, ip)).statusCode, 403);
      const refused = await deleteMe(u.cookie, PASSWORD, ip);
      assert.equal(refused.statusCode, 429);
      const wait = Number(refused.headers['retry-after']);
      assert.ok(wait >= 1);
      assert.equal((await t.app.inject({ method: 'GET', url: '/me', headers: { cookie: u.cookie } })).statusCode, 200);
      t.clock.advance(wait * 1000);
      assert.equal((await deleteMe(u.cookie, PASSWORD, ip)).statusCode, 200);
    });

    test('guesses spread over many addresses: past the per-account ceiling every new address waits; the owner’s known address does not', async () => {
      const u = await registerAndLogInThroughApi(t.app); // signs in from 127.0.0.1: a known address for the account
      for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++) assert.equal((await login(u.email, `wrong guess ${i} at it`, `10.22.0.${i}`)).statusCode, 401);
      const stranger = await login(u.email, PASSWORD, '10.22.1.1');
      assert.equal(stranger.statusCode, 429, 'even with the right password, a new address waits');
      assert.match(String(stranger.headers['retry-after']), /^\d+$/);
      assert.equal((await login(u.email, PASSWORD)).statusCode, 200, 'the owner, from where they signed in before');
      const other = await registerAndLogInThroughApi(t.app);
      assert.equal((await login(other.email, PASSWORD, '10.22.1.1')).statusCode, 200, 'another account is not affected');
      t.clock.advance(60_000);
      assert.equal((await login(u.email, PASSWORD, '10.22.1.1')).statusCode, 200, 'the wait is bounded');
    });
    test('every password-confirming endpoint has a budget per account per hour, right password or wrong, from any address', async () => {
      const u = await registerAndLogInThroughApi(t.app);
      const other = await registerAndLogInThroughApi(t.app);
      // Half right, half wrong, each from its own address: no failure throttle is reached.
      for (let i = 0; i < CHECKS_PER_HOUR; i++) {
        const right = i % 2 === 0;
        const res = await changePassword(u.cookie, right ? PASSWORD : `wrong guess ${i} at it`, `10.23.0.${i}`, PASSWORD);
        assert.equal(res.statusCode, right ? 200 : 403);
      }
      const spent = await changePassword(u.cookie, PASSWORD, '10.23.1.1', PASSWORD);
      assert.equal(spent.statusCode, 429, 'the right password, from a new address, past the budget');
      const wait = Number(spent.headers['retry-after']);
      assert.ok(wait >= 1 && wait <= 3600);
      assert.deepEqual(Object.keys(spent.json()), ['error']);
      assert.equal((await changeEmail(u.cookie, PASSWORD, '10.23.1.2')).statusCode, 429, 'POST /me/email shares it');
      assert.equal((await deleteMe(u.cookie, PASSWORD, '10.23.1.3')).statusCode, 429, 'DELETE /me shares it');
      assert.equal((await login(u.email, PASSWORD, '10.23.1.4')).statusCode, 200, '/login is not part of it');
      assert.equal((await changePassword(other.cookie, PASSWORD, '10.23.1.1', PASSWORD)).statusCode, 200, 'another account has its own');
      t.clock.advance(wait * 1000);
      assert.equal((await changeEmail(u.cookie, PASSWORD, '10.23.1.2')).statusCode, 202, 'an hour later');
    });
  });

  describe('the hash queue', () => {
    /** Starts the requests with the hashing held; resolves once every refused one has answered and the rest are in the queue. */
    async function flood(requests: Array<() => Promise<LightMyRequestResponse>>, admitted: number) {
      hashing.hold();
      const answered: LightMyRequestResponse[] = [];
      const all = requests.map((r) =>
        r().then((res) => {
          answered.push(res);
          return res;
        }),
      );
      await settled('refusals answered and the rest queued', () => {
        const load = t.ctx.passwords.load;
        return answered.length === requests.length - admitted && load.running + load.waiting === admitted;
      });
      return { refused: [...answered], all };
    }

    test('a flood from one address is refused beyond its share (429) while a login from another address for another account is admitted', async () => {
      const owner = await registerAndLogInThroughApi(t.app);
      const ip = '10.30.0.1';
      const { refused, all } = await flood(
        Array.from({ length: 12 }, (_, i) => () => login(`${uniqueName()}@nowhere.test`, `guess number ${i} here`, ip)),
        PER_CLIENT,
      );
      assert.deepEqual(tally(refused), { 429: 12 - PER_CLIENT });
      for (const r of refused) assert.match(String(r.headers['retry-after']), /^\d+$/);
      const legit = login(owner.email, PASSWORD, '10.30.0.2');
      await settled('the other login has a place', () => t.ctx.passwords.load.running + t.ctx.passwords.load.waiting === PER_CLIENT + 1);
      hashing.release();
      assert.equal((await legit).statusCode, 200);
      assert.deepEqual(tally(await Promise.all(all)), { 401: PER_CLIENT, 429: 12 - PER_CLIENT });
    });

    test('a flood against one account from many addresses is refused beyond its share; another account is admitted', async () => {
      const victim = await registerAndLogInThroughApi(t.app);
      const owner = await registerAndLogInThroughApi(t.app);
      const { refused, all } = await flood(
        Array.from({ length: 10 }, (_, i) => () => login(victim.email, `guess number ${i} here`, `10.31.0.${i}`)),
        PER_CLIENT,
      );
      assert.deepEqual(tally(refused), { 429: 10 - PER_CLIENT });
      const legit = login(owner.email, PASSWORD, '10.31.1.1');
      await settled('the other login has a place', () => t.ctx.passwords.load.running + t.ctx.passwords.load.waiting === PER_CLIENT + 1);
      hashing.release();
      assert.equal((await legit).statusCode, 200);
      assert.deepEqual(tally(await Promise.all(all)), { 401: PER_CLIENT, 429: 10 - PER_CLIENT });
    });

    test('a flood from many addresses fills the queue: beyond the bound, 503 with Retry-After at once (legitimate logins too)', async () => {
      const owner = await registerAndLogInThroughApi(t.app);
      const bound = CONCURRENCY + MAX_WAITING;
      const { refused, all } = await flood(
        Array.from({ length: 25 }, (_, i) => () => login(`${uniqueName()}@nowhere.test`, `guess number ${i} here`, `10.32.0.${i}`)),
        bound,
      );
      assert.deepEqual(tally(refused), { 503: 25 - bound });
      for (const r of refused) {
        assert.match(String(r.headers['retry-after']), /^\d+$/);
        assert.deepEqual(Object.keys(r.json()), ['error']);
      }
      assert.equal((await login(owner.email, PASSWORD, '10.32.1.1')).statusCode, 503, 'the bound keeps the service alive, at this cost');
      hashing.release();
      assert.deepEqual(tally(await Promise.all(all)), { 401: bound, 503: 25 - bound });
      assert.equal((await login(owner.email, PASSWORD, '10.32.1.1')).statusCode, 200, 'once the flood drains');
    });

    test('correct passwords on /me/password from 16 accounts on 8 addresses: a login for another account from another address is admitted every time', async () => {
      const owner = await registerAndLogInThroughApi(t.app);
      const accounts: TestUser[] = [];
      for (let i = 0; i < 16; i++) accounts.push(await registerAndLogInThroughApi(t.app));
      const load = () => t.ctx.passwords.load.running + t.ctx.passwords.load.waiting;
      for (let round = 0; round < 3; round++) {
        hashing.hold();
        const answered: LightMyRequestResponse[] = [];
        // Each request is the right password (kept as it is), so none is a failure.
        const flood = accounts.flatMap((u, i) =>
          [0, 1].map(() =>
            changePassword(u.cookie, PASSWORD, `10.34.0.${i % 8}`, PASSWORD).then((res) => {
              answered.push(res);
              return res;
            }),
          ),
        );
        await settled('every request of the flood answered or in the queue', () => answered.length + load() === flood.length);
        for (const r of answered) {
          assert.ok(r.statusCode === 429 || r.statusCode === 503, `refused at once: ${r.statusCode}`);
          assert.match(String(r.headers['retry-after']), /^\d+$/);
        }
        const queued = load();
        let answeredWith: number | null = null;
        const legit = login(owner.email, PASSWORD, `10.34.1.${round}`).then((res) => {
          answeredWith = res.statusCode;
          return res;
        });
        await settled('the login has a place in the queue, or an answer', () => answeredWith !== null || load() === queued + 1);
        assert.equal(answeredWith, null, `round ${round}: the login is admitted, not refused`);
        hashing.release();
        assert.equal((await legit).statusCode, 200);
        for (const r of await Promise.all(flood)) assert.ok([200, 429, 503].includes(r.statusCode), `flood answer ${r.statusCode}`);
      }
    });

    test('registrations are counted by address', async () => {
      const ip = '10.33.0.1';
      const register = () => {
        const username = uniqueName();
        return t.app.inject({
          method: 'POST',
          url: '/register',
          payload: { username, email: `${username}@x.test`, password: PASSWORD },
          remoteAddress: ip,
        });
      };
      const { refused, all } = await flood(
        Array.from({ length: 8 }, () => register),
        PER_CLIENT,
      );
      assert.deepEqual(tally(refused), { 429: 8 - PER_CLIENT });
      hashing.release();
      assert.deepEqual(tally(await Promise.all(all)), { 201: PER_CLIENT, 429: 8 - PER_CLIENT });
    });
  });
});
