import { countTokens } from '../tokens/index.js';
import { McpctxError } from '../errors/index.js';
import type { TokenCounter } from './_types.js';
import { describeValue } from '../json/index.js';

/** The default: exact o200k_base counts, the same as every published mcpctx number. */
export const O200K_COUNTER: TokenCounter = Object.freeze({ name: 'o200k', exact: true, count: countTokens });

/** Characters / 4, rounded up: cheap, and wrong by ±20% on code; reports label it an estimate. */
export const CHARS4_COUNTER: TokenCounter = Object.freeze({
  name: 'chars/4',
  exact: false,
  count: (text: string) => Math.ceil(text.length / 4),
});

export function resolveCounter(counter: 'o200k' | 'chars/4' | TokenCounter | undefined): TokenCounter {
  if (counter === undefined || counter === 'o200k') return O200K_COUNTER;
  if (counter === 'chars/4') return CHARS4_COUNTER;
  if (typeof counter === 'object' && counter !== null && typeof counter.count === 'function' && typeof counter.name === 'string') {
    return counter;
  }
  throw new McpctxError('INVALID_ARGUMENT', `counter must be 'o200k', 'chars/4' or an object with name and count(text), got ${describeValue(counter)}`);
}

/**
 * The sum of the counts of `texts`, each distinct text counted once: a session repeats whole
 * outputs (the same command run again, the same file viewed twice), and a count is a pure function
 * of the text. `counts` (text to count) is read and filled: a caller counting again keeps it.
 */
export function countDistinct(texts: readonly string[], counter: TokenCounter, counts = new Map<string, number>()): number {
  let total = 0;
  for (const text of texts) {
    let count = counts.get(text);
    if (count === undefined) {
      count = counter.count(text);
      counts.set(text, count);
    }
    total += count;
  }
  return total;
}
