import { o200kRanks } from './_rank-table.js';

/**
 * An exact o200k_base counter for the inputs gpt-tokenizer gets wrong or too slowly:
 * - a long run of one character class (a 1 MB line of "a") is a single pre-tokenizer piece, and
 *   the usual merge loop is quadratic in its length (minutes for 1 MB, no deadline can stop it);
 * - the byte order mark: gpt-tokenizer 4.0.0 never emits the o200k tokens that start with EF BB BF
 *   (its byte-to-string step drops the BOM), so it over-counts.
 * Same pre-tokenizer pattern and ranks as tiktoken; merges by a heap, lowest rank first and leftmost
 * on ties, which is the order tiktoken's scan produces, in O(n log n).
 */

// o200k_base's pre-tokenizer (tiktoken's pat_str for this encoding; gpt-tokenizer's is the same).
export const O200K_PIECES = new RegExp(
  [
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?",
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?",
    '\\p{N}{1,3}',
    ' ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*',
    '\\s*[\\r\\n]+',
    '\\s+(?!\\S)',
    '\\s+',
  ].join('|'),
  'gu',
);

/** Sticky: each `test` reads exactly one piece where `lastIndex` says, building no match array. */
const PIECE_AT = new RegExp(O200K_PIECES.source, 'uy');
/**
 * Longest text the pattern reads at once when the whole text is too much for it: V8's regex runs
 * out of backtracking stack on one piece of a few million characters (5,000,000 CJK ideographs).
 */
const PIECE_WINDOW_CHARS = 1 << 20;

/**
 * Where the pre-tokenizer piece that starts at `start` ends; `text.length` when no piece starts
 * there (the rest is then counted whole). A piece too long for V8's regex stack is read in a
 * window of PIECE_WINDOW_CHARS and cut at its end: such a text (which used to throw RangeError)
 * is counted as pieces of at most a million characters, within a token or two per cut.
 */
export function pieceEnd(text: string, start: number): number {
  PIECE_AT.lastIndex = start;
  try {
    return PIECE_AT.test(text) ? PIECE_AT.lastIndex : text.length;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const window = text.slice(start, start + PIECE_WINDOW_CHARS);
    PIECE_AT.lastIndex = 0;
    return start + (PIECE_AT.test(window) ? PIECE_AT.lastIndex : window.length);
  }
}

/** Longest run the fast path may see: a longer pre-tokenizer piece needs the heap merge. */
const LONG_RUN = 256;
const BYTE_ORDER_MARK = 0xfeff;

/**
 * True when `text` holds a piece that gpt-tokenizer would count wrongly (a BOM) or in quadratic
 * time (a run of LONG_RUN or more characters of one class). One pass over the char codes, erring
 * on the safe side: a non-ASCII character may be a letter, a mark, punctuation or a space, so it
 * extends every run; ASCII characters end the runs they cannot belong to.
 */
export function needsExactPath(text: string): boolean {
  let letters = 0;
  let symbols = 0;
  let spaces = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) {
      if (code === BYTE_ORDER_MARK) return true;
      letters += 1;
      symbols += 1;
      spaces += 1;
    } else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) {
      letters += 1;
      symbols = 0;
      spaces = 0;
    } else if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) {
      spaces += 1;
      letters = 0;
      symbols = 0;
    } else if (code >= 0x30 && code <= 0x39) {
      letters = 0;
      symbols = 0;
      spaces = 0;
    } else {
      symbols += 1;
      letters = 0;
      spaces = 0;
    }
    if (letters >= LONG_RUN || symbols >= LONG_RUN || spaces >= LONG_RUN) return true;
  }
  return false;
}

/** o200k_base's ranks both ways: token bytes (as a latin1 string, one char per byte) to rank, and rank to bytes. */
interface Ranks {
  readonly byBytes: Map<string, number>;
  readonly bytesOf: readonly string[];
  /** The rank of each single byte (every byte is a token). */
  readonly byteRank: Int32Array;
  /** The longest token's length in bytes. */
  readonly longest: number;
  /**
   * What two adjacent tokens merge into, by (left rank, right rank): the merged token's rank, or
   * -1 when the two bytes strings joined are no token. Filled as pairs are met: a long piece meets
   * few distinct pairs (a run of one character a dozen), looked up millions of times.
   */
  readonly merged: Map<number, number>;
}

let ranks: Ranks | undefined;

/** Built once from gpt-tokenizer's data. */
function rankTables(): Ranks {
  return ranks ?? finishNow(rankTablesSteps());
}

/**
 * Builds the tables as steps, pausing every PAUSE_EVERY tokens: 200,000 tokens take longer than
 * a turn of the event loop should, and the first long piece an async count meets builds them.
 */
function* rankTablesSteps(): Generator<undefined, Ranks> {
  const byBytes = new Map<string, number>();
  const bytesOf: string[] = [];
  let longest = 1;
  const table = o200kRanks();
  for (let rank = 0; rank < table.length; rank += 1) {
    const token = table[rank] ?? '';
    const bytes = (typeof token === 'string' ? Buffer.from(token, 'utf8') : Buffer.from(token)).toString('latin1');
    byBytes.set(bytes, rank);
    bytesOf[rank] = bytes;
    longest = Math.max(longest, bytes.length);
    if (rank % PAUSE_EVERY === 0) yield undefined;
  }
  const byteRank = new Int32Array(256).map((_, byte) => byBytes.get(String.fromCharCode(byte)) ?? -1);
  // Another count may have built them while this one was paused: keep the first.
  ranks ??= { byBytes, bytesOf, byteRank, longest, merged: new Map() };
  return ranks;
}

function finishNow<T>(steps: Generator<undefined, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Bounds the pair memo; emptied when full. Small, so that neither growing it (a rehash of every
 * entry at once) nor emptying it ever takes long: a run of one character meets a dozen pairs, a
 * random word keeps meeting new ones and gains little from a larger memo.
 */
const MAX_REMEMBERED_PAIRS = 1 << 16;
/** Ranks are below 2^18, so left * RANK_SPAN + right is one exact number per pair. */
const RANK_SPAN = 2 ** 18;

function mergedRank(tables: Ranks, left: number, right: number): number {
  const key = left * RANK_SPAN + right;
  let rank = tables.merged.get(key);
  if (rank === undefined) {
    rank = tables.byBytes.get((tables.bytesOf[left] ?? '') + (tables.bytesOf[right] ?? '')) ?? -1;
    if (tables.merged.size >= MAX_REMEMBERED_PAIRS) tables.merged.clear();
    tables.merged.set(key, rank);
  }
  return rank;
}

/** Work between two stop checks: characters read, or merges made inside one long piece. */
const STOP_CHECK_EVERY = 65_536;
/** Steps (bytes ranked, heap entries ordered, merges made) of one piece between two pauses: well under a millisecond. */
const PAUSE_EVERY = 4096;

/**
 * Counts `text` piece by piece; stops as soon as the count passes `limit` (returns a number above
 * it), so an early-exit check costs no more than the pieces it had to read, and a piece too long
 * to fit in what is left of the limit (it has at least one token per MAX_TOKEN_BYTES bytes) is
 * not merged at all. With `shouldStop`, asks it every STOP_CHECK_EVERY characters and merges (one
 * long piece can take seconds) and returns `undefined` when it says stop.
 */
export function countExact(text: string, limit?: number): number;
export function countExact(text: string, limit: number, shouldStop: () => boolean): number | undefined;
export function countExact(text: string, limit = Number.POSITIVE_INFINITY, shouldStop?: () => boolean): number | undefined {
  let count = 0;
  let sinceCheck = 0;
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    const piece = text.slice(start, end);
    start = end;
    const fewest = Math.ceil(Buffer.byteLength(piece, 'utf8') / maxTokenBytes());
    if (count + fewest > limit) return count + fewest;
    const tokens = finish(exactPieceSteps(piece), shouldStop);
    if (tokens === undefined) return undefined;
    count += tokens;
    if (count > limit) return count;
    sinceCheck += piece.length;
    if (shouldStop && sinceCheck >= STOP_CHECK_EVERY) {
      if (shouldStop()) return undefined;
      sinceCheck = 0;
    }
  }
  return count;
}

/** Runs `steps` to its end, asking `shouldStop` every STOP_CHECK_EVERY pauses; `undefined` when it said stop. */
function finish(steps: Generator<undefined, number>, shouldStop?: () => boolean): number | undefined {
  let pauses = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    pauses += 1;
    if (shouldStop && (pauses * PAUSE_EVERY) % STOP_CHECK_EVERY === 0 && shouldStop()) return undefined;
  }
}

/** The longest o200k token, in bytes: a piece of n bytes is at least n / this many tokens. */
function maxTokenBytes(): number {
  return rankTables().longest;
}

/**
 * BPE on one pre-tokenizer piece: the number of tokens it merges into. A generator that pauses
 * (yields) every PAUSE_EVERY steps, so that a caller can stop, or give the event loop a turn,
 * inside one long piece (a 4 MB word is 4 million merges); the count is the same however it is
 * driven.
 */
export function* exactPieceSteps(piece: string): Generator<undefined, number> {
  const tables = ranks ?? (yield* rankTablesSteps());
  const bytes = Buffer.from(piece, 'utf8');
  const length = bytes.length;
  if (length <= 1 || (length <= tables.longest && tables.byBytes.has(bytes.toString('latin1')))) return 1;
  // Parts are a linked list over byte offsets; `next[i]` is where the part starting at i ends,
  // `token[i]` its rank (every single byte is a token).
  const next = new Int32Array(length + 1);
  const previous = new Int32Array(length + 1);
  const token = new Int32Array(length + 1);
  for (let index = 0; index <= length; index += 1) {
    next[index] = index + 1;
    previous[index] = index - 1;
    if (index < length) token[index] = tables.byteRank[bytes[index] as number] as number;
    if (index % PAUSE_EVERY === 0) yield undefined;
  }
  const alive = new Uint8Array(length + 1).fill(1);
  /** The rank of the two parts starting at `start` merged, or -1 when that is no token (or there is no second part). */
  const pairRank = (start: number): number => {
    const middle = next[start] as number;
    if (middle >= length) return -1;
    return mergedRank(tables, token[start] as number, token[middle] as number);
  };
  const heap = new MergeHeap(length);
  for (let start = 0; start < length - 1; start += 1) {
    const rank = pairRank(start);
    if (rank >= 0) heap.add(rank, start, start + 2);
    if (start % PAUSE_EVERY === 0) yield undefined;
  }
  yield* heap.order(PAUSE_EVERY);
  let parts = length;
  let steps = 0;
  while (heap.size > 0) {
    const rank = heap.topRank();
    const start = heap.topStart();
    const end = heap.topEnd();
    heap.pop();
    steps += 1;
    if (steps % PAUSE_EVERY === 0) yield undefined;
    const middle = next[start] as number;
    // Stale when the left part is gone or either part changed since this pair was ranked.
    if (alive[start] === 0 || middle >= length || next[middle] !== end) continue;
    alive[middle] = 0;
    next[start] = end;
    token[start] = rank;
    if (end <= length) previous[end] = start;
    parts -= 1;
    const before = previous[start] as number;
    if (before >= 0) {
      const beforeRank = pairRank(before);
      if (beforeRank >= 0) heap.push(beforeRank, before, end);
    }
    const afterRank = pairRank(start);
    if (afterRank >= 0) heap.push(afterRank, start, next[end] as number);
  }
  return parts;
}

/** Where a key's start offset sits: rank * START_SPAN + start orders by rank, then leftmost. */
const START_SPAN = 2 ** 32;

/**
 * A binary min-heap of candidate merges ordered by (rank, start), as one number per entry (exact:
 * ranks are below 2^18 and starts below 2^32, so keys stay under 2^53), with the merge's end
 * beside it. Typed arrays, grown by doubling: no object per entry.
 */
class MergeHeap {
  private keys: Float64Array;
  private ends: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(Math.max(16, capacity));
    this.ends = new Int32Array(Math.max(16, capacity));
  }

  topStart(): number {
    return (this.keys[0] as number) % START_SPAN;
  }

  topRank(): number {
    return Math.floor((this.keys[0] as number) / START_SPAN);
  }

  topEnd(): number {
    return this.ends[0] as number;
  }

  /** Appends without ordering; `order()` makes the whole array a heap in O(n). */
  add(rank: number, start: number, end: number): void {
    this.grow();
    this.keys[this.size] = rank * START_SPAN + start;
    this.ends[this.size] = end;
    this.size += 1;
  }

  /** Heapifies what `add` appended, pausing every `pauseEvery` entries. */
  *order(pauseEvery: number): Generator<undefined, void> {
    for (let index = (this.size >> 1) - 1; index >= 0; index -= 1) {
      this.siftDown(index);
      if (index % pauseEvery === 0) yield undefined;
    }
  }

  push(rank: number, start: number, end: number): void {
    this.add(rank, start, end);
    const keys = this.keys;
    const ends = this.ends;
    let child = this.size - 1;
    const key = keys[child] as number;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if ((keys[parent] as number) <= key) break;
      keys[child] = keys[parent] as number;
      ends[child] = ends[parent] as number;
      child = parent;
    }
    keys[child] = key;
    ends[child] = end;
  }

  pop(): void {
    this.size -= 1;
    if (this.size === 0) return;
    this.keys[0] = this.keys[this.size] as number;
    this.ends[0] = this.ends[this.size] as number;
    this.siftDown(0);
  }

  private siftDown(from: number): void {
    const keys = this.keys;
    const ends = this.ends;
    const size = this.size;
    const key = keys[from] as number;
    const end = ends[from] as number;
    let parent = from;
    for (;;) {
      let child = parent * 2 + 1;
      if (child >= size) break;
      if (child + 1 < size && (keys[child + 1] as number) < (keys[child] as number)) child += 1;
      if ((keys[child] as number) >= key) break;
      keys[parent] = keys[child] as number;
      ends[parent] = ends[child] as number;
      parent = child;
    }
    keys[parent] = key;
    ends[parent] = end;
  }

  private grow(): void {
    if (this.size < this.keys.length) return;
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    const ends = new Int32Array(this.ends.length * 2);
    ends.set(this.ends);
    this.keys = keys;
    this.ends = ends;
  }
}
