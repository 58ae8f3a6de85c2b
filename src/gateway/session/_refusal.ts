import { toolResultTokensWithin } from '../../shape/index.js';
import type { ReceiptAction } from '../receipts/index.js';
import type { CallOutcome } from './_call.js';
import type { JsonObject } from '../../json/index.js';

/**
 * A call the gateway answers itself with a tool error result (`isError: true`, one text part):
 * the model reads why and what to do instead. Nothing was sent upstream, or nothing came back
 * (`failed`), so the upstream's tokens are 0.
 */
export function refusal(text: string, options: { action?: ReceiptAction; note?: string; meta?: JsonObject } = {}): CallOutcome {
  const result: JsonObject = { content: [{ type: 'text', text }], isError: true };
  if (options.meta !== undefined) result._meta = options.meta;
  return {
    result,
    action: options.action ?? 'denied',
    upstreamTokens: 0,
    deliveredTokens: resultTokens(result),
    ...(options.note === undefined ? {} : { note: options.note }),
  };
}

/** The text of a result the gateway made (its text blocks, joined), as a JSON-RPC error would say it. */
export function refusalText(result: JsonObject): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .map((block: unknown) => (typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string' ? (block as { text: string }).text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** What a result the gateway made costs, as every result is counted (`toolResultCost`'s text parts). */
export function resultTokens(result: JsonObject): number {
  return toolResultTokensWithin(result, Number.MAX_SAFE_INTEGER) as number;
}

/** Characters of a called name a refusal quotes: the name is the caller's own, so a long one is only recognised, not echoed whole. */
const SHOWN_NAME_CHARS = 80;

/** A called name as a refusal or an error shows it: a long one cut, with its length. */
export function shownName(name: string): string {
  return name.length <= SHOWN_NAME_CHARS ? name : `${name.slice(0, SHOWN_NAME_CHARS)}… (${name.length.toLocaleString('en-US')} characters)`;
}
