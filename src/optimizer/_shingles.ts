/**
 * Near-duplicate primitives: word-trigram shingles, exact containment, MinHash signatures and a
 * banded LSH index, so that finding the texts similar to one text costs about the same however
 * many texts are indexed.
 *
 * Cost on large texts: shingling is one pass over the UTF-16 code units (no word strings are
 * built), plus a native numeric sort of a `Uint32Array` to de-duplicate; MinHash is
 * `permutations` multiply-and-mix steps per shingle; containment is a linear merge of two sorted
 * arrays (binary search when one side is much smaller). Nothing is truncated: a 4 MiB text costs
 * 4 bytes per word and a few tens of milliseconds, and the answer stays exact.
 *
 * Misuse (a bad option, a signature of the wrong length, a key indexed twice) throws
 * INVALID_ARGUMENT with `data.argument` naming what was wrong.
 */
import { McpctxError } from '../errors/index.js';
import { describeValue } from '../json/index.js';


/** A text's shingles: 32-bit hashes, sorted ascending, without repeats. */
export type ShingleSet = Uint32Array;

/** A MinHash signature: position i is the minimum of permutation i over a shingle set. */
export type MinHashSignature = Uint32Array;

function invalid(argument: string, message: string, value: unknown): McpctxError {
  return new McpctxError('INVALID_ARGUMENT', message, { argument, value });
}

// ---------------------------------------------------------------------------------------------
// Hashing
// ---------------------------------------------------------------------------------------------

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const MURMUR_C1 = 0xcc9e2d51;
const MURMUR_C2 = 0x1b873593;

/**
 * murmur3's 32-bit finalizer: a bijection that spreads every input bit over the output. Returned
 * as a signed 32-bit integer, which V8 never boxes: callers store it in a Uint32Array or use its
 * bits, where the signed and the unsigned form are the same.
 */
function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** One murmur3 block step: folds a 32-bit word into the running hash. */
function murmurStep(hash: number, word: number): number {
  let k = Math.imul(word, MURMUR_C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, MURMUR_C2);
  let h = hash ^ k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Hashes a short sequence of word hashes; the count is mixed in so "a b" never equals "a b c"'s prefix. */
function hashWords(first: number, second: number, third: number, count: number): number {
  let h = murmurStep(0x9747b28c, first);
  if (count > 1) h = murmurStep(h, second);
  if (count > 2) h = murmurStep(h, third);
  return mix32(h ^ count);
}

/** The same code units JavaScript's `\s` matches. */
function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

// ---------------------------------------------------------------------------------------------
// Shingles and containment
// ---------------------------------------------------------------------------------------------

/** Words of a text (whitespace-separated runs), counting stops once `stopAt` is reached. */
export function countWords(text: string, stopAt = Infinity): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length && words < stopAt; i++) {
    const space = isWhitespace(text.charCodeAt(i));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

/**
 * The word-trigram shingles of a text: every run of three consecutive whitespace-separated words,
 * hashed to 32 bits (FNV-1a per word, murmur3 over the three). Case is kept: code is
 * case-sensitive. A text of one or two words is one shingle of those words; an empty or
 * all-whitespace text has none.
 */
export function wordShingles(text: string): ShingleSet {
  // At most one trigram per word start. The pass writes into a scratch buffer kept between calls
  // (texts are shingled one at a time), so only the result is allocated.
  const hashes = scratchFor(Math.max(1, Math.ceil(text.length / 2)));
  let count = 0;
  let words = 0;
  let previous2 = 0;
  let previous1 = 0;
  let current = FNV_OFFSET;
  let inWord = false;

  // One pass; a sentinel space at the end closes the last word.
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0x20;
    if (!isWhitespace(code)) {
      current = Math.imul(current ^ code, FNV_PRIME);
      inWord = true;
      continue;
    }
    if (!inWord) continue;
    const word = current >>> 0;
    words++;
    if (words >= 3) hashes[count++] = hashWords(previous2, previous1, word, 3);
    previous2 = previous1;
    previous1 = word;
    current = FNV_OFFSET;
    inWord = false;
  }

  if (words === 0) return new Uint32Array(0);
  if (words < 3) return Uint32Array.of(hashWords(words === 2 ? previous2 : previous1, previous1, 0, words));
  return uniqueSorted(hashes.subarray(0, count));
}

let scratch = new Uint32Array(1024);

function scratchFor(length: number): Uint32Array {
  if (scratch.length < length) scratch = new Uint32Array(Math.max(length, scratch.length * 2));
  return scratch;
}

/** Sorts `values` in place (a view of the scratch buffer) and returns a copy without repeats. */
function uniqueSorted(values: Uint32Array): Uint32Array {
  const sorted = values.sort();
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) {
    const value = sorted[i]!;
    if (kept === 0 || sorted[kept - 1] !== value) sorted[kept++] = value;
  }
  return sorted.slice(0, kept);
}

/**
 * How much of `a` is inside `b`: |A ∩ B| / |A|, exact. 0 when `a` is empty (an empty text is
 * evidence of nothing).
 */
export function containment(a: ShingleSet, b: ShingleSet): number {
  if (a.length === 0) return 0;
  return intersectionSize(a, b) / a.length;
}

function intersectionSize(a: ShingleSet, b: ShingleSet): number {
  // A small set against a large one: binary search wins over walking the large one.
  if (a.length * Math.log2(b.length + 1) < b.length) return intersectionBySearch(a, b);
  if (b.length * Math.log2(a.length + 1) < a.length) return intersectionBySearch(b, a);
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared;
}

function intersectionBySearch(small: ShingleSet, large: ShingleSet): number {
  let shared = 0;
  for (const value of small) {
    let low = 0;
    let high = large.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const probe = large[middle]!;
      if (probe === value) {
        shared++;
        break;
      }
      if (probe < value) low = middle + 1;
      else high = middle - 1;
    }
  }
  return shared;
}

// ---------------------------------------------------------------------------------------------
// MinHash
// ---------------------------------------------------------------------------------------------

/** Fixed seeds: the same text gets the same signature in every process. */
const PERMUTATION_SEED = 0x6d637478; // "mctx"

/**
 * MinHash over shingle sets. Permutation i maps x to mix32((aᵢ·x + bᵢ) mod 2³²) with aᵢ odd:
 * both steps are bijections of the 32-bit integers, so each is a true permutation of the shingle
 * space and its minimum over a set is a uniform sample of the set. The share of positions where
 * two signatures agree estimates the Jaccard similarity of the sets (standard error about
 * √(J(1-J)/permutations): ±0.06 at J = 0.5 with 64).
 */
export class MinHasher {
  readonly permutations: number;
  private readonly multipliers: Uint32Array;
  private readonly offsets: Uint32Array;

  constructor(permutations = 64) {
    if (!Number.isInteger(permutations) || permutations < 1) {
      throw invalid('permutations', `MinHasher: permutations must be a positive integer, got ${describeValue(permutations)}`, permutations);
    }
    this.permutations = permutations;
    this.multipliers = new Uint32Array(permutations);
    this.offsets = new Uint32Array(permutations);
    let state = PERMUTATION_SEED;
    const next = (): number => {
      // splitmix32: a fixed, well-spread sequence of seeds.
      state = (state + 0x9e3779b9) | 0;
      return mix32(state ^ (state >>> 15));
    };
    for (let i = 0; i < permutations; i++) {
      this.multipliers[i] = next() | 1;
      this.offsets[i] = next();
    }
  }

  signature(shingles: ShingleSet): MinHashSignature {
    const signature = new Uint32Array(this.permutations);
    const multipliers = this.multipliers;
    const offsets = this.offsets;
    // Four permutations per pass over the shingles, their minima in locals: the same minima as
    // updating every position for each shingle, without loads and stores of the signature in the
    // inner loop, and four independent chains the CPU overlaps (about 1.3x faster). Minima are kept
    // in signed form (`signedPermuted`) so the loop stays in small integers.
    let i = 0;
    for (; i + 4 <= signature.length; i += 4) {
      const a0 = multipliers[i]!, a1 = multipliers[i + 1]!, a2 = multipliers[i + 2]!, a3 = multipliers[i + 3]!;
      const b0 = offsets[i]!, b1 = offsets[i + 1]!, b2 = offsets[i + 2]!, b3 = offsets[i + 3]!;
      let min0 = SIGNED_EMPTY_MIN, min1 = SIGNED_EMPTY_MIN, min2 = SIGNED_EMPTY_MIN, min3 = SIGNED_EMPTY_MIN;
      for (let j = 0; j < shingles.length; j++) {
        const shingle = shingles[j]!;
        const value0 = signedPermuted(a0, b0, shingle);
        const value1 = signedPermuted(a1, b1, shingle);
        const value2 = signedPermuted(a2, b2, shingle);
        const value3 = signedPermuted(a3, b3, shingle);
        if (value0 < min0) min0 = value0;
        if (value1 < min1) min1 = value1;
        if (value2 < min2) min2 = value2;
        if (value3 < min3) min3 = value3;
      }
      signature[i] = min0 ^ SIGN_BIT;
      signature[i + 1] = min1 ^ SIGN_BIT;
      signature[i + 2] = min2 ^ SIGN_BIT;
      signature[i + 3] = min3 ^ SIGN_BIT;
    }
    for (; i < signature.length; i++) {
      let min = SIGNED_EMPTY_MIN;
      for (let j = 0; j < shingles.length; j++) {
        const value = signedPermuted(multipliers[i]!, offsets[i]!, shingles[j]!);
        if (value < min) min = value;
      }
      signature[i] = min ^ SIGN_BIT;
    }
    return signature;
  }
}

const SIGN_BIT = 0x80000000;
/** 0xffffffff (the minimum over an empty set) in signed form. */
const SIGNED_EMPTY_MIN = 0xffffffff ^ SIGN_BIT;

/**
 * Permutation (multiplier, offset) of a shingle, as a signed 32-bit integer: flipping the top bit
 * maps the unsigned order onto the signed one, so the signed minimum, flipped back, is the
 * unsigned minimum.
 */
function signedPermuted(multiplier: number, offset: number, shingle: number): number {
  return mix32(Math.imul(multiplier, shingle) + offset) ^ SIGN_BIT;
}

/** The share of positions where two signatures agree: an estimate of the sets' Jaccard similarity. */
export function estimateSimilarity(a: MinHashSignature, b: MinHashSignature): number {
  if (a.length !== b.length) {
    throw invalid('signature', `estimateSimilarity: signatures of different lengths (${a.length} and ${b.length} positions)`, b.length);
  }
  if (a.length === 0) return 0;
  let equal = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) equal++;
  return equal / a.length;
}

// ---------------------------------------------------------------------------------------------
// LSH index
// ---------------------------------------------------------------------------------------------

export interface LshOptions {
  /** Bands the signature is cut into. Default 16. */
  bands?: number;
  /** Signature positions per band. Default 4; `bands × rows` is the signature length. */
  rows?: number;
  /**
   * Keys one bucket holds; later keys for a full bucket are still found through their other
   * bands. Bounds the cost of pathological input (thousands of distinct texts sharing most
   * lines) at the price of recall there. Default 256.
   */
  maxBucketSize?: number;
}

/**
 * Locality-sensitive hashing by banding: two signatures become candidates when all `rows`
 * positions of at least one band agree. For Jaccard similarity J the chance is
 * 1 - (1 - J^rows)^bands, an S-curve whose steep part sits near (1/bands)^(1/rows).
 * With 16 bands × 4 rows that is J ≈ 0.5: J = 0.8 → 99.98 %, 0.7 → 98.8 %, 0.6 → 89 %,
 * 0.5 → 64 %, 0.3 → 12 %, 0.1 → 0.2 %. More bands (or fewer rows) move the curve left: more
 * recall, more candidates to verify.
 */
export class LshIndex {
  readonly bands: number;
  readonly rows: number;
  readonly maxBucketSize: number;
  /** Keys by internal id (insertion order); buckets hold ids, small integers V8 keeps unboxed. */
  private readonly keys: string[] = [];
  private readonly idByKey = new Map<string, number>();
  private readonly signatures: MinHashSignature[] = [];
  /**
   * Per band, the ids in each bucket in insertion order: a lone id as itself, more as an array.
   * Most buckets hold one id, and an array for each was most of the index's allocation. Bucket
   * keys are signed 32-bit (`bucketKey`) so that V8 keeps them unboxed too.
   */
  private readonly buckets: Map<number, number | number[]>[];

  constructor(options: LshOptions = {}) {
    this.bands = options.bands ?? 16;
    this.rows = options.rows ?? 4;
    this.maxBucketSize = options.maxBucketSize ?? 256;
    for (const [name, value] of [['bands', this.bands], ['rows', this.rows], ['maxBucketSize', this.maxBucketSize]] as const) {
      if (!Number.isInteger(value) || value < 1) throw invalid(name, `LshIndex: ${name} must be a positive integer, got ${describeValue(value)}`, value);
    }
    this.buckets = Array.from({ length: this.bands }, () => new Map<number, number | number[]>());
  }

  get size(): number {
    return this.keys.length;
  }

  has(key: string): boolean {
    return this.idByKey.has(key);
  }

  /** Indexes a signature under a key; adding a key twice is an error (its buckets would go stale). */
  add(key: string, signature: MinHashSignature): void {
    this.checkLength(signature);
    if (this.idByKey.has(key)) throw invalid('key', `LshIndex: key ${JSON.stringify(key)} is already indexed`, key);
    const id = this.keys.length;
    this.keys.push(key);
    this.idByKey.set(key, id);
    this.signatures.push(signature);
    for (let band = 0; band < this.bands; band++) {
      const buckets = this.buckets[band]!;
      const bucketKey = this.bucketKey(signature, band);
      const bucket = buckets.get(bucketKey);
      if (bucket === undefined) buckets.set(bucketKey, id);
      else if (typeof bucket === 'number') {
        if (this.maxBucketSize > 1) buckets.set(bucketKey, [bucket, id]);
      } else if (bucket.length < this.maxBucketSize) bucket.push(id);
    }
  }

  /**
   * Keys sharing at least one band bucket with the signature, most similar first (estimated
   * similarity, then bands shared, then the order they were first met in), at most `limit` of them.
   */
  candidates(signature: MinHashSignature, limit = Infinity): string[] {
    this.checkLength(signature);
    if (this.keys.length === 0) return [];
    // Allocated at the first shared bucket: most signatures share none.
    let sharedBands: Map<number, number> | undefined;
    for (let band = 0; band < this.bands; band++) {
      const bucket = this.buckets[band]!.get(this.bucketKey(signature, band));
      if (bucket === undefined) continue;
      sharedBands ??= new Map<number, number>();
      if (typeof bucket === 'number') sharedBands.set(bucket, (sharedBands.get(bucket) ?? 0) + 1);
      else for (const id of bucket) sharedBands.set(id, (sharedBands.get(id) ?? 0) + 1);
    }
    if (sharedBands === undefined) return [];
    const ranked: Array<{ id: number; bands: number; position: number; similarity: number }> = [];
    let position = 0;
    for (const [id, bands] of sharedBands) {
      ranked.push({ id, bands, position: position++, similarity: estimateSimilarity(signature, this.signatures[id]!) });
    }
    ranked.sort((x, y) => y.similarity - x.similarity || y.bands - x.bands || x.position - y.position);
    const count = Math.min(limit, ranked.length);
    const keys: string[] = [];
    for (let i = 0; i < count; i++) keys.push(this.keys[ranked[i]!.id]!);
    return keys;
  }

  signatureOf(key: string): MinHashSignature | undefined {
    const id = this.idByKey.get(key);
    return id === undefined ? undefined : this.signatures[id];
  }

  /** The band's rows hashed to a signed 32-bit integer (the same buckets as unsigned, unboxed). */
  private bucketKey(signature: MinHashSignature, band: number): number {
    let h = band;
    const start = band * this.rows;
    for (let i = start; i < start + this.rows; i++) h = murmurStep(h, signature[i]!);
    return mix32(h ^ this.rows);
  }

  private checkLength(signature: MinHashSignature): void {
    if (signature.length !== this.bands * this.rows) {
      throw invalid('signature', `LshIndex: signature has ${signature.length} positions, expected ${this.bands * this.rows}`, signature.length);
    }
  }
}

/**
 * Shingle sets in, candidate keys out: MinHash (bands × rows permutations) in front of an
 * `LshIndex`. Candidates are only likely near duplicates; verify them with `containment`.
 */
export class NearDuplicateIndex {
  private readonly hasher: MinHasher;
  private readonly lsh: LshIndex;

  constructor(options: LshOptions = {}) {
    this.lsh = new LshIndex(options);
    this.hasher = new MinHasher(this.lsh.bands * this.lsh.rows);
  }

  get size(): number {
    return this.lsh.size;
  }

  has(key: string): boolean {
    return this.lsh.has(key);
  }

  signature(shingles: ShingleSet): MinHashSignature {
    return this.hasher.signature(shingles);
  }

  /** Indexes a key's shingles; an empty set is not indexed (it resembles nothing). */
  add(key: string, shingles: ShingleSet): void {
    if (shingles.length === 0) return;
    this.lsh.add(key, this.hasher.signature(shingles));
  }

  /** Keys likely similar to these shingles, most similar first, at most `limit`. */
  candidates(shingles: ShingleSet, limit = Infinity): string[] {
    if (shingles.length === 0 || this.lsh.size === 0) return [];
    return this.lsh.candidates(this.hasher.signature(shingles), limit);
  }
}
