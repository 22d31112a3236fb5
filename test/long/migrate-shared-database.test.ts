// Many test runs (and, in production, other applications) share one
// PostgreSQL database, each in a schema of its own. Schemas appearing and
// vanishing beside ours must never fail our migration.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import pg from 'pg';
import { migrateToLatest } from '../../src/db/database.js';
import { openTestDatabase, PG_SKIP, PG_URL } from '../helpers/db.js';

describe('migrations beside other schemas being dropped', { skip: PG_URL ? false : PG_SKIP }, () => {
  test('40 migrations while other schemas are created and dropped all succeed', async () => {
    const churners = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const c = new pg.Client({ connectionString: PG_URL! });
        await c.connect();
        return c;
      }),
    );
    let stop = false;
    const churning = churners.map(async (churn) => {
      while (!stop) {
        const name = `churn_${randomBytes(5).toString('hex')}`;
        const tables = Array.from({ length: 20 }, (_, i) => `create table ${name}.t${i} (id serial primary key, v text);`).join('');
        await churn.query(`create schema ${name}; ${tables}`);
        await churn.query(`drop schema ${name} cascade`);
      }
    });
    try {
      for (let round = 0; round < 10; round++) {
        const dbs = await Promise.all(Array.from({ length: 4 }, () => openTestDatabase('postgres', { pgPoolSize: 2 })));
        try {
          await Promise.all(dbs.map((d) => migrateToLatest(d)));
          for (const d of dbs) {
            const row = await d.db
              .selectFrom('users')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow();
            assert.equal(Number(row.n), 0);
          }
        } finally {
          await Promise.all(dbs.map((d) => d.close()));
        }
      }
    } finally {
      stop = true;
      await Promise.all(churning);
      await Promise.all(churners.map((c) => c.end()));
    }
  });

  test('migrating twice is a no-op, and the bookkeeping lives in our schema', async () => {
    const d = await openTestDatabase('postgres', { pgPoolSize: 2 });
    try {
      await migrateToLatest(d);
      await migrateToLatest(d);
      const tables = await d.db.introspection.getTables({ withInternalKyselyTables: true });
      assert.ok(tables.every((t) => t.schema === d.pgSchema));
      assert.ok(tables.some((t) => t.name === 'kysely_migration'));
      assert.ok(tables.some((t) => t.name === 'users' && t.columns.some((c) => c.name === 'username')));
    } finally {
      await d.close();
    }
  });
});
