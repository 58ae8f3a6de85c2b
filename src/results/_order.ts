import type { IsoDate, SweepNumber } from './_model.js';

/** When something was measured: a sweep's date and, from the numbered sweeps on, its number. */
export interface SweepPoint {
  date: IsoDate;
  sweep?: SweepNumber;
}

/**
 * Orders by sweep, never by date alone: two sweeps of one day are told apart by their numbers. A
 * point with no number was written before sweeps were numbered, so within its date it came first.
 */
export function compareSweeps(a: SweepPoint, b: SweepPoint): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  return (a.sweep ?? 0) - (b.sweep ?? 0);
}
