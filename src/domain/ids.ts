/**
 * Row ids are positive integers the database can hold. A request naming any
 * other integer names no row: 404, never a driver's out-of-range error (500).
 */
export function isPossibleId(n: number): boolean {
  return Number.isSafeInteger(n) && n > 0;
}
