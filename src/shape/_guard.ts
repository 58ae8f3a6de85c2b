import { McpctxError } from '../errors/index.js';
import { countTokens, isWithinTokenLimit } from '../tokens/index.js';
import { toolError, type TextToolResult } from './_tool-result.js';

/** What the guard reads from a result: the parts that reach a model as text. */
export interface GuardableResult {
  content?: readonly unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface ResultGuardOptions {
  /** The hard cap, in o200k tokens of the text the result would send. */
  readonly maxTokens: number;
  /** What the model should do instead; default names filtering, paging and fetching one item. */
  readonly remedy?: string;
}

const DEFAULT_REMEDY =
  'Narrow the query with a filter, ask for a page (a smaller page size or a cursor), or fetch one item by its id.';
// Past this size the exact figure is not worth counting; the message says "more than".
const EXACT_COUNT_MAX_CHARS = 64 * 1024 * 1024;

/**
 * Wraps a tool handler (as registered on the SDK's McpServer) so that a result whose text is
 * over `maxTokens` is never sent: the model gets an `isError` result naming the tool, the tokens
 * it would have returned, the cap and what to do. Within the cap the result passes unchanged.
 */
export function guardToolResult<Args extends unknown[], Result extends GuardableResult>(
  tool: string,
  handler: (...args: Args) => Result | Promise<Result>,
  options: ResultGuardOptions,
): (...args: Args) => Promise<Result | TextToolResult> {
  const { maxTokens } = options;
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `The result cap must be a positive integer of tokens, got ${maxTokens}.`);
  }
  const remedy = options.remedy ?? DEFAULT_REMEDY;
  return async (...args: Args) => {
    const result = await handler(...args);
    const texts = sentTexts(result);
    if (withinCap(texts, maxTokens)) return result;
    const chars = texts.reduce((sum, text) => sum + text.length, 0);
    const would =
      chars <= EXACT_COUNT_MAX_CHARS
        ? `${texts.reduce((sum, text) => sum + countTokens(text), 0).toLocaleString('en-US')} tokens`
        : `more than ${maxTokens.toLocaleString('en-US')} tokens`;
    return toolError(
      `RESULT_TOO_LARGE: tool "${tool}" would have returned ${would}, over this server's cap of ` +
        `${maxTokens.toLocaleString('en-US')} tokens per result, so nothing was returned. ${remedy}`,
    );
  };
}

/** The texts a result puts on the wire: text blocks, embedded text resources, structured content. */
export function sentTexts(result: GuardableResult): string[] {
  const texts: string[] = [];
  for (const block of result.content ?? []) {
    if (typeof block !== 'object' || block === null) continue;
    const { text, resource } = block as { text?: unknown; resource?: { text?: unknown } };
    if (typeof text === 'string') texts.push(text);
    if (typeof resource === 'object' && resource !== null && typeof resource.text === 'string') texts.push(resource.text);
  }
  if (result.structuredContent !== undefined) {
    const structured = JSON.stringify(result.structuredContent) as string | undefined;
    if (structured !== undefined) texts.push(structured);
  }
  return texts;
}

// Early exit: each text is counted only up to what is left of the cap.
function withinCap(texts: readonly string[], maxTokens: number): boolean {
  let left = maxTokens;
  for (const text of texts) {
    const tokens = isWithinTokenLimit(text, left);
    if (tokens === false) return false;
    left -= tokens;
  }
  return true;
}
