import { createHash } from 'node:crypto';
import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './_json-value.js';

/**
 * The canonical form of a parsed JSON value: `JSON.stringify` with no whitespace and the key
 * order as parsed. Deliberately not key-sorted: order is part of what the model reads.
 * Refuses (`NESTING_TOO_DEEP`) a value nested deeper than MAX_JSON_DEPTH before stringifying it,
 * because `JSON.stringify` recurses and would overflow the stack on what `JSON.parse` accepted.
 */
export function canonicalJson(value: unknown): string {
  if (nestsDeeperThan(value)) {
    throw new McpctxError('NESTING_TOO_DEEP', `canonicalJson: the value nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`, {
      limit: MAX_JSON_DEPTH,
    });
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // A BigInt or a cycle: not a parsed JSON value.
    throw new McpctxError('INVALID_ARGUMENT', `canonicalJson: the value has no JSON form: ${(error as Error).message}`);
  }
  if (text === undefined) throw new McpctxError('INVALID_ARGUMENT', 'canonicalJson: the value has no JSON form (undefined, a function or a symbol)');
  return text;
}

export function sha256Hex(input: string | Uint8Array): string {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    throw new McpctxError('INVALID_ARGUMENT', `sha256Hex: expected a string or bytes, got ${input === null ? 'null' : typeof input}`);
  }
  return createHash('sha256').update(input).digest('hex');
}
