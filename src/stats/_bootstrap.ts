import { streamFor } from './_prng.js';

/** One resampled unit (a task, its repetitions together): what each side summed over it. */
export interface PairedSums {
  readonly baseline: number;
  readonly optimized: number;
}

/** What a bootstrap interval is drawn with; recorded beside it so anyone can draw it again. */
export interface BootstrapSettings {
  readonly seed: number;
  readonly resamples: number;
}

export const DEFAULT_BOOTSTRAP: BootstrapSettings = { seed: 33, resamples: 2000 };

/** The label of the PRNG stream the resamples are drawn from (`streamFor(seed, label)`). */
const STREAM_LABEL = 'bootstrap-reduction';

/** (Σ baseline − Σ optimized) / Σ baseline, or null when the baseline sums to 0. */
export function ratioReduction(units: readonly PairedSums[]): number | null {
  const baseline = units.reduce((sum, unit) => sum + unit.baseline, 0);
  const optimized = units.reduce((sum, unit) => sum + unit.optimized, 0);
  return baseline === 0 ? null : (baseline - optimized) / baseline;
}

/**
 * A paired bootstrap 95% percentile interval of the ratio reduction (Σ baseline − Σ optimized) /
 * Σ baseline: `resamples` times, draw as many units as there are, with replacement (each unit
 * keeps its two sides together: that is the pairing), and take the reduction of the draw; the
 * interval runs from the (⌊R/40⌋ + 1)-th smallest to the (⌊R/40⌋ + 1)-th largest of the R
 * reductions. The draws come from the seeded xorshift32 stream, so a seed and a resample count
 * give the same interval on every machine. Null when there is no unit, or a draw's baseline sums
 * to 0 (its reduction has no value).
 */
export function bootstrapReductionInterval(units: readonly PairedSums[], settings: BootstrapSettings = DEFAULT_BOOTSTRAP): { low: number; high: number } | null {
  const { seed, resamples } = settings;
  if (!Number.isSafeInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (units.length === 0) return null;
  const random = streamFor(seed, STREAM_LABEL);
  const reductions: number[] = [];
  for (let draw = 0; draw < resamples; draw++) {
    let baseline = 0;
    let optimized = 0;
    for (let pick = 0; pick < units.length; pick++) {
      const unit = units[random.below(units.length)]!;
      baseline += unit.baseline;
      optimized += unit.optimized;
    }
    if (baseline === 0) return null;
    reductions.push((baseline - optimized) / baseline);
  }
  reductions.sort((a, b) => a - b);
  const tail = Math.floor(resamples / 40);
  return { low: reductions[tail]!, high: reductions[resamples - 1 - tail]! };
}
