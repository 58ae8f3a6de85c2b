import { describe, expect, it } from 'vitest';
import { DEFAULT_BOOTSTRAP, bootstrapReductionInterval, mcnemarExact, ratioReduction, wilsonInterval } from '../../src/stats/index.js';

describe('wilsonInterval', () => {
  it('gives the 95% Wilson interval of 8 of 8 (worked out separately: 0.6756 to 1)', () => {
    const interval = wilsonInterval(8, 8)!;
    expect(interval.low).toBeCloseTo(0.675592, 5);
    expect(interval.high).toBe(1);
  });

  it('has no interval for no trials', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe('mcnemarExact', () => {
  it('is 2 · P(X ≤ min(b, c)) for X ~ Binomial(b + c, 1/2), exactly for small counts', () => {
    // b = 1, c = 9: 2 · (1 + 10) / 1024.
    expect(mcnemarExact(1, 9)).toBe(0.021484375);
    expect(mcnemarExact(9, 1)).toBe(0.021484375);
    // b = 0, c = 5: 2 / 32. b = 3, c = 7: 2 · (1 + 10 + 45 + 120) / 1024.
    expect(mcnemarExact(0, 5)).toBe(0.0625);
    expect(mcnemarExact(3, 7)).toBe(0.34375);
  });

  it('is 1 when nothing is discordant or the split is even (capped, never above 1)', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(2, 2)).toBe(1);
    expect(mcnemarExact(1000, 1000)).toBe(1);
  });

  it('stays finite and right for thousands of pairs (values from exact fractions in Python)', () => {
    expect(mcnemarExact(10, 30)).toBeCloseTo(0.0022214337732293643, 15);
    expect(mcnemarExact(480, 520) / 0.21744829320414094).toBeCloseTo(1, 10);
    // Past 1,000 pairs: summed in log space (2^-1001 would still be a double, 2^-3000 is not).
    expect(mcnemarExact(450, 551) / 0.001561138839699202).toBeCloseTo(1, 10);
    expect(mcnemarExact(1400, 1600) / 0.0002785639610392337).toBeCloseTo(1, 10);
  });

  it('refuses counts that are not non-negative integers', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
  });
});

describe('bootstrapReductionInterval', () => {
  it('gives the ratio reduction of the sums', () => {
    expect(ratioReduction([{ baseline: 10, optimized: 5 }, { baseline: 30, optimized: 15 }])).toBe(0.5);
    expect(ratioReduction([{ baseline: 0, optimized: 5 }])).toBeNull();
  });

  it('is the point itself when every unit has the same pair', () => {
    const units = [{ baseline: 100, optimized: 73 }, { baseline: 100, optimized: 73 }, { baseline: 100, optimized: 73 }];
    expect(bootstrapReductionInterval(units)).toEqual({ low: 0.27, high: 0.27 });
  });

  it('takes the percentiles of the resampled reductions (two units: only 0, 0.25 or 0.5 can be drawn)', () => {
    // Both draws the first unit: (20 − 10) / 20 = 0.5 (a quarter of resamples); one of each:
    // (20 − 15) / 20 = 0.25; both the second: 0. The 51st smallest of 2,000 is 0, the 51st largest 0.5.
    const units = [{ baseline: 10, optimized: 5 }, { baseline: 10, optimized: 10 }];
    expect(bootstrapReductionInterval(units)).toEqual({ low: 0, high: 0.5 });
  });

  it('keeps each unit\'s two sides together (a paired resample)', () => {
    // Unpaired, a draw could pair baseline 1000 with optimized 1000: reduction 0. Paired, every unit saves 90%.
    const units = [{ baseline: 1000, optimized: 100 }, { baseline: 10, optimized: 1 }, { baseline: 100, optimized: 10 }];
    const interval = bootstrapReductionInterval(units)!;
    expect(interval.low).toBeCloseTo(0.9, 12);
    expect(interval.high).toBeCloseTo(0.9, 12);
  });

  it('draws the same interval from the same seed and resamples, another from another seed', () => {
    const units = Array.from({ length: 12 }, (_, index) => ({ baseline: 1000 + index * 37, optimized: 500 + ((index * 7919) % 400) }));
    const first = bootstrapReductionInterval(units, DEFAULT_BOOTSTRAP);
    expect(bootstrapReductionInterval(units, { seed: DEFAULT_BOOTSTRAP.seed, resamples: DEFAULT_BOOTSTRAP.resamples })).toEqual(first);
    expect(bootstrapReductionInterval(units, { seed: DEFAULT_BOOTSTRAP.seed + 1, resamples: DEFAULT_BOOTSTRAP.resamples })).not.toEqual(first);
    const point = ratioReduction(units)!;
    expect(first!.low).toBeLessThan(point);
    expect(first!.high).toBeGreaterThan(point);
  });

  it('has no interval without units, or when a draw\'s baseline sums to 0', () => {
    expect(bootstrapReductionInterval([])).toBeNull();
    expect(bootstrapReductionInterval([{ baseline: 0, optimized: 0 }])).toBeNull();
  });
});
