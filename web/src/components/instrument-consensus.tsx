// An instrument's skill-weighted consensus (GET /instruments/{symbol}/consensus)
// and its calls' track record, for the instrument page: the weighted figure
// first, the raw counts labelled as raw, and how the past calls did, so a
// reader can judge whether the consensus is worth anything.
import { useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { countOf, formatDateTime, formatGain, formatPrice, gainClass } from '../lib/format';
import { type Column, TableHead } from './table-cells';
import { ErrorState, Loading } from './status';

type Consensus = Schemas['ConsensusResponse'];
type ConsensusCall = Schemas['ConsensusCall'];

function useConsensus(symbol: string) {
  return useQuery({
    queryKey: queryKeys.consensus(symbol),
    queryFn: () => call(api.GET('/instruments/{symbol}/consensus', { params: { path: { symbol } } })),
    // The server shares an answer for cached_seconds (30 s): asking more often shows nothing new.
    staleTime: 30_000,
    refetchInterval: 60_000,
    retry: false,
  });
}

const CALL_LABEL = { long: 'Long', short: 'Short', none: 'No call' } as const;

function CallTag({ value }: { value: ConsensusCall['call'] }) {
  return <span className={value === 'none' ? 'muted' : gainClass(value === 'long' ? 1 : -1)}>{CALL_LABEL[value]}</span>;
}

function WeightedLine({ c }: { c: Consensus }) {
  const w = c.weighted;
  if (w.long_percent === null) {
    return (
      <p className="muted" data-testid="consensus-weighted">
        Not enough skilled holders yet: {countOf(w.holders, 'holder')} with positive ranked skill, {c.min_weighted_holders} needed.
      </p>
    );
  }
  return (
    <p data-testid="consensus-weighted">
      <strong>
        <CallTag value={w.call} />
      </strong>{' '}
      · {w.long_percent.toFixed(1)}% long, {(100 - w.long_percent).toFixed(1)}% short by skill, from {countOf(w.holders, 'skilled holder')}
    </p>
  );
}

const COLUMNS: readonly Column[] = [['Close'], ['Call'], ['Price', true], ['Next close', true], ['Move', true]];

function RecentCalls({ calls }: { calls: ConsensusCall[] }) {
  return (
    <table className="table responsive" data-testid="consensus-calls">
      <TableHead columns={COLUMNS} />
      <tbody>
        {calls.map((r) => (
          <tr key={r.close_at}>
            <td data-label="Close">{formatDateTime(r.close_at)}</td>
            <td data-label="Call">
              <CallTag value={r.call} />
            </td>
            <td data-label="Price" className="num right">
              {formatPrice(r.close_price)}
            </td>
            <td data-label="Next close" className="num right">
              {r.next_price === null ? 'pending' : formatPrice(r.next_price)}
            </td>
            <td data-label="Move" className="num right">
              {r.move_percent === null ? '—' : <span className={gainClass(r.move_percent)}>{formatGain(r.move_percent)}</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function InstrumentConsensus({ symbol }: { symbol: string }) {
  const q = useConsensus(symbol);
  if (q.isPending) return <Loading label="Loading the consensus…" />;
  if (q.isError) return <ErrorState error={q.error} retry={() => void q.refetch()} />;
  const c = q.data;
  const r = c.record;
  return (
    <section className="consensus" aria-labelledby="consensus-heading" data-testid="consensus">
      <h3 id="consensus-heading">Skill-weighted consensus</h3>
      <WeightedLine c={c} />
      <p className="muted" data-testid="consensus-raw">
        Raw holders (every account counts one, skilled or not): {c.raw.long} long · {c.raw.short} short
      </p>
      <div className="stat-grid" data-testid="consensus-record">
        <div className="stat">
          <span className="stat-label">Calls scored</span>
          <span className="stat-value">{r.calls}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Hit rate</span>
          <span className="stat-value">{r.hit_rate === null ? '—' : `${r.hit_rate.toFixed(1)}%`}</span>
          <span className="stat-sub">{countOf(r.hits, 'hit')}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Avg next-day move</span>
          <span className={`stat-value ${r.average_move_percent === null ? '' : gainClass(r.average_move_percent)}`}>
            {r.average_move_percent === null ? '—' : formatGain(r.average_move_percent)}
          </span>
          <span className="stat-sub">in the called direction</span>
        </div>
      </div>
      {r.recent.length > 0 && <RecentCalls calls={r.recent} />}
      <p className="muted">
        Each holder weighs their ranked skill over {c.skill_period} (zero if not positive); a call is stored at every close and scored at the next.
        Updated every {c.cached_seconds} s.
      </p>
    </section>
  );
}
