import { McpctxError } from '../errors/index.js';
import { countExact, needsExactPath, pieceEnd } from './_exact-bpe.js';
import { AS_PLAIN_TEXT, countByPieces, countPiece } from './_piece-count.js';
import { TOKENIZER_VERSION, o200kEncoder, o200kRanks } from './_rank-table.js';


/**
 * Loads the encoder now instead of at the first count, for a caller about to wait (a server
 * starting in its own process), so the load overlaps the wait. In two steps of about half each:
 * the rank table, then the encoder built from it; between them the event loop handles what came
 * in (the server's answer goes on its way instead of waiting for the whole load). Idempotent; a
 * count that comes first loads what is left itself. Never rejects: a tokenizer that cannot load
 * fails the first count, where the error is reported.
 */
export async function warmUpTokenizer(): Promise<void> {
  try {
    o200kRanks();
    await new Promise((resolve) => setImmediate(resolve));
    o200kEncoder();
  } catch {
    // the first count throws the same error
  }
}

/** The counter every published number uses. */
export const TOKENIZER = Object.freeze({
  name: 'gpt-tokenizer',
  version: TOKENIZER_VERSION,
  encoding: 'o200k_base',
});

/** o200k_base token count of `text`; never throws on special-token strings. */
export function countTokens(text: string): number {
  checkText(text, 'countTokens');
  return countByPieces(text, countPiece);
}


/**
 * Early-exit check: the count when `text` has at most `limit` tokens, otherwise `false`.
 * Stops encoding as soon as the limit is passed, so a huge text over a small cap is cheap.
 */
export function isWithinTokenLimit(text: string, limit: number): number | false {
  checkText(text, 'isWithinTokenLimit');
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 0) {
    throw new McpctxError('INVALID_ARGUMENT', `isWithinTokenLimit: the token limit must be a non-negative number, got ${String(limit)}`, { limit });
  }
  if (needsExactPath(text)) {
    const count = countExact(text, limit);
    return count > limit ? false : count;
  }
  return o200kEncoder().isWithinTokenLimit(text, limit, AS_PLAIN_TEXT);
}

/** Characters counted between two stop checks; a text this short is counted in one go. */
export const COUNT_SLICE_CHARS = 65_536;

export interface StoppableCountOptions {
  /** Asked before each slice is counted; `true` ends the count without a result. */
  shouldStop: () => boolean;
  /** Characters per slice (at least; a slice ends on a piece boundary). Default COUNT_SLICE_CHARS. */
  sliceChars?: number;
}

const WHITESPACE = /\s/u;

/**
 * The exact o200k_base count of `text` (the same number as `countTokens`), counted in slices with
 * `shouldStop()` asked between them, so a deadline can end a long count: `undefined` when it did.
 * Counting is synchronous CPU work; slicing is the only way to let a caller stop it. A text of
 * at most `sliceChars` is counted in one go, as `countTokens` does. One very long piece (a run of
 * one character class, which no slice boundary can cut) goes to the exact path, which asks
 * `shouldStop()` while it merges.
 *
 * A slice ends only where the pre-tokenizer ends a piece, and never after a whitespace character.
 * BPE works within pieces, so the count is the sum over pieces; the pieces of a slice are the
 * pieces of the whole text because the pattern has no lookbehind, and its only lookahead,
 * `\s+(?!\S)`, can see the end of a slice only when the slice ends in whitespace.
 */
export function countTokensStoppable(text: string, options: StoppableCountOptions): number | undefined {
  checkText(text, 'countTokensStoppable');
  const sliceChars = options.sliceChars ?? COUNT_SLICE_CHARS;
  if (!Number.isInteger(sliceChars) || sliceChars < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `countTokensStoppable: sliceChars must be a positive integer, got ${String(sliceChars)}`);
  }
  const { shouldStop } = options;
  if (shouldStop()) return undefined;
  // One long piece (a run of one character class) is one BPE job: the exact path asks shouldStop inside it.
  const countSlice = (slice: string): number | undefined =>
    needsExactPath(slice) ? countExact(slice, Number.POSITIVE_INFINITY, shouldStop) : o200kEncoder().countTokens(slice, AS_PLAIN_TEXT);
  if (text.length <= sliceChars) return countSlice(text);
  let count = 0;
  let start = 0;
  for (let end = 0; end < text.length; ) {
    end = pieceEnd(text, end);
    if (end - start < sliceChars || WHITESPACE.test(text.charAt(end - 1))) continue;
    const tokens = countSlice(text.slice(start, end));
    if (tokens === undefined || shouldStop()) return undefined;
    count += tokens;
    start = end;
  }
  if (start === text.length) return count;
  const tokens = countSlice(text.slice(start));
  return tokens === undefined ? undefined : count + tokens;
}

function checkText(text: unknown, where: string): void {
  if (typeof text !== 'string') {
    throw new McpctxError('INVALID_ARGUMENT', `${where}: expected a string, got ${text === null ? 'null' : typeof text}`);
  }
}
