import { countExact, needsExactPath, pieceEnd } from './_exact-bpe.js';
import { o200kEncoder } from './_rank-table.js';

/**
 * Counting by pre-tokenizer pieces, with the count of each short piece remembered. BPE merges
 * only within a piece, so a text's count is the sum of its pieces' counts; the same few thousand
 * pieces (words, indentation, punctuation runs) make up most of any log or source file, and a
 * remembered piece costs a map lookup instead of a rank lookup and a match object. The result is
 * the same number as counting the whole text at once (test/tokens/piece-count.test.ts checks it
 * against gpt-tokenizer on real catalogs and hostile text).
 */

/** Longer pieces (hashes, base64, long runs) rarely repeat: counted each time, never remembered. */
const MAX_REMEMBERED_PIECE_CHARS = 48;
/** Bounds the memory a long-lived process gives the memo (at most about 10 MB). */
const MAX_REMEMBERED_PIECES = 131_072;

const remembered = new Map<string, number>();

// Special-token strings such as `<|endoftext|>` are ordinary text in tool catalogs and results:
// an empty disallowed set makes the tokenizer encode them as text instead of throwing.
export const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** One pre-tokenizer piece, by gpt-tokenizer unless it is one it gets wrong or too slowly (`_exact-bpe.ts`). */
export function countPiece(piece: string): number {
  return needsExactPath(piece) ? countExact(piece) : o200kEncoder().countTokens(piece, AS_PLAIN_TEXT);
}

/** The sum of `countPiece` over the pieces of `text`, short pieces counted once per process. */
export function countByPieces(text: string, countPiece: (piece: string) => number): number {
  let count = 0;
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    count += rememberedCount(text.slice(start, end), countPiece);
    start = end;
  }
  return count;
}

/** `countPiece(piece)`, remembered when the piece is short. */
export function rememberedCount(piece: string, countPiece: (piece: string) => number): number {
  if (piece.length > MAX_REMEMBERED_PIECE_CHARS) return countPiece(piece);
  let pieceCount = remembered.get(piece);
  if (pieceCount === undefined) {
    pieceCount = countPiece(piece);
    if (remembered.size >= MAX_REMEMBERED_PIECES) remembered.clear();
    remembered.set(piece, pieceCount);
  }
  return pieceCount;
}
