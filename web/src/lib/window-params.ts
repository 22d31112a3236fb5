// The leaderboard's and the rankings' window (period, minimum of trades),
// kept in the URL query so a view is a link and Back steps through changes.
import { useSearchParams } from 'react-router-dom';

export const PERIODS = ['7d', '30d', '90d', '365d', 'all'] as const;
export type Period = (typeof PERIODS)[number];

export const PERIOD_LABELS: Record<Period, string> = { '7d': '7 days', '30d': '30 days', '90d': '90 days', '365d': '1 year', all: 'All time' };

export const MAX_MIN_TRADES = 1_000_000;

export interface WindowParams {
  /** null: no window (the leaderboard's all-time board, SPEC's). */
  period: Period | null;
  /** null: no minimum asked for (the API's default applies). */
  minTrades: number | null;
}

function isPeriod(v: string | null): v is Period {
  return v !== null && (PERIODS as readonly string[]).includes(v);
}

/** Reads the window from a query; anything malformed falls back to the defaults. */
export function parseWindow(params: URLSearchParams, defaults: WindowParams): WindowParams {
  const period = params.get('period');
  const raw = params.get('min_trades');
  const n = raw !== null && /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  return {
    period: isPeriod(period) ? period : defaults.period,
    minTrades: Number.isInteger(n) && n >= 1 && n <= MAX_MIN_TRADES ? n : defaults.minTrades,
  };
}

/** Writes the window into a query, leaving out what equals the default so plain links stay plain. */
export function writeWindow(params: URLSearchParams, next: WindowParams, defaults: WindowParams): URLSearchParams {
  const copy = new URLSearchParams(params);
  if (next.period === defaults.period || next.period === null) copy.delete('period');
  else copy.set('period', next.period);
  if (next.minTrades === defaults.minTrades || next.minTrades === null) copy.delete('min_trades');
  else copy.set('min_trades', String(next.minTrades));
  return copy;
}

/** The window in the URL, and a setter that adds a history entry per change. */
export function useWindowParams(defaults: WindowParams): [WindowParams, (next: Partial<WindowParams>) => void] {
  const [params, setParams] = useSearchParams();
  const current = parseWindow(params, defaults);
  const set = (next: Partial<WindowParams>) => setParams((p) => writeWindow(p, { ...parseWindow(p, defaults), ...next }, defaults));
  return [current, set];
}
