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

let ranks: Map<string, number> | undefined;

/** Token bytes (as a latin1 string, one char per byte) to rank, built once from gpt-tokenizer's data. */
function rankMap(): Map<string, number> {
  if (ranks) return ranks;
  const map = new Map<string, number>();
  o200kRanks().forEach((token, rank) => {
    const bytes = typeof token === 'string' ? Buffer.from(token, 'utf8') : Buffer.from(token);
    map.set(bytes.toString('latin1'), rank);
  });
  ranks = map;
  return map;
}

/** Work between two stop checks: characters read, or merges made inside one long piece. */
const STOP_CHECK_EVERY = 65_536;

/**
 * Counts `text` piece by piece; stops as soon as the count passes `limit` (returns a number above
 * it), so an early-exit check costs no more than the pieces it had to read. With `shouldStop`, asks
 * it every STOP_CHECK_EVERY characters and merges (one long piece can take seconds) and returns
 * `undefined` when it says stop.
 */
export function countExact(text: string, limit?: number): number;
export function countExact(text: string, limit: number, shouldStop: () => boolean): number | undefined;
export function countExact(text: string, limit = Number.POSITIVE_INFINITY, shouldStop?: () => boolean): number | undefined {
  const table = rankMap();
  let count = 0;
  let sinceCheck = 0;
  for (const [piece] of text.matchAll(O200K_PIECES)) {
    const tokens = countPiece(Buffer.from(piece, 'utf8').toString('latin1'), table, shouldStop);
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

/** BPE on one piece (a latin1 string of its UTF-8 bytes): the number of tokens it merges into. */
function countPiece(bytes: string, table: Map<string, number>, shouldStop?: () => boolean): number | undefined {
  const length = bytes.length;
  if (length <= 1 || table.has(bytes)) return 1;
  // Parts are a linked list over byte offsets; `next[i]` is where the part starting at i ends.
  const next = new Int32Array(length + 1);
  const previous = new Int32Array(length + 1);
  for (let index = 0; index <= length; index += 1) {
    next[index] = index + 1;
    previous[index] = index - 1;
  }
  const alive = new Uint8Array(length + 1).fill(1);
  const heap = new MergeHeap();
  const pairRank = (start: number): number | undefined => {
    const middle = next[start] ?? length;
    if (middle >= length) return undefined;
    const end = next[middle] ?? length;
    return table.get(bytes.slice(start, end));
  };
  for (let start = 0; start < length - 1; start += 1) {
    const rank = pairRank(start);
    if (rank !== undefined) heap.push(rank, start, start + 2);
  }
  let parts = length;
  let pops = 0;
  for (let entry = heap.pop(); entry; entry = heap.pop()) {
    pops += 1;
    if (shouldStop && pops % STOP_CHECK_EVERY === 0 && shouldStop()) return undefined;
    const { start, end } = entry;
    const middle = next[start] ?? length;
    // Stale when the left part is gone or either part changed since this pair was ranked.
    if (!alive[start] || middle >= length || (next[middle] ?? length) !== end) continue;
    alive[middle] = 0;
    next[start] = end;
    if (end <= length) previous[end] = start;
    parts -= 1;
    const before = previous[start] ?? -1;
    if (before >= 0) {
      const rank = pairRank(before);
      if (rank !== undefined) heap.push(rank, before, next[start] ?? length);
    }
    const rank = pairRank(start);
    if (rank !== undefined) heap.push(rank, start, next[next[start] ?? length] ?? length);
  }
  return parts;
}

/** A binary min-heap of candidate merges ordered by (rank, start). */
class MergeHeap {
  private readonly ranks: number[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  push(rank: number, start: number, end: number): void {
    this.ranks.push(rank);
    this.starts.push(start);
    this.ends.push(end);
    let child = this.ranks.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.less(child, parent)) break;
      this.swap(child, parent);
      child = parent;
    }
  }

  pop(): { rank: number; start: number; end: number } | undefined {
    const size = this.ranks.length;
    if (size === 0) return undefined;
    const top = { rank: this.ranks[0] ?? 0, start: this.starts[0] ?? 0, end: this.ends[0] ?? 0 };
    this.swap(0, size - 1);
    this.ranks.pop();
    this.starts.pop();
    this.ends.pop();
    let parent = 0;
    for (;;) {
      const left = parent * 2 + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < size - 1 && this.less(left, smallest)) smallest = left;
      if (right < size - 1 && this.less(right, smallest)) smallest = right;
      if (smallest === parent) break;
      this.swap(parent, smallest);
      parent = smallest;
    }
    return top;
  }

  private less(a: number, b: number): boolean {
    const rankA = this.ranks[a] ?? 0;
    const rankB = this.ranks[b] ?? 0;
    return rankA < rankB || (rankA === rankB && (this.starts[a] ?? 0) < (this.starts[b] ?? 0));
  }

  private swap(a: number, b: number): void {
    for (const column of [this.ranks, this.starts, this.ends]) {
      const value = column[a] ?? 0;
      column[a] = column[b] ?? 0;
      column[b] = value;
    }
  }
}
