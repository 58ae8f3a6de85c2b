// Pure (no Node module): the site's in-browser verify bundles this file; sha256Hex lives in _sha256.ts.
import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/index.js';

/**
 * `JSON.stringify(value)` that never lets a TypeError or RangeError out: a cycle, a bigint or
 * nesting deeper than the stack is an INVALID_ARGUMENT McpctxError naming `what`. No walk before
 * stringifying, so hot paths (a pager serializing each record) pay nothing for the check.
 * `undefined` (the value has no JSON form: undefined, a function, a symbol) is left to the caller.
 */
export function jsonText(value: unknown, what: string): string | undefined {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch (error) {
    throw new McpctxError('INVALID_ARGUMENT', `${what} has no JSON form: ${(error as Error).message}`, { reason: 'no-json-form' }, { cause: error });
  }
}

/**
 * The canonical form of a parsed JSON value: `JSON.stringify` with no whitespace and the key
 * order as parsed. Deliberately not key-sorted: order is part of what the model reads.
 * Refuses what has no JSON form, and nesting past MAX_JSON_DEPTH (see `jsonText`).
 */
export function canonicalJson(value: unknown): string {
  // Walked first: a parsed value may legally nest 200,000 levels, and a stack overflow would also
  // lose the distinction between "too deep" and "not JSON".
  if (nestsDeeperThan(value)) {
    throw new McpctxError('NESTING_TOO_DEEP', `canonicalJson: the value nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`, {
      limit: MAX_JSON_DEPTH,
    });
  }
  const text = jsonText(value, 'canonicalJson: the value');
  if (text === undefined) throw new McpctxError('INVALID_ARGUMENT', 'canonicalJson: the value has no JSON form (undefined, a function or a symbol)');
  return text;
}
