// npm run verify-log -- FILE_OR_URL [SERVICE_URL]
// Recomputes a user's record (the JSON of GET /record/user/{id}, from a file or
// a URL): chain links and hashes, the bets against their latest events, the
// head's inclusion proof, and (for a URL) the root published for that day.
// Also accepts a finished league's proof (GET /leagues/{id}/proof): the
// board's hash, its inclusion in the day's root, and each member's row
// recounted from that member's record, fetched from the service (the URL's,
// or SERVICE_URL for a file).
import fs from 'node:fs';
import { verifyLeagueProof } from '../src/domain/league-record.js';
import { verifyUserRecord } from '../src/domain/verify-record.js';
import type { LeagueProof } from '../src/schemas/leagues.js';
import type { UserRecord } from '../src/schemas/record.js';

const source = process.argv[2];
if (!source) {
  console.error('usage: npm run verify-log -- FILE_OR_URL [SERVICE_URL]   (the JSON of GET /record/user/{id} or GET /leagues/{id}/proof)');
  process.exit(2);
}
const isUrl = /^https?:\/\//.test(source);
const service = isUrl ? source : process.argv[3];
const document = (isUrl ? await (await fetch(source)).json() : JSON.parse(fs.readFileSync(source, 'utf8'))) as UserRecord | LeagueProof;

async function getJson<T>(path: string): Promise<T | undefined> {
  if (!service) return undefined;
  const res = await fetch(new URL(path, service));
  return res.ok ? ((await res.json()) as T) : undefined;
}
const publishedRoot = async (date: string) => (await getJson<{ root: string }>(`/record/days/${date}`))?.root;

function report(problems: string[], ok: string, failed: string): void {
  if (problems.length === 0) {
    console.log(`OK: ${ok}`);
    return;
  }
  console.log(`FAILED: ${problems.length} problem(s) in ${failed}`);
  for (const p of problems) console.log(`- ${p}`);
  process.exit(1);
}

if ('kind' in document && document.kind === 'league-board') {
  const proof = document;
  const problems: string[] = [];
  const records = new Map<number, UserRecord>();
  for (const head of proof.document.heads) {
    const record = await getJson<UserRecord>(`/record/user/${head.user_id}`);
    if (record) records.set(head.user_id, record);
    else if (service) problems.push(`member ${head.user_id}: the record could not be fetched`);
  }
  const root = await publishedRoot(proof.proof.date);
  if (service && root === undefined) problems.push(`the root of ${proof.proof.date} could not be fetched`);
  problems.push(...verifyLeagueProof(proof, { publishedRoot: root, records, verifyRecord: (r) => verifyUserRecord(r) }));
  const checked = service ? `${records.size} member records checked` : "members' records not checked (give the service's address after the file)";
  report(
    problems,
    `league ${proof.document.league.id}, ${proof.document.board.length} members, board in the root of ${proof.proof.date}, ${checked}`,
    `the proof of league ${proof.document.league.id}`,
  );
} else {
  const record = document as UserRecord;
  const published = isUrl && record.proof ? await publishedRoot(record.proof.date) : undefined;
  report(
    verifyUserRecord(record, published),
    `user ${record.user_id}, ${record.entries.length} entries, ${record.bets.length} bets` +
      (record.proof ? `, head in the root of ${record.proof.date}` : ', no published day yet'),
    `the record of user ${record.user_id}`,
  );
}
