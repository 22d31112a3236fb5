// Medians, the suite's one statistic: every figure it reports is the median of its runs.

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The median of values that may be missing: null when any is. */
export function medianOrNull(values: Array<number | null | undefined>): number | null {
  if (values.length === 0 || values.some((v) => v === null || v === undefined || Number.isNaN(v))) return null;
  return median(values as number[]);
}
