/**
 * Token counts from an API's usage, one rule for every provider. The counts that make the bill
 * (input and output) must be reported, as non-negative integers; a count an API may leave out
 * (cache reads and writes: a server without a prompt cache never reports them) is 0 when absent or
 * null. A malformed count is the API outside its shape (PROVIDER_ERROR). An answer with no usage at
 * all is the provider's to judge: where the API documents it always (Anthropic's message_start) it
 * is PROVIDER_ERROR; where servers leave it out (OpenAI-compatible streams) the usage is null,
 * unknown. Either way a receipt never shows 0 tokens for tokens that were spent.
 */
import type { McpctxError } from '../errors/index.js';

/** Builds the provider's PROVIDER_ERROR for an answer outside its API's shape. */
export type ShapeError = (message: string) => McpctxError;

/** `field` names the count in the error, as the API spells it (`usage.input_tokens`). */
export function tokenCount(value: unknown, field: string, need: 'required' | 'optional', notInShape: ShapeError): number {
  if ((value === undefined || value === null) && need === 'optional') return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw notInShape(`${field} is not a token count: ${value === undefined ? 'absent' : JSON.stringify(value)}`);
  }
  return value;
}
