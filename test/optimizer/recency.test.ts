// The optimizer's one recency order (src/optimizer/_recency.ts) is a total order: every sort by it
// has one answer, whatever order the records come in.
import { describe, expect, it } from 'vitest';
import { compareRecency } from '../../src/optimizer/_recency.js';
import { seededRandom } from './_shuffle.js';

describe('compareRecency', () => {
  it('puts undated records before dated ones, dated ones by time, and falls back to input order', () => {
    const dated = (time: number, order: number) => ({ time, order });
    const undated = (order: number) => ({ order });
    expect(compareRecency(undated(9), dated(1, 0))).toBeLessThan(0);
    expect(compareRecency(dated(2, 0), dated(1, 5))).toBeGreaterThan(0);
    expect(compareRecency(dated(1, 3), dated(1, 5))).toBeLessThan(0);
    expect(compareRecency(undated(3), undated(5))).toBeLessThan(0);
  });

  it('is a total order over records mixing dated, undated and equal times', () => {
    const random = seededRandom(7);
    const records = Array.from({ length: 40 }, (_, order) => {
      const roll = random();
      return roll < 0.3 ? { order } : { order, time: Math.floor(roll * 8) };
    });
    const sign = (value: number) => (value < 0 ? -1 : value > 0 ? 1 : 0);
    for (const a of records) {
      for (const b of records) {
        expect(sign(compareRecency(a, b)) + sign(compareRecency(b, a))).toBe(0);
        expect(compareRecency(a, b) === 0).toBe(a === b);
        for (const c of records) {
          if (compareRecency(a, b) < 0 && compareRecency(b, c) < 0) expect(compareRecency(a, c)).toBeLessThan(0);
        }
      }
    }
  });
});
