// Hashes made with older argon2 settings still let their owners in, and are
// made again with today's settings (HASH_OPTIONS) at the first login that
// proves the password: never on a wrong password, never over a password
// changed meanwhile, and never at the cost of the login when the hash queue
// has no place for the extra work.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { usernameKey } from '../../src/domain/accounts.js';
import { replacePasswordHash } from '../../src/repositories/users.js';
import { HASH_OPTIONS, type PasswordHashing } from '../../src/services/passwords.js';
import { forEachDialect } from '../helpers/db.js';
import { createTestApp, PASSWORD, type TestApp, uniqueName } from '../helpers/app.js';
import { settled } from '../helpers/fake-hashing.js';

/** @node-rs/argon2's Algorithm (a const enum, which tests compiled one file at a time cannot read). */
const ARGON2I = 1;
const ARGON2ID = 2;

/** The settings every hash had before HASH_OPTIONS. */
const OLD_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

async function insertWithHash(t: TestApp, passwordHash: string): Promise<{ id: number; email: string }> {
  const username = uniqueName('rehash');
  const email = `${usernameKey(username)}@example.test`;
  const row = await t.ctx.db
    .insertInto('users')
    .values({ username, username_lower: usernameKey(username), email, password_hash: passwordHash, created_at: t.ctx.clock.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, email };
}

const storedHash = async (t: TestApp, id: number) =>
  (await t.ctx.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow()).password_hash;

const logIn = (t: TestApp, email: string, password: string, ip = '127.0.0.1') =>
  t.app.inject({ method: 'POST', url: '/login', payload: { email, password }, remoteAddress: ip });

forEachDialect('password hashes made with older settings', (dialect) => {
  describe('with argon2id', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    test('the settings: argon2id, 7 MiB, 5 passes, 1 lane; a hash with other settings needs making again', async () => {
      const hashing = t.ctx.passwords.hashing;
      const fresh = await hashing.hash(PASSWORD);
      assert.match(fresh, /^\$argon2id\$v=19\$m=7168,t=5,p=1\$/);
      assert.equal(hashing.needsRehash(fresh), false);
      assert.equal(hashing.needsRehash(await argon2Hash(PASSWORD, OLD_OPTIONS)), true);
      assert.equal(hashing.needsRehash(await argon2Hash(PASSWORD, { ...HASH_OPTIONS, algorithm: ARGON2I })), true, 'another variant');
      assert.equal(hashing.needsRehash('not a hash at all'), false, 'unreadable: it cannot verify, so there is nothing to replace');
    });

    test('login with an old hash: 200, and the stored hash is made again with the current settings, once', async () => {
      const old = await argon2Hash(PASSWORD, OLD_OPTIONS);
      const u = await insertWithHash(t, old);
      const first = await logIn(t, u.email, PASSWORD);
      assert.equal(first.statusCode, 200, first.body);
      const renewed = await storedHash(t, u.id);
      assert.notEqual(renewed, old);
      assert.match(renewed, /^\$argon2id\$v=19\$m=7168,t=5,p=1\$/);
      assert.ok(await argon2Verify(renewed, PASSWORD));

      assert.equal((await logIn(t, u.email, PASSWORD)).statusCode, 200);
      assert.equal(await storedHash(t, u.id), renewed, 'a current hash is left as it is');
    });

    test('a wrong password against an old hash: 401, and the old hash stays', async () => {
      const old = await argon2Hash(PASSWORD, OLD_OPTIONS);
      const u = await insertWithHash(t, old);
      assert.equal((await logIn(t, u.email, 'not the right passphrase at all', '10.9.0.1')).statusCode, 401);
      assert.equal(await storedHash(t, u.id), old);
    });

    test('a hash replaced meanwhile (a password change) is not overwritten by the renewal', async () => {
      const u = await insertWithHash(t, 'the hash as the login read it');
      await t.ctx.db.updateTable('users').set({ password_hash: 'the hash of a new password' }).where('id', '=', u.id).execute();
      await replacePasswordHash(t.ctx.db, u.id, 'the hash as the login read it', 'the renewed hash');
      assert.equal(await storedHash(t, u.id), 'the hash of a new password');
      await replacePasswordHash(t.ctx.db, u.id, 'the hash of a new password', 'the renewed hash');
      assert.equal(await storedHash(t, u.id), 'the renewed hash');
    });
  });

  describe('when the hash queue has no place for the renewal', () => {
    /** Verifies at once; hashes (registrations, renewals) wait while `holding`. */
    class HeldHashes implements PasswordHashing {
      holding = true;
      readonly waiting: Array<() => void> = [];
      async hash(password: string): Promise<string> {
        if (this.holding) await new Promise<void>((resolve) => this.waiting.push(resolve));
        return `fake$${password}`;
      }
      async verify(hash: string, password: string): Promise<boolean> {
        return hash === `old$${password}` || hash === `fake$${password}`;
      }
      needsRehash(hash: string): boolean {
        return !hash.startsWith('fake$');
      }
    }
    let t: TestApp;
    const hashing = new HeldHashes();
    before(async () => {
      // Two threads, nothing waits, one place kept for logins: other work (a registration, a renewal) has one place.
      t = await createTestApp(dialect, {
        config: { hashConcurrency: 2, hashQueue: { maxWaiting: 0, maxWaitMs: 60_000, perClient: 10, loginReserve: 1 } },
        deps: { passwordHashing: hashing },
      });
    });
    after(() => t.close());

    test('the login still succeeds and the old hash stays, for a later login to replace', async () => {
      const u = await insertWithHash(t, `old$${PASSWORD}`);
      const registering = t.app.inject({
        method: 'POST',
        url: '/register',
        payload: { username: uniqueName('busy'), email: `${uniqueName('busy')}@example.test`, password: PASSWORD },
        remoteAddress: '10.9.1.1',
      });
      await settled('the registration holds the one place for other work', () => hashing.waiting.length === 1);

      const busy = await logIn(t, u.email, PASSWORD, '10.9.1.2');
      assert.equal(busy.statusCode, 200, busy.body);
      assert.equal(await storedHash(t, u.id), `old$${PASSWORD}`);

      hashing.holding = false;
      for (const finish of hashing.waiting.splice(0)) finish();
      assert.equal((await registering).statusCode, 201);
      assert.equal((await logIn(t, u.email, PASSWORD, '10.9.1.2')).statusCode, 200);
      assert.equal(await storedHash(t, u.id), `fake$${PASSWORD}`);
    });
  });
});
