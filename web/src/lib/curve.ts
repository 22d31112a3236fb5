// Chart points of the cumulative-gain curve (GET /user/{id}/stats).

export interface CurvePoint {
  time: number; // epoch seconds
  value: number;
}

/**
 * The cumulative-gain curve of GET /user/{id}/stats as chart points: from the
 * origin (0 just before the first close), strictly increasing in time; bets
 * closed within the same second become one point carrying the later total.
 */
export function gainCurvePoints(curve: readonly { t: string; value: number }[]): CurvePoint[] {
  const out: CurvePoint[] = [];
  for (const p of curve) {
    const time = Math.floor(Date.parse(p.t) / 1000);
    if (!Number.isFinite(time)) continue;
    const last = out[out.length - 1];
    if (last && time <= last.time) last.value = p.value;
    else out.push({ time, value: p.value });
  }
  if (out.length > 0) out.unshift({ time: out[0].time - 1, value: 0 });
  return out;
}
