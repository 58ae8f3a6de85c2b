// Behaviour of the near-duplicate primitives: word-trigram shingles, exact containment, MinHash
// estimates and the banded LSH index.
import { describe, expect, it } from 'vitest';
import {
  containment,
  countWords,
  estimateSimilarity,
  LshIndex,
  MinHasher,
  NearDuplicateIndex,
  wordShingles,
} from '../../src/optimizer/_shingles.js';
import { isMcpctxError } from '../../src/errors/index.js';

/** The `data.argument` of the INVALID_ARGUMENT error `run` throws; fails if it throws anything else. */
function invalidArgument(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (isMcpctxError(error, 'INVALID_ARGUMENT')) return error.data.argument;
    throw error;
  }
  throw new Error('did not throw');
}

/** A deterministic stream of distinct-looking words. */
function wordStream(seed: number): () => string {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return `w${state.toString(36)}`;
  };
}

function words(count: number, seed: number): string[] {
  const next = wordStream(seed);
  return Array.from({ length: count }, next);
}

/** |A ∩ B| / |A| the slow, obvious way. */
function naiveContainment(a: Uint32Array, b: Uint32Array): number {
  const inB = new Set(b);
  return a.length === 0 ? 0 : [...a].filter((value) => inB.has(value)).length / a.length;
}

describe('wordShingles', () => {
  it('makes one shingle per distinct run of three words, sorted and without repeats', () => {
    const shingles = wordShingles('a b c d');
    expect(shingles).toBeInstanceOf(Uint32Array);
    expect(shingles.length).toBe(2);
    // "a b c a b c" has trigrams abc, bca, cab, abc: three distinct.
    const repeated = wordShingles('a b c a b c');
    expect(repeated.length).toBe(3);
    expect([...repeated]).toEqual([...repeated].sort((x, y) => x - y));
    expect(new Set(repeated).size).toBe(repeated.length);
  });

  it('splits on any whitespace and ignores how much of it there is', () => {
    expect(wordShingles('alpha beta\tgamma\n\ndelta')).toEqual(wordShingles('  alpha beta gamma delta  '));
    expect(wordShingles('alpha\u00a0beta gamma')).toEqual(wordShingles('alpha beta gamma'));
  });

  it('keeps case: code is case-sensitive', () => {
    expect(wordShingles('Foo bar baz')).not.toEqual(wordShingles('foo bar baz'));
  });

  it('is sensitive to word order, not only to the bag of words', () => {
    expect(wordShingles('one two three')).not.toEqual(wordShingles('three two one'));
  });

  it('gives texts of one or two words one shingle of the whole text, and an empty text none', () => {
    expect(wordShingles('hello').length).toBe(1);
    expect(wordShingles('hello world').length).toBe(1);
    expect(wordShingles('hello world')).not.toEqual(wordShingles('hello'));
    expect(wordShingles('hello  world')).toEqual(wordShingles('hello world'));
    // Two words are not the first trigram of a longer text.
    expect(containment(wordShingles('hello world'), wordShingles('hello world again'))).toBe(0);
    expect(wordShingles('').length).toBe(0);
    expect(wordShingles(' \n\t ').length).toBe(0);
  });

  it('shingles a 4 MiB text completely, without truncating it', () => {
    // 5,000 distinct words cycling: exactly 5,000 distinct trigrams however long the text.
    const vocabulary = words(5000, 1);
    const parts: string[] = [];
    let length = 0;
    for (let i = 0; length < 4 * 1024 * 1024; i++) {
      const word = vocabulary[i % vocabulary.length]!;
      parts.push(word);
      length += word.length + 1;
    }
    const big = parts.join(' ');
    expect(big.length).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    const shingles = wordShingles(big);
    expect(shingles.length).toBe(5000);
    // The last words count: a trigram that only occurs at the very end is present.
    const tail = `${big} zzz-last-1 zzz-last-2`;
    expect(wordShingles(tail).length).toBe(5002);
  });
});

describe('countWords', () => {
  it('counts whitespace-separated words and can stop early', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  one two\nthree  ')).toBe(3);
    expect(countWords('a b c d e f g h i j', 4)).toBe(4);
  });
});

describe('containment', () => {
  it('is the share of the first set found in the second, and not symmetric', () => {
    const small = wordShingles(words(20, 2).join(' '));
    const large = wordShingles([...words(20, 2), ...words(20, 3)].join(' '));
    expect(containment(small, large)).toBe(1);
    expect(containment(large, small)).toBeCloseTo(small.length / large.length, 10);
    expect(containment(small, small)).toBe(1);
    expect(containment(small, wordShingles(words(20, 4).join(' ')))).toBe(0);
  });

  it('is 0 for an empty first set', () => {
    expect(containment(new Uint32Array(0), wordShingles('a b c'))).toBe(0);
  });

  it('agrees with a naive set intersection for sets of very different and similar sizes', () => {
    const base = words(3000, 5);
    const cases: Array<[string[], string[]]> = [
      [base.slice(0, 10), base],
      [base, base.slice(0, 10)],
      [base.slice(0, 1500), base.slice(700, 3000)],
      [base.slice(0, 50).concat(words(50, 6)), base.slice(0, 100)],
    ];
    for (const [x, y] of cases) {
      const a = wordShingles(x.join(' '));
      const b = wordShingles(y.join(' '));
      expect(containment(a, b)).toBeCloseTo(naiveContainment(a, b), 12);
    }
  });
});

describe('MinHash', () => {
  it('gives the same signature for the same set in every instance', () => {
    const shingles = wordShingles(words(100, 7).join(' '));
    const first = new MinHasher().signature(shingles);
    expect(first.length).toBe(64);
    expect(new MinHasher().signature(shingles)).toEqual(first);
    expect(new MinHasher(16).signature(shingles).length).toBe(16);
  });

  it('estimates Jaccard similarity', () => {
    const hasher = new MinHasher(128);
    const base = words(400, 8);
    const same = hasher.signature(wordShingles(base.join(' ')));
    expect(estimateSimilarity(same, same)).toBe(1);
    // Share the first 200 words of 400 with another text: Jaccard about 198 / 602 ≈ 0.33.
    const other = hasher.signature(wordShingles([...base.slice(0, 200), ...words(200, 9)].join(' ')));
    const estimate = estimateSimilarity(same, other);
    expect(estimate).toBeGreaterThan(0.2);
    expect(estimate).toBeLessThan(0.47);
    const unrelated = hasher.signature(wordShingles(words(400, 10).join(' ')));
    expect(estimateSimilarity(same, unrelated)).toBeLessThan(0.05);
  });

  it('rejects signatures of different lengths and a bad permutation count with INVALID_ARGUMENT', () => {
    expect(invalidArgument(() => estimateSimilarity(new Uint32Array(4), new Uint32Array(8)))).toBe('signature');
    for (const permutations of [0, -1, 1.5, Number.NaN, Object.create(null) as number]) expect(invalidArgument(() => new MinHasher(permutations))).toBe('permutations');
  });
});

describe('LshIndex', () => {
  const hasher = new MinHasher(64);
  const signatureOf = (text: string): Uint32Array => hasher.signature(wordShingles(text));

  it('finds near duplicates and not unrelated texts', () => {
    const index = new LshIndex();
    const base = words(200, 11);
    index.add('base', signatureOf(base.join(' ')));
    index.add('unrelated', signatureOf(words(200, 12).join(' ')));
    const edited = [...base];
    edited[100] = 'changed';
    expect(index.candidates(signatureOf(edited.join(' ')))).toEqual(['base']);
    expect(index.candidates(signatureOf(words(200, 13).join(' ')))).toEqual([]);
  });

  it('follows the banding S-curve: nearly always above J 0.8, rarely below J 0.2', () => {
    // 100 pairs at each similarity, built from disjoint word pools.
    const found = (keep: number): number => {
      let hits = 0;
      for (let pair = 0; pair < 100; pair++) {
        const index = new LshIndex();
        const shared = words(keep, 1000 + pair);
        const a = [...shared, ...words(100 - keep, 2000 + pair)];
        const b = [...shared, ...words(100 - keep, 3000 + pair)];
        index.add('a', signatureOf(a.join(' ')));
        if (index.candidates(signatureOf(b.join(' '))).length > 0) hits++;
      }
      return hits;
    };
    expect(found(95)).toBe(100); // J ≈ 0.85
    expect(found(30)).toBeLessThan(15); // J ≈ 0.15
  });

  it('ranks candidates by estimated similarity, then by insertion order, and honours the limit', () => {
    const index = new LshIndex();
    const base = words(300, 14);
    const far = [...base.slice(0, 240), ...words(60, 15)];
    const near = [...base.slice(0, 290), ...words(10, 16)];
    index.add('far', signatureOf(far.join(' ')));
    index.add('near', signatureOf(near.join(' ')));
    index.add('near-copy', signatureOf(near.join(' ')));
    expect(index.candidates(signatureOf(base.join(' ')))).toEqual(['near', 'near-copy', 'far']);
    expect(index.candidates(signatureOf(base.join(' ')), 1)).toEqual(['near']);
  });

  it('caps a bucket at maxBucketSize keys', () => {
    const index = new LshIndex({ maxBucketSize: 3 });
    const signature = signatureOf(words(50, 17).join(' '));
    for (let i = 0; i < 10; i++) index.add(`copy-${i}`, signature);
    expect(index.size).toBe(10);
    expect(index.candidates(signature)).toEqual(['copy-0', 'copy-1', 'copy-2']);
  });

  it('rejects a key added twice, a signature of the wrong length and bad options with INVALID_ARGUMENT', () => {
    const index = new LshIndex({ bands: 8, rows: 2 });
    index.add('k', new Uint32Array(16));
    expect(() => index.add('k', new Uint32Array(16))).toThrow(/already indexed/);
    expect(invalidArgument(() => index.add('k', new Uint32Array(16)))).toBe('key');
    expect(() => index.add('other', new Uint32Array(64))).toThrow(/expected 16/);
    expect(invalidArgument(() => index.add('other', new Uint32Array(64)))).toBe('signature');
    expect(invalidArgument(() => index.candidates(new Uint32Array(8)))).toBe('signature');
    expect(invalidArgument(() => new LshIndex({ bands: 0 }))).toBe('bands');
    expect(invalidArgument(() => new LshIndex({ rows: 1.5 }))).toBe('rows');
    expect(invalidArgument(() => new LshIndex({ maxBucketSize: -2 }))).toBe('maxBucketSize');
  });
});

describe('NearDuplicateIndex', () => {
  it('takes shingle sets: finds the edited text, ignores empty sets', () => {
    const index = new NearDuplicateIndex();
    const base = words(120, 18);
    index.add('base', wordShingles(base.join(' ')));
    index.add('empty', new Uint32Array(0));
    expect(index.size).toBe(1);
    expect(index.has('empty')).toBe(false);
    const edited = [...base.slice(0, 60), 'inserted', ...base.slice(60)];
    expect(index.candidates(wordShingles(edited.join(' ')))).toEqual(['base']);
    expect(index.candidates(new Uint32Array(0))).toEqual([]);
    expect(new NearDuplicateIndex().candidates(wordShingles(edited.join(' ')))).toEqual([]);
  });

  it('answers the same way in every instance', () => {
    const texts = Array.from({ length: 50 }, (_, i) => words(40, 100 + (i % 10)).join(' ') + ` tail ${i}`);
    const run = (): string[][] => {
      const index = new NearDuplicateIndex();
      texts.forEach((text, i) => index.add(String(i), wordShingles(text)));
      return texts.map((text) => index.candidates(wordShingles(text)));
    };
    const first = run();
    expect(first[0]).toContain('0');
    expect(run()).toEqual(first);
  });
});
