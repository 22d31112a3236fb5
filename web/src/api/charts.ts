import { api, call, type Schemas } from './client';

export type HistoryRange = '1d' | '5d' | '1m' | '3m' | '1y';

export interface PricePoint {
  time: number; // epoch seconds, as the chart wants it
  price: number;
}

export async function fetchPriceHistory(ticker: string, range: HistoryRange): Promise<PricePoint[]> {
  const body: Schemas['PriceHistoryResponse'] = await call(api.GET('/price/{ticker}/history', { params: { path: { ticker }, query: { range } } }));
  const points = body.points.map((p) => ({ time: Math.floor(Date.parse(p.t) / 1000), price: p.price }));
  // The chart needs strictly increasing times.
  return points.filter((p, i) => i === 0 || p.time > points[i - 1].time);
}

const DAY = 86_400_000;

/** The shortest range that reaches back to `fromIso` (a bet's chart since opening). */
export function rangeCovering(fromIso: string, now = Date.now()): HistoryRange {
  const age = now - Date.parse(fromIso);
  if (!(age < DAY)) {
    if (age < 5 * DAY) return '5d';
    if (age < 30 * DAY) return '1m';
    if (age < 90 * DAY) return '3m';
    return '1y';
  }
  return '1d';
}
