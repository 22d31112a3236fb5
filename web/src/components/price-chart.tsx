// A price chart (TradingView lightweight-charts) that follows the page theme.
import { AreaSeries, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, useState } from 'react';
import { Link, useLocation } from 'react-router-dom';
import type { HistoryRange, PricePoint } from '../api/charts';
import { ApiError } from '../api/client';
import { usePriceHistory } from '../api/queries';
import { cssVar, useThemedChart } from '../lib/chart-theme';
import { formatDateTime, formatPrice } from '../lib/format';
import { ErrorState, Loading } from './status';

const RANGES = [
  { value: '1d', label: '1D' },
  { value: '5d', label: '5D' },
  { value: '1m', label: '1M' },
  { value: '3m', label: '3M' },
  { value: '1y', label: '1Y' },
] as const satisfies readonly { value: HistoryRange; label: string }[];

function seriesColors() {
  const accent = cssVar('--accent');
  return { lineColor: accent, topColor: `${accent}55`, bottomColor: `${accent}05` };
}

interface Props {
  ticker: string;
  /** Only points in [since, until] (a bet's chart from opening to its end). */
  since?: string | null;
  until?: string | null;
  entryPrice?: number;
  initialRange?: HistoryRange;
}

export function PriceChart({ ticker, since, until, entryPrice, initialRange = '1d' }: Props) {
  const [range, setRange] = useState<HistoryRange>(initialRange);
  const history = usePriceHistory(ticker, range);
  return (
    <PriceChartView
      ticker={ticker}
      range={range}
      onRange={setRange}
      data={history.data}
      pending={history.isPending}
      error={history.isError ? history.error : null}
      retry={() => void history.refetch()}
      since={since}
      until={until}
      entryPrice={entryPrice}
    />
  );
}

interface ViewProps {
  ticker: string;
  range: HistoryRange;
  onRange: (range: HistoryRange) => void;
  /** The points to draw, fetched by the caller (so a headline can come from the same answer). */
  data: PricePoint[] | undefined;
  pending: boolean;
  error: unknown;
  retry: () => void;
  since?: string | null;
  until?: string | null;
  entryPrice?: number;
}

/** The chart of points someone else fetched, with its range buttons. */
export function PriceChartView({ ticker, range, onRange, data, pending, error, retry, since, until, entryPrice }: ViewProps) {
  const here = useLocation();
  const { container, chart, series } = useThemedChart((c) => c.addSeries(AreaSeries, { lineWidth: 2 }), seriesColors);

  const points = useMemo(() => {
    if (!data) return null;
    const from = since ? Math.floor(Date.parse(since) / 1000) : -Infinity;
    const to = until ? Math.ceil(Date.parse(until) / 1000) : Infinity;
    return data.filter((p) => p.time >= from && p.time <= to);
  }, [data, since, until]);

  // The axis and crosshair labels read prices as the page does (thousands separators, small prices to 6 places).
  useEffect(() => {
    chart.current?.applyOptions({ localization: { priceFormatter: formatPrice } });
  }, [chart]);

  useEffect(() => {
    if (!series.current || !points) return;
    series.current.setData(points.map((p) => ({ time: p.time as UTCTimestamp, value: p.price })));
    const lines =
      entryPrice !== undefined
        ? [series.current.createPriceLine({ price: entryPrice, color: cssVar('--text-muted'), lineWidth: 1, lineStyle: 2, title: 'entry' })]
        : [];
    chart.current?.timeScale().fitContent();
    return () => {
      for (const l of lines) series.current?.removePriceLine(l);
    };
    // series and chart are the hook's refs, the same objects on every render: listing them re-runs nothing.
  }, [points, entryPrice, series, chart]);

  const last = points?.at(-1);
  return (
    <section className="chart-card" aria-label={`${ticker} price chart`}>
      <fieldset className="chart-toolbar" aria-label="Chart range">
        {RANGES.map((r) => (
          <button
            key={r.value}
            type="button"
            className={`btn btn-small ${range === r.value ? 'btn-active' : ''}`}
            aria-pressed={range === r.value}
            onClick={() => onRange(r.value)}
          >
            {r.label}
          </button>
        ))}
      </fieldset>
      <div className="chart-box">
        <div ref={container} className="chart" data-testid="price-chart" />
        {pending && (
          <div className="chart-overlay">
            <Loading label="Loading chart…" />
          </div>
        )}
        {points?.length === 0 && (
          <div className="chart-overlay">
            <p className="muted">No prices in this range (the market may be closed): try a longer one.</p>
          </div>
        )}
        {error ? (
          <div className="chart-overlay">
            {error instanceof ApiError && error.status === 401 ? (
              <p className="muted">
                <Link to={`/login?next=${encodeURIComponent(here.pathname + here.search)}`}>Log in</Link> to see the price chart.
              </p>
            ) : (
              <ErrorState error={error} retry={retry} />
            )}
          </div>
        ) : null}
      </div>
      {/* The canvas says nothing to a screen reader: its last point in words. */}
      {last && (
        <p className="sr-only" data-testid="chart-last-point">
          Last point: {formatPrice(last.price)} at {formatDateTime(new Date(last.time * 1000).toISOString())}
        </p>
      )}
    </section>
  );
}
