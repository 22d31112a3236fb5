// A trader's statistics (GET /user/{id}/stats) and their cumulative-gain curve.
import { BaselineSeries, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { TraderStats as TraderStatsAnswer } from '../api/client';
import { useTraderStats } from '../api/queries';
import { cssVar, useThemedChart } from '../lib/chart-theme';
import { gainCurvePoints } from '../lib/curve';
import { countOf, formatDuration, formatGain, formatPoints, formatRate } from '../lib/format';
import { Gain } from './gain';
import { Empty, ErrorState, Loading } from './status';

export type TraderStatsData = TraderStatsAnswer;

function Stat({ id, label, children, sub }: { id: string; label: string; children: ReactNode; sub?: ReactNode }) {
  return (
    <div className="stat" data-testid={`stat-${id}`}>
      <span className="stat-label">{label}</span>
      <span className="stat-value">{children}</span>
      {sub !== undefined && <span className="stat-sub">{sub}</span>}
    </div>
  );
}

/** How the followers who tailed this trader's bets fared, in words. */
function tailersNote(t: TraderStatsData['tailers']): string {
  if (t.tails === 0) return 'nobody tailed a bet yet';
  if (t.closed === 0) return `${countOf(t.tails, 'tail')}, none closed yet`;
  return `${t.closed} of ${countOf(t.tails, 'tail')} closed, ${formatRate(t.win_rate)} won`;
}

/**
 * How a trader trades, for anyone to see: closes made before the committed
 * instant (while the bet could still be cancelled, so riskless), cancels, and
 * how long bets are held.
 */
function TradingHabits({ s }: { s: TraderStatsData }) {
  return (
    <section aria-labelledby="habits-heading" data-testid="stats-habits">
      <h3 id="habits-heading">How they trade</h3>
      <div className="stat-grid">
        <Stat
          id="early-closes"
          label="Closed before committed"
          sub={s.early_close_share === undefined ? undefined : `${formatRate(s.early_close_share)} of closes, inside the cancel window`}
        >
          <span className="num">{s.early_closes ?? '—'}</span>
        </Stat>
        <Stat id="cancel-rate" label="Cancel rate" sub={`${s.cancelled_trades} of ${s.opened_trades} opened`}>
          <span className="num">{formatRate(s.cancel_rate)}</span>
        </Stat>
        <Stat id="holding" label="Median holding">
          <span className="num">{formatDuration(s.median_holding_seconds)}</span>
        </Stat>
      </div>
    </section>
  );
}

/** Everything of the statistics, with the curve; `self` words the empty state for the caller. */
export function TraderStats({ userId, self = false }: { userId: number; self?: boolean }) {
  const stats = useTraderStats(userId);
  if (stats.isPending) return <Loading label="Loading statistics…" />;
  if (stats.isError) return <ErrorState error={stats.error} retry={() => void stats.refetch()} />;
  const s = stats.data;
  const counts = (
    <p className="muted small" data-testid="stats-counts">
      <span className="num">{s.opened_trades}</span> opened in all: <span className="num">{s.open_trades}</span> open,{' '}
      <span className="num">{s.closed_trades}</span> closed, <span className="num">{s.cancelled_trades}</span> cancelled.
    </p>
  );
  if (s.closed_trades === 0) {
    return (
      <div data-testid="trader-stats">
        <Empty>
          {self ? (
            <>
              No closed trades yet: your statistics and gain curve start with your first closed bet. <Link to="/portfolio">See your open bets</Link>.
            </>
          ) : (
            'No closed trades yet: statistics and the gain curve start with the first closed bet.'
          )}
        </Empty>
        {s.opened_trades > 0 && (
          <>
            {counts}
            <TradingHabits s={s} />
          </>
        )}
      </div>
    );
  }
  const t = s.tailers;
  return (
    <div data-testid="trader-stats">
      <section aria-labelledby="ranked-heading" data-testid="stats-ranked">
        <h3 id="ranked-heading">Ranked</h3>
        <p className="muted small">
          Scored from each bet's committed price, once its cancel window has ended, to its exit; closes inside the window and cancels are not ranked.{' '}
          <Link to="/scoring">How scoring works</Link>
        </p>
        <div className="stat-grid">
          {s.ranked_trades !== undefined && (
            <Stat id="ranked" label="Ranked trades" sub={`${s.wins} won`}>
              <span className="num">{s.ranked_trades}</span>
            </Stat>
          )}
          <Stat id="win-rate" label="Ranked win rate">
            <span className="num">{formatRate(s.win_rate)}</span>
          </Stat>
          <Stat id="total" label="Ranked total gain">
            <Gain value={s.total_gain} />
          </Stat>
          {(
            [
              ['average', 'Ranked average gain', s.average_gain],
              ['median', 'Ranked median gain', s.median_gain],
              ['best', 'Best ranked trade', s.best_gain],
              ['worst', 'Worst ranked trade', s.worst_gain],
            ] as const
          ).map(([id, label, value]) => (
            <Stat key={id} id={id} label={label}>
              {value === null ? <span className="muted">—</span> : <Gain value={value} />}
            </Stat>
          ))}
          <Stat id="drawdown" label="Ranked max drawdown" sub="largest fall from a peak">
            <span className={`num ${s.max_drawdown > 0 ? 'gain-down' : 'gain-flat'}`}>{formatPoints(-s.max_drawdown)}</span>
          </Stat>
          <Stat id="tailers" label="Tailers' average" sub={tailersNote(t)}>
            {t.closed === 0 ? <span className="muted">—</span> : <Gain value={t.average_gain ?? 0} />}
          </Stat>
        </div>
      </section>
      <section aria-labelledby="raw-heading" data-testid="stats-raw">
        <h3 id="raw-heading">Raw</h3>
        <p className="muted small">Every close counted, entry to exit, as the API's /leaderboard counts it.</p>
        <div className="stat-grid">
          <Stat id="closed" label="Raw closed trades" sub={s.raw ? `${s.raw.wins} won` : undefined}>
            <span className="num">{s.closed_trades}</span>
          </Stat>
          {s.raw && (
            <>
              <Stat id="raw-win-rate" label="Raw win rate">
                <span className="num">{formatRate(s.raw.win_rate)}</span>
              </Stat>
              <Stat id="raw-total" label="Raw total gain">
                <Gain value={s.raw.total_gain} />
              </Stat>
              <Stat id="raw-average" label="Raw average gain">
                {s.raw.average_gain === null ? <span className="muted">—</span> : <Gain value={s.raw.average_gain} />}
              </Stat>
            </>
          )}
        </div>
      </section>
      <TradingHabits s={s} />
      {counts}
      <GainCurve curve={s.curve} />
    </div>
  );
}

function curveColors() {
  const up = cssVar('--up');
  const down = cssVar('--down');
  return {
    topLineColor: up,
    topFillColor1: `${up}44`,
    topFillColor2: `${up}08`,
    bottomLineColor: down,
    bottomFillColor1: `${down}08`,
    bottomFillColor2: `${down}44`,
  };
}

/** The cumulative gain after each closed bet, green above zero and red below. */
export function GainCurve({ curve }: { curve: TraderStatsData['curve'] }) {
  const { container, chart, series } = useThemedChart(
    (c) =>
      c.addSeries(BaselineSeries, {
        baseValue: { type: 'price', price: 0 },
        lineWidth: 2,
        priceFormat: { type: 'custom', formatter: (p: number) => formatGain(p), minMove: 0.01 },
      }),
    curveColors,
  );
  const points = useMemo(() => gainCurvePoints(curve), [curve]);
  useEffect(() => {
    if (!series.current) return;
    series.current.setData(points.map((p) => ({ time: p.time as UTCTimestamp, value: p.value })));
    chart.current?.timeScale().fitContent();
    // series and chart are the hook's refs, the same objects on every render: listing them re-runs nothing.
  }, [points, series, chart]);
  const last = curve[curve.length - 1];
  return (
    <section className="chart-card" aria-label="Cumulative ranked gain chart">
      <div className="chart-caption">
        <h3>Cumulative ranked gain</h3>
        <span className="muted small">after each ranked bet{last && <>, now {formatGain(last.value)}</>}</span>
      </div>
      <div className="chart-box chart-box-short">
        <div ref={container} className="chart" data-testid="gain-curve" data-points={points.length} />
      </div>
    </section>
  );
}

/** A few numbers of the caller's own statistics, linking to the full view on their profile. */
export function StatsSummary({ userId }: { userId: number }) {
  const stats = useTraderStats(userId);
  // Nothing to sum up before the first closed bet.
  if (!stats.data || stats.data.closed_trades === 0) return null;
  const s = stats.data;
  return (
    <div className="summary card" data-testid="stats-summary">
      <div className="summary-items">
        <span>
          <span className="muted">Closed</span> <strong className="num">{s.closed_trades}</strong>
        </span>
        <span>
          <span className="muted">Ranked win rate</span> <strong className="num">{formatRate(s.win_rate)}</strong>
        </span>
        <span>
          <span className="muted">Ranked total</span> <Gain value={s.total_gain} />
        </span>
        <span>
          <span className="muted">Max drawdown</span> <strong className="num">{formatPoints(-s.max_drawdown)}</strong>
        </span>
      </div>
      <Link to={`/user/${userId}#statistics`}>All your statistics</Link>
    </div>
  );
}
