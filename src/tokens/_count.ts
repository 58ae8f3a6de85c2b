import { createRequire } from 'node:module';
import { countTokens as countO200k, isWithinTokenLimit as withinO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countExact, needsExactPath } from './_exact-bpe.js';

// Special-token strings such as `<|endoftext|>` are ordinary text in tool catalogs and results:
// an empty disallowed set makes the tokenizer encode them as text instead of throwing.
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const require = createRequire(import.meta.url);
const tokenizerVersion = (require('gpt-tokenizer/package.json') as { version: string }).version;

/** The counter every published number uses. */
export const TOKENIZER = Object.freeze({
  name: 'gpt-tokenizer',
  version: tokenizerVersion,
  encoding: 'o200k_base',
});

/** o200k_base token count of `text`; never throws on special-token strings. */
export function countTokens(text: string): number {
  return needsExactPath(text) ? countExact(text) : countO200k(text, AS_PLAIN_TEXT);
}

/**
 * Early-exit check: the count when `text` has at most `limit` tokens, otherwise `false`.
 * Stops encoding as soon as the limit is passed, so a huge text over a small cap is cheap.
 */
export function isWithinTokenLimit(text: string, limit: number): number | false {
  if (!Number.isFinite(limit) || limit < 0) throw new RangeError(`token limit must be a non-negative number, got ${limit}`);
  if (needsExactPath(text)) {
    const count = countExact(text, limit);
    return count > limit ? false : count;
  }
  return withinO200k(text, limit, AS_PLAIN_TEXT);
}
