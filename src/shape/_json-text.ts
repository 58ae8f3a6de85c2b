import { McpctxError } from '../errors/index.js';

/**
 * `JSON.stringify(value)` that never lets a TypeError or RangeError out: a cycle, a bigint or
 * nesting deeper than the stack is an INVALID_ARGUMENT McpctxError naming `what`. Undefined (the
 * value has no JSON form: undefined, a function, a symbol) is left to the caller to refuse or map.
 */
export function jsonText(value: unknown, what: string): string | undefined {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch (error) {
    throw new McpctxError('INVALID_ARGUMENT', `${what} has no JSON form: ${(error as Error).message}.`, { reason: 'no-json-form' }, { cause: error });
  }
}
