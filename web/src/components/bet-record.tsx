// A bet's entries in its owner's verifiable record, and the proof that the
// chain head is in the day's published Merkle root, checked in the browser.
import { useRecordCheck, useRecordDay, useRecordHead, useUserRecord } from '../api/queries';
import { formatDateTime } from '../lib/format';
import { canVerifyHere, type RecordCheck, type RecordEntry, shortHash, type UserRecord, verdictOf } from '../lib/record-proof';
import { ErrorState, Loading } from './status';

const KIND: Record<RecordEntry['event']['kind'], string> = {
  opened: 'Opened',
  committed: 'Committed',
  closed: 'Closed',
  cancelled: 'Cancelled',
  settled: 'Settled',
};

function Hash({ value, label }: { value: string; label?: string }) {
  return (
    <code className="hash" title={value}>
      {/* The short form is for the eye; a screen reader gets the whole hash and what it is. */}
      <span aria-hidden="true">{shortHash(value)}</span>
      <span className="sr-only">{label ? `${label} ${value}` : value}</span>
    </code>
  );
}

const seqList = (entries: RecordEntry[]) => entries.map((e) => `#${e.seq}`).join(', ');
const dayOf = (iso: string) => iso.slice(0, 10);

export function BetRecord({ betId, userId, username }: { betId: number; userId: number; username: string }) {
  const record = useUserRecord(userId, { refetchInterval: 30_000 });
  const proofDate = record.data?.proof?.date ?? null;
  // The day's root as published on its own: the proof must reach that very root.
  const day = useRecordDay(proofDate);
  const head = useRecordHead();
  const verifiable = canVerifyHere();
  const ready = record.data !== undefined && (proofDate === null || day.data !== undefined);
  const check = useRecordCheck(betId, userId, record.data, day.data?.root, ready && verifiable);

  return (
    <section className="card record-card" aria-labelledby="record-heading" data-testid="bet-record">
      <div className="record-head">
        <h2 id="record-heading">Verifiable record</h2>
        {check.data && <Verdict check={check.data} />}
        {ready && !verifiable && <span className="badge badge-info">Not checked here</span>}
        {verifiable && !check.data && !record.isError && !day.isError && !check.isError && <span className="badge badge-info">Checking…</span>}
      </div>
      {record.isPending && <Loading label="Loading the record…" />}
      {record.isError && <ErrorState error={record.error} retry={() => void record.refetch()} />}
      {day.isError && <ErrorState error={day.error} retry={() => void day.refetch()} />}
      {check.isError && <ErrorState error={check.error} />}
      {ready && !verifiable && (
        <p className="alert alert-info" role="status">
          This browser offers SHA-256 to pages only over HTTPS, so the proof is not checked here. Open this page over HTTPS to check it, or check the{' '}
          <a href={recordUrl(userId)}>record itself</a> with any SHA-256 tool.
        </p>
      )}
      {record.data && check.data && <Explanation record={record.data} check={check.data} username={username} latestDay={head.data?.date ?? null} />}
      {check.data?.thesis === 'committed' && (
        <p className="small" data-testid="record-thesis">
          The thesis shown is the one committed in the opening entry: SHA-256 of its salt and text is that entry's thesis hash. It binds once the root
          of the opening's day is published.
        </p>
      )}
      {record.data && <Entries entries={record.data.entries.filter((e) => e.event.bet_id === betId)} headSeq={record.data.proof?.leaf.seq ?? 0} />}
      {record.data?.proof && <ProofDetails proof={record.data.proof} recomputed={check.data?.recomputedRoot ?? null} />}
      <p className="muted small">
        Each event of a bet is appended to its owner's hash chain; after each UTC day a Merkle root over every chain head is published. The{' '}
        <a href={recordUrl(userId)}>whole record</a> is public: anyone can download it and check it on their own.
      </p>
    </section>
  );
}

function recordUrl(userId: number): string {
  return `${window.location.origin}/record/user/${userId}`;
}

function Verdict({ check }: { check: RecordCheck }) {
  const v = verdictOf(check);
  if (v === 'verified')
    return (
      <span className="badge badge-ok" data-testid="record-verdict">
        ✓ Verified
      </span>
    );
  if (v === 'failed')
    return (
      <span className="badge badge-error" data-testid="record-verdict">
        ✗ Does not verify
      </span>
    );
  return (
    <span className="badge badge-info" data-testid="record-verdict">
      Not yet published
    </span>
  );
}

function Explanation({ record, check, username, latestDay }: { record: UserRecord; check: RecordCheck; username: string; latestDay: string | null }) {
  const v = verdictOf(check);
  const proof = record.proof;
  const pendingDay = check.pending.length > 0 ? dayOf(check.pending[0].event.at) : null;
  const waiting =
    pendingDay !== null ? (
      <>
        {' '}
        {check.pending.length === 1 ? 'Entry' : 'Entries'} {seqList(check.pending)} came after that head: the root of{' '}
        <span className="num">{pendingDay}</span>, published once that UTC day has ended, will include {check.pending.length === 1 ? 'it' : 'them'}.
      </>
    ) : null;
  if (v === 'failed') {
    return (
      <div className="alert alert-error" role="alert" data-testid="record-problems">
        <span>This bet's record does not verify:</span>
        <ul>
          {check.entries.length === 0 && <li>the bet has no entry in its owner's record</li>}
          {check.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
          {check.betMismatch.map((f) => (
            <li key={f}>the bet's {f.replace('_', ' ')} differs from its latest recorded event</li>
          ))}
          {check.thesis === 'mismatch' && <li>the thesis shown is not the one committed in the opening entry</li>}
        </ul>
      </div>
    );
  }
  if (v === 'verified' && proof) {
    return (
      <p className="alert alert-ok" role="status">
        <span>
          Checked in this browser: {check.covered.length === 1 ? 'entry' : 'entries'} {seqList(check.covered)} of {username}'s chain link up to its
          head, entry #{proof.leaf.seq}, which is leaf <span className="num">{proof.leaf_index + 1}</span> of{' '}
          <span className="num">{proof.tree_size}</span> in the Merkle root published for <span className="num">{proof.date}</span>.{waiting}
        </span>
      </p>
    );
  }
  return (
    <p className="alert alert-info" role="status" data-testid="record-unpublished">
      <span>
        The root that will hold this bet is not published yet: each UTC day's root is published once the day has ended
        {pendingDay ? (
          <>
            , so this bet's entries go into the root of <span className="num">{pendingDay}</span>
          </>
        ) : null}
        {latestDay ? (
          <>
            {' '}
            (the latest published is <span className="num">{latestDay}</span>)
          </>
        ) : null}
        .{' '}
        {proof
          ? `${username}'s chain checks out in this browser up to its published head, entry #${proof.leaf.seq}.`
          : `${username}'s chain checks out in this browser.`}
      </span>
    </p>
  );
}

function Entries({ entries, headSeq }: { entries: RecordEntry[]; headSeq: number }) {
  if (entries.length === 0) return null;
  return (
    <table className="table responsive record-entries" data-testid="record-entries">
      <thead>
        <tr>
          <th scope="col">Entry</th>
          <th scope="col">Event</th>
          <th scope="col">At</th>
          <th scope="col">Hash</th>
          <th scope="col">Previous</th>
          <th scope="col">Root</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.seq}>
            <td data-label="Entry" className="num">
              #{e.seq}
            </td>
            <td data-label="Event">
              {/* A kind newer than this page is named as the record names it. */}
              {KIND[e.event.kind] ?? e.event.kind}
              {e.event.kind === 'committed' && e.event.committed_price != null && <span className="muted num"> (at {e.event.committed_price})</span>}
              {e.event.percentage_gain !== null && <span className="muted num"> ({e.event.percentage_gain.toFixed(2)}%)</span>}
            </td>
            {/* The event's own instant (a late settlement's is its due instant); entries of the first format have only `at`. */}
            <td data-label="At">{formatDateTime(e.event.event_at ?? e.event.at)}</td>
            <td data-label="Hash">
              <Hash value={e.hash} label={`Entry ${e.seq} hash`} />
            </td>
            <td data-label="Previous">
              <Hash value={e.prev_hash} label={`Entry ${e.seq} previous hash`} />
            </td>
            <td data-label="Root">{e.seq <= headSeq ? <span className="gain-up">published</span> : <span className="muted">pending</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ProofDetails({ proof, recomputed }: { proof: NonNullable<UserRecord['proof']>; recomputed: string | null }) {
  return (
    <details className="proof">
      <summary>Inclusion proof of the chain head in the root of {proof.date}</summary>
      <dl className="proof-list">
        <dt>Chain head</dt>
        <dd>
          entry #{proof.leaf.seq} <Hash value={proof.leaf.hash} label="Chain head hash" />
        </dd>
        <dt>Leaf</dt>
        <dd className="num">
          {proof.leaf_index + 1} of {proof.tree_size}
        </dd>
        <dt>Audit path</dt>
        <dd>
          {proof.path.length === 0 ? (
            <span className="muted">none (the only leaf)</span>
          ) : (
            <ol className="proof-path">
              {proof.path.map((h) => (
                <li key={h}>
                  <Hash value={h} />
                </li>
              ))}
            </ol>
          )}
        </dd>
        <dt>Published root</dt>
        <dd>
          <Hash value={proof.root} label="Published root" />
        </dd>
        <dt>Recomputed here</dt>
        <dd>{recomputed ? <Hash value={recomputed} label="Recomputed root" /> : <span className="muted">—</span>}</dd>
      </dl>
    </details>
  );
}
