import { McpctxError } from '../errors/index.js';
import { isPlainObject } from '../json/index.js';
import { MAX_SAFETY_FACTOR, o200kCapOf } from '../tokens/index.js';
import { partsTokensWithin, toolResultParts, type ResultPart } from './_result-parts.js';
import { toolError, toolErrorFrom, type TextToolResult, type ToolErrorOptions } from './_tool-result.js';

/** What the guard reads from a result: every part that reaches a model (see `toolResultParts`). */
export interface GuardableResult {
  content?: readonly unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface ResultGuardOptions<Args extends unknown[] = unknown[]> extends Omit<ToolErrorOptions, 'tool'> {
  /** The hard cap, in o200k tokens of the text the result would send (binary parts' fields included). */
  readonly maxTokens: number;
  /** The cap on the decoded bytes of all binary parts (images, audio, blobs) of one result; default 1 MiB. */
  readonly maxBinaryBytes?: number;
  /**
   * What the model should do instead: a text, or a function of what the guard measured (and the
   * call's arguments). Default: narrow the query, page, or fetch one item by its id.
   */
  readonly remedy?: string | ((refusal: ResultRefusal<Args>) => string);
  /** The key of an item's id, to name the items of a refused page; default `id`. */
  readonly idField?: string;
  /**
   * For a cap meant in Claude tokens: o200k counts are multiplied by this factor (from a calibrated
   * table, see `claudeSafetyFactor` in mcpctx/tokens) before they meet `maxTokens`, as no local
   * Claude tokenizer exists. Default 1 (the cap is in o200k tokens).
   */
  readonly safetyFactor?: number;
  /** Called with what the guard measured on each result it refuses, before the refusal is returned (for a log or a metric). */
  readonly onRefusal?: (refusal: ResultRefusal<Args>) => void;
}

/** What the guard measured on a result it refuses. */
export interface ResultRefusal<Args extends unknown[] = unknown[]> {
  readonly tool: string;
  /** The arguments the handler was called with. */
  readonly args: Args;
  readonly maxTokens: number;
  /**
   * The result's text tokens (o200k, times `safetyFactor` rounded up when one is set), exact when
   * `exact`; otherwise a lower bound (counting stopped there).
   */
  readonly tokens: number;
  readonly exact: boolean;
  /** The factor o200k counts were multiplied by (1 when none was set). */
  readonly safetyFactor: number;
  readonly binaryBytes: number;
  readonly maxBinaryBytes: number;
  /** When the result is a page (`{items, next_cursor, ...}`): its items' ids, and the cursor past them. */
  readonly page: RefusedPage | undefined;
}

export interface RefusedPage {
  /** The value of `idField` of each item (undefined for an item without one). */
  readonly ids: readonly unknown[];
  readonly nextCursor: string | null;
}

const DEFAULT_REMEDY =
  'Narrow the query with a filter, ask for a page (a smaller page size or a cursor), or fetch one item by its id.';
const DEFAULT_MAX_BINARY_BYTES = 1024 * 1024;
/** A refused result is counted exactly up to this many times the cap; past that the message says "more than". */
const EXACT_COUNT_FACTOR = 10;
/** A refused page's text is parsed for its ids only up to this size. */
const PAGE_PARSE_MAX_CHARS = 16 * 1024 * 1024;
/** Ids named in a refusal; the rest are counted. */
const MAX_NAMED_IDS = 20;

/**
 * Wraps a tool handler (as registered on the SDK's McpServer) so that what it returns is bounded:
 * a result over `maxTokens` of text, or over `maxBinaryBytes` of images, audio and blobs, is never
 * sent. The model gets an `isError` result naming the tool, what it would have returned, the cap,
 * for a page the ids of its items and the cursor that skips them, and what to do. Counting stops
 * early: a huge result costs about EXACT_COUNT_FACTOR times the cap to refuse, not its size.
 * A handler that throws becomes a tool error too (`toolErrorFrom`: an McpctxError keeps its code
 * and remedy; anything else is a generic message with an error id, the details go to `log`).
 * Within both caps the result passes unchanged.
 */
export function guardToolResult<Args extends unknown[], Result extends GuardableResult>(
  tool: string,
  handler: (...args: Args) => Result | Promise<Result>,
  options: ResultGuardOptions<Args>,
): (...args: Args) => Promise<Result | TextToolResult> {
  const { maxTokens } = options;
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `The result cap must be a positive integer of tokens, got ${maxTokens}.`);
  }
  const safetyFactor = options.safetyFactor ?? 1;
  if (!Number.isFinite(safetyFactor) || safetyFactor <= 0 || safetyFactor > MAX_SAFETY_FACTOR) {
    throw new McpctxError('INVALID_ARGUMENT', `A safety factor must be a number above 0 and at most ${MAX_SAFETY_FACTOR}, got ${safetyFactor}.`);
  }
  // The o200k count a result may reach: its estimate (count × factor) must stay within the cap.
  const o200kCap = o200kCapOf(maxTokens, safetyFactor);
  const maxBinaryBytes = options.maxBinaryBytes ?? DEFAULT_MAX_BINARY_BYTES;
  if (!Number.isSafeInteger(maxBinaryBytes) || maxBinaryBytes < 0) {
    throw new McpctxError('INVALID_ARGUMENT', `The binary cap must be a non-negative integer of bytes, got ${maxBinaryBytes}.`);
  }
  const errorOptions: ToolErrorOptions = { tool, ...(options.redact ? { redact: options.redact } : {}), ...(options.log ? { log: options.log } : {}) };
  const redact = options.redact ?? ((text: string) => text);
  return async (...args: Args) => {
    let result: Result;
    let parts: ResultPart[];
    try {
      result = await handler(...args);
      parts = toolResultParts(result);
    } catch (error) {
      return toolErrorFrom(error, errorOptions);
    }
    const binaryBytes = parts.reduce((sum, part) => sum + (part.text === null ? part.bytes : 0), 0);
    const within = partsTokensWithin(parts, o200kCap);
    if (within !== false && binaryBytes <= maxBinaryBytes) return result;
    const counted = within !== false ? within : partsTokensWithin(parts, o200kCap * EXACT_COUNT_FACTOR);
    const o200kTokens = counted === false ? o200kCap * EXACT_COUNT_FACTOR : counted;
    const refusal: ResultRefusal<Args> = {
      tool,
      args,
      maxTokens,
      tokens: safetyFactor === 1 ? o200kTokens : Math.ceil(o200kTokens * safetyFactor),
      exact: counted !== false,
      safetyFactor,
      binaryBytes,
      maxBinaryBytes,
      page: pageOf(parts, options.idField ?? 'id'),
    };
    options.onRefusal?.(refusal);
    const remedy = typeof options.remedy === 'function' ? options.remedy(refusal) : (options.remedy ?? DEFAULT_REMEDY);
    return toolError(redact(`${refusalText(refusal)} ${remedy}`));
  };
}

function refusalText(refusal: ResultRefusal<unknown[]>): string {
  const number = (value: number): string => value.toLocaleString('en-US');
  const overText = refusal.tokens > refusal.maxTokens || !refusal.exact;
  const estimated = refusal.safetyFactor === 1 ? '' : ` (o200k count × ${refusal.safetyFactor}, an estimate of Claude tokens)`;
  const tokens = (refusal.exact ? `${number(refusal.tokens)} tokens` : `more than ${number(refusal.tokens)} tokens`) + estimated;
  const over: string[] = [];
  if (overText) over.push(`${tokens}, over this server's cap of ${number(refusal.maxTokens)} tokens per result`);
  if (refusal.binaryBytes > refusal.maxBinaryBytes) {
    over.push(`${number(refusal.binaryBytes)} bytes of images, audio or blobs, over the cap of ${number(refusal.maxBinaryBytes)} bytes`);
  }
  const parts = [`RESULT_TOO_LARGE: tool "${refusal.tool}" would have returned ${over.join(', and ')}, so nothing was returned.`];
  if (refusal.page !== undefined) parts.push(pageText(refusal.page));
  return parts.join(' ');
}

function pageText(page: RefusedPage): string {
  const count = page.ids.length;
  const named = page.ids.filter((id) => id !== undefined);
  const items =
    named.length === 0
      ? `${count} item${count === 1 ? '' : 's'} without ids`
      : `the item${count === 1 ? '' : 's'} with id ${named.slice(0, MAX_NAMED_IDS).map((id) => JSON.stringify(id)).join(', ')}` +
        (named.length > MAX_NAMED_IDS ? ` and ${named.length - MAX_NAMED_IDS} more` : '') +
        (named.length < count ? ` (and ${count - named.length} without ids)` : '');
  const skip =
    page.nextCursor === null
      ? 'They are the last that match.'
      : `To skip them, call again with cursor "${page.nextCursor}".`;
  return `The page held ${items}. ${skip}`;
}

/** The items' ids and the next cursor, when a text or structured part is a page `{items: [...], next_cursor}`. */
function pageOf(parts: readonly ResultPart[], idField: string): RefusedPage | undefined {
  for (const part of parts) {
    const text = part.text;
    if (text === null || text.length > PAGE_PARSE_MAX_CHARS || !text.trimStart().startsWith('{')) continue;
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      continue;
    }
    if (!isPlainObject(value) || !Array.isArray(value.items) || !Object.hasOwn(value, 'next_cursor')) continue;
    const nextCursor = typeof value.next_cursor === 'string' ? value.next_cursor : null;
    const ids = value.items.map((item: unknown) => (isPlainObject(item) && Object.hasOwn(item, idField) ? item[idField] : undefined));
    return { ids, nextCursor };
  }
  return undefined;
}
