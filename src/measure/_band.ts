export type Band = 'brightgreen' | 'green' | 'yellow' | 'orange' | 'red';

/**
 * The colour bands, each up to (not including) `below` tokens; the last has no limit. Frozen
 * against the distribution of a first full sweep (p25 581, median 2,636, p75 5,258, p90 10,426):
 * tables, badges and the methodology page all read this one table.
 */
export const BAND_LIMITS: ReadonlyArray<{ band: Band; below: number | null }> = Object.freeze([
  { band: 'brightgreen', below: 1_000 },
  { band: 'green', below: 5_000 },
  { band: 'yellow', below: 15_000 },
  { band: 'orange', below: 30_000 },
  { band: 'red', below: null },
]);

/** The colour band of a catalog total, as shown on badges and tables. */
export function bandFor(totalTokens: number): Band {
  for (const { band, below } of BAND_LIMITS) if (below === null || totalTokens < below) return band;
  return 'red';
}
