import { McpctxError } from '../errors/index.js';
import { countTokens, countTokensEach, isWithinTokenLimit, jsonText } from '../tokens/index.js';
import { describeValue, isPlainObject, type JsonObject } from '../json/index.js';

/**
 * What a `tools/call` result puts into a model's context, part by part. This is the one definition
 * of a result's cost: the result guard, `inspect-result` and the gateway all read results through it.
 *
 * - a text block: its text;
 * - an embedded resource: its `text`, or for a `blob` its decoded bytes (binary);
 * - a `resource_link`: the block's compact JSON (name, uri, description... all reach the model);
 * - an image or audio block: the decoded bytes of its `data` (binary, not text tokens), and its
 *   other fields (mimeType, annotations, a blob's uri...) as compact JSON, counted as text;
 * - any other block, or a malformed one: its compact JSON (a client may pass it through as is);
 * - `structuredContent`: its compact JSON.
 */
export type ResultPartKind = 'text' | 'resource-text' | 'resource-blob' | 'resource-link' | 'image' | 'audio' | 'other' | 'structured';

export interface ResultPart {
  /** Where the part is: `content[2]` or `structuredContent`. */
  readonly where: string;
  /** Index of the content block; null for structuredContent. */
  readonly block: number | null;
  /** The block's `type` as sent (`text`, `resource_link`, ...); `structuredContent` for that part. */
  readonly type: string;
  readonly kind: ResultPartKind;
  /** The text the model reads; null for binary data (images, audio, blobs), which is paid for by its bytes. */
  readonly text: string | null;
  /** UTF-8 bytes of `text`, or for binary data the decoded length of its base64. */
  readonly bytes: number;
  /**
   * For binary data: the block's other fields (its compact JSON without the base64), which a
   * client may show as text and a server can make as long as it likes. Null for text parts.
   */
  readonly fields: string | null;
}

export interface CountedResultPart extends ResultPart {
  /** o200k tokens of `text`; null for binary data. */
  readonly tokens: number | null;
  /** o200k tokens of `fields`; null for text parts. */
  readonly fieldTokens: number | null;
}

export interface ToolResultCost {
  readonly parts: readonly CountedResultPart[];
  /** Sum of the text parts' tokens: what the result costs as text. */
  readonly textTokens: number;
  /** Decoded bytes of every binary part (images, audio, blobs). */
  readonly binaryBytes: number;
  /** Sum of the binary parts' field tokens (their mimeType, uri, annotations... as compact JSON). */
  readonly binaryFieldTokens: number;
}

/** The parts of a result in wire order (content blocks, then structuredContent). Counts nothing. */
export function toolResultParts(result: unknown): ResultPart[] {
  if (!isPlainObject(result)) {
    throw new McpctxError('INVALID_ARGUMENT', `A tool result must be an object, got ${describeValue(result)}.`);
  }
  const parts: ResultPart[] = [];
  const content = Array.isArray(result.content) ? result.content : [];
  for (const [index, block] of content.entries()) parts.push(blockPart(block, index));
  if (Object.hasOwn(result, 'structuredContent') && result.structuredContent !== undefined) {
    parts.push(textPart('structuredContent', null, 'structuredContent', 'structured', compactJson(result.structuredContent, 'structuredContent')));
  }
  return parts;
}

/** Every part counted exactly in o200k tokens, with the totals. */
export function toolResultCost(result: unknown): ToolResultCost {
  const parts = toolResultParts(result);
  return costOf(
    parts,
    parts.map((part) => countTokens(countedText(part))),
  );
}

/**
 * `toolResultCost`, counted in turns that let the event loop run between them (`countTokensEach`):
 * what a server that answers other clients meanwhile (the gateway) calls, since counting one huge
 * text takes seconds. The same numbers; rejects with `signal`'s reason when it is aborted.
 */
export async function toolResultCostAsync(result: unknown, options: { signal?: AbortSignal } = {}): Promise<ToolResultCost> {
  const parts = toolResultParts(result);
  return costOf(parts, await countTokensEach(parts.map(countedText), options));
}

/** What is counted of a part: its text, or for binary data its other fields. */
function countedText(part: ResultPart): string {
  return part.text ?? part.fields ?? '';
}

function costOf(parts: readonly ResultPart[], counts: readonly number[]): ToolResultCost {
  let textTokens = 0;
  let binaryBytes = 0;
  let binaryFieldTokens = 0;
  const counted = parts.map((part, index): CountedResultPart => {
    const tokens = counts[index] ?? 0;
    if (part.text === null) {
      binaryBytes += part.bytes;
      binaryFieldTokens += tokens;
      return { ...part, tokens: null, fieldTokens: tokens };
    }
    textTokens += tokens;
    return { ...part, tokens, fieldTokens: null };
  });
  return { parts: counted, textTokens, binaryBytes, binaryFieldTokens };
}

/**
 * The text tokens of a result (its text parts and its binary parts' fields, as `toolResultCost`
 * counts them) when they are at most `limit`, else false. Counts with early exit: a huge result
 * costs about `limit` tokens of work, not its whole size.
 */
export function toolResultTokensWithin(result: unknown, limit: number): number | false {
  return partsTokensWithin(toolResultParts(result), limit);
}

/** `toolResultTokensWithin` over parts already listed. */
export function partsTokensWithin(parts: readonly ResultPart[], limit: number): number | false {
  if (!Number.isFinite(limit) || limit < 0) {
    throw new McpctxError('INVALID_ARGUMENT', `A token limit must be a non-negative number, got ${limit}.`);
  }
  let left = limit;
  for (const part of parts) {
    const tokens = isWithinTokenLimit(countedText(part), left);
    if (tokens === false) return false;
    left -= tokens;
  }
  return limit - left;
}

/** Decoded length of base64 (standard or url-safe) text, without decoding it. */
export function base64DecodedBytes(data: string): number {
  let body = data.replace(/[\s=]+$/u, '');
  if (/\s/u.test(body)) body = body.replace(/\s+/gu, '');
  return Math.floor((body.length * 3) / 4);
}

function blockPart(block: unknown, index: number): ResultPart {
  const where = `content[${index}]`;
  if (!isPlainObject(block)) return textPart(where, index, 'unknown', 'other', compactJson(block, where));
  const type = typeof block.type === 'string' ? block.type : 'unknown';
  if (type === 'text' && typeof block.text === 'string') return textPart(where, index, type, 'text', block.text);
  if (type === 'resource' && isPlainObject(block.resource)) {
    const { text, blob } = block.resource;
    if (typeof text === 'string') return textPart(where, index, type, 'resource-text', text);
    if (typeof blob === 'string') {
      const resource = withoutKey(block.resource, 'blob');
      const fields = compactJson(Object.fromEntries(Object.entries(block).map(([key, value]) => [key, key === 'resource' ? resource : value])), where);
      return binaryPart(where, index, type, 'resource-blob', blob, fields);
    }
  }
  if ((type === 'image' || type === 'audio') && typeof block.data === 'string') {
    return binaryPart(where, index, type, type, block.data, compactJson(withoutKey(block, 'data'), where));
  }
  if (type === 'resource_link') return textPart(where, index, type, 'resource-link', compactJson(block, where));
  return textPart(where, index, type, 'other', compactJson(block, where));
}

function textPart(where: string, block: number | null, type: string, kind: ResultPartKind, text: string): ResultPart {
  return { where, block, type, kind, text, bytes: Buffer.byteLength(text, 'utf8'), fields: null };
}

function binaryPart(where: string, block: number, type: string, kind: ResultPartKind, base64: string, fields: string): ResultPart {
  return { where, block, type, kind, text: null, bytes: base64DecodedBytes(base64), fields };
}

/** A copy of `object` without `key`, in key order (a "__proto__" key stays a key). */
function withoutKey(object: JsonObject, key: string): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([name]) => name !== key));
}

function compactJson(value: unknown, where: string): string {
  return jsonText(value, `The result's ${where}`) ?? 'null';
}

