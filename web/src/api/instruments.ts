// The instrument directory and one instrument with its chart (GET /instruments,
// GET /instruments/{symbol}).
import type { HistoryRange, PricePoint } from './charts';
import { api, call, type Schemas } from './client';

export type Instrument = Schemas['Instrument'];

export async function searchInstruments(q: string, limit: number): Promise<Schemas['InstrumentListResponse']> {
  return call(api.GET('/instruments', { params: { query: { q, limit } } }));
}

/** One answer: the instrument (its quote is the headline) and the chart points, whose last one is that quote. */
export interface InstrumentChart {
  instrument: Instrument;
  points: PricePoint[];
}

export async function fetchInstrumentChart(symbol: string, range: HistoryRange): Promise<InstrumentChart> {
  const body = await call(api.GET('/instruments/{symbol}', { params: { path: { symbol }, query: { range } } }));
  const points: PricePoint[] = [];
  for (const p of body.points) {
    const point = { time: Math.floor(Date.parse(p.t) / 1000), price: p.price };
    // The chart needs strictly increasing seconds; of two in one second the later stands (the last is the quote).
    if (points.length > 0 && points[points.length - 1]!.time >= point.time) points[points.length - 1] = point;
    else points.push(point);
  }
  return { instrument: body.instrument, points };
}
