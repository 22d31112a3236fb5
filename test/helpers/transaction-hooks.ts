// Run as a child of test/unit/transaction-hooks.test.ts, away from node:test,
// which keeps promise hooks of its own on: prints whether a promise hook is on
// before, during and after transactions of an in-memory database.
import { AsyncLocalStorage, executionAsyncResource } from 'node:async_hooks';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';

// With a promise hook on, a promise's continuation runs with the promise as its resource.
async function hooked(): Promise<boolean> {
  await null;
  return executionAsyncResource() instanceof Promise;
}

const database = openDatabase({ dialect: 'sqlite', path: ':memory:' }, { durable: false });
const seen: Record<string, boolean[]> = { before: [await hooked()], inside: [], after: [] };
for (let round = 0; round < 2; round++) {
  await Promise.all(
    [1, 2].map((n) =>
      database.transaction(async (trx) => {
        await sql`select ${n}`.execute(trx);
        seen.inside!.push(await hooked());
      }),
    ),
  );
  seen.after!.push(await hooked());
}
await database.db.destroy();
// Whether this Node's AsyncLocalStorage hooks promises at all (Node 20 does;
// from Node 24 it keeps its stores without them): asked last, as it turns the hook on.
const bare = new AsyncLocalStorage<object>();
const alsHooksPromises = await bare.run({}, hooked);
console.log(JSON.stringify({ ...seen, alsHooksPromises }));
