import { sha256Hex } from '../tokens/index.js';

/**
 * A seeded pseudo-random generator: Marsaglia's xorshift32 (shifts 13, 17, 5), whose 32-bit
 * state walks every non-zero value once before repeating. Statistically weak by modern
 * standards, which is fine here: it only orders routing catalogs and draws bootstrap resamples,
 * and each stream starts from a hashed label (`streamFor`), so neighbouring seeds do not give
 * neighbouring orders. Never Math.random: a seed must give the same catalogs and intervals on
 * every machine and every run (verify recomputes them).
 */
export class Xorshift32 {
  #state: number;

  constructor(seed: number) {
    // xorshift stays at 0 forever from 0; any other constant start is as good as another.
    this.#state = seed >>> 0 || 0x9e3779b9;
  }

  /** The next 32-bit unsigned value. */
  nextUint32(): number {
    let x = this.#state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#state = x >>> 0;
    return this.#state;
  }

  /**
   * An integer in [0, bound), without modulo bias: values from the uneven top of the 32-bit
   * range are drawn again (at most a few draws for any bound up to 2^31).
   */
  below(bound: number): number {
    if (!Number.isSafeInteger(bound) || bound < 1 || bound > 2 ** 31) throw new RangeError(`bound must be an integer from 1 to 2^31, got ${bound}`);
    const limit = 2 ** 32 - (2 ** 32 % bound);
    for (;;) {
      const value = this.nextUint32();
      if (value < limit) return value % bound;
    }
  }
}

/**
 * The generator of one named stream of a run: its state is the first 32 bits of
 * sha256(`<seed>:<label>`). Each catalog draws from its own stream, so adding a request or a
 * size leaves every other catalog's order as it was.
 */
export function streamFor(seed: number, label: string): Xorshift32 {
  return new Xorshift32(Number.parseInt(sha256Hex(`${seed}:${label}`).slice(0, 8), 16));
}

/** A new array with the items in a seeded order (Fisher-Yates, from the last position down). */
export function seededShuffle<T>(items: readonly T[], random: Xorshift32): T[] {
  const shuffled = [...items];
  for (let position = shuffled.length - 1; position > 0; position--) {
    const other = random.below(position + 1);
    [shuffled[position], shuffled[other]] = [shuffled[other]!, shuffled[position]!];
  }
  return shuffled;
}
