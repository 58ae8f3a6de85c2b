import { describe, expect, it } from 'vitest';
import { Xorshift32, seededShuffle, streamFor } from '../../src/stats/index.js';

describe('Xorshift32', () => {
  it('gives the xorshift32 (13, 17, 5) sequence', () => {
    // Worked by hand from state 1: 1 ^ 1<<13 = 8193; 8193 >>> 17 = 0; 8193 ^ 8193<<5 = 270369.
    const random = new Xorshift32(1);
    expect(random.nextUint32()).toBe(270369);
    // The next one, from 270369: the same three steps (computed with BigInt below, independently of the class).
    let x = 270369n;
    const mask = 0xffffffffn;
    x ^= (x << 13n) & mask;
    x ^= x >> 17n;
    x ^= (x << 5n) & mask;
    expect(random.nextUint32()).toBe(Number(x));
  });

  it('never sticks at zero and stays in range', () => {
    const random = new Xorshift32(0);
    for (let i = 0; i < 1000; i++) {
      const value = random.nextUint32();
      expect(value).toBeGreaterThan(0);
      expect(value).toBeLessThan(2 ** 32);
      expect(random.below(7)).toBeLessThan(7);
    }
    expect(() => random.below(0)).toThrow(RangeError);
  });

  it('below() reaches every value of a small bound about equally', () => {
    const random = new Xorshift32(42);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[random.below(3)]! += 1;
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });
});

describe('seededShuffle and streamFor', () => {
  const items = Array.from({ length: 64 }, (_, index) => `tool_${index}`);

  it('returns a permutation and leaves the input alone', () => {
    const copy = [...items];
    const shuffled = seededShuffle(items, streamFor(14, 'x'));
    expect(items).toEqual(copy);
    expect([...shuffled].sort()).toEqual([...items].sort());
    expect(shuffled).not.toEqual(items);
  });

  it('the same seed and label give the same order; another seed or label another one', () => {
    const once = seededShuffle(items, streamFor(14, 'catalog:a'));
    expect(seededShuffle(items, streamFor(14, 'catalog:a'))).toEqual(once);
    expect(seededShuffle(items, streamFor(15, 'catalog:a'))).not.toEqual(once);
    expect(seededShuffle(items, streamFor(14, 'catalog:b'))).not.toEqual(once);
  });
});
