// npm run verify-log -- FILE_OR_URL
// Recomputes a user's record (the JSON of GET /record/user/{id}, from a file or
// a URL): chain links and hashes, the bets against their latest events, the
// head's inclusion proof, and (for a URL) the root published for that day.
import fs from 'node:fs';
import { verifyUserRecord } from '../src/domain/verify-record.js';
import type { UserRecord } from '../src/schemas/record.js';

const source = process.argv[2];
if (!source) {
  console.error('usage: npm run verify-log -- FILE_OR_URL   (the JSON of GET /record/user/{id})');
  process.exit(2);
}
const isUrl = /^https?:\/\//.test(source);
const record = (isUrl ? await (await fetch(source)).json() : JSON.parse(fs.readFileSync(source, 'utf8'))) as UserRecord;
let published: string | undefined;
if (isUrl && record.proof) {
  const day = await fetch(new URL(`/record/days/${record.proof.date}`, source));
  if (day.ok) published = ((await day.json()) as { root: string }).root;
}
const problems = verifyUserRecord(record, published);
if (problems.length === 0) {
  console.log(
    `OK: user ${record.user_id}, ${record.entries.length} entries, ${record.bets.length} bets` +
      (record.proof ? `, head in the root of ${record.proof.date}` : ', no published day yet'),
  );
} else {
  console.log(`FAILED: ${problems.length} problem(s) in the record of user ${record.user_id}`);
  for (const p of problems) console.log(`- ${p}`);
  process.exit(1);
}
