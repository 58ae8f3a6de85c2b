import { McpctxError } from '../errors/index.js';
import { capText, toolResultCost, type CountedResultPart, type ResultPartKind } from '../shape/index.js';
import { countTokens } from '../tokens/index.js';
import { fieldCosts, type FieldCost } from './_field-cost.js';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan, type JsonObject } from '../json/index.js';
import { isContainer, jsonEqual, tryParseJson } from './_json-value.js';
import { noProjection, suggestProjection, type ProjectionSuggestion } from './_suggest-projection.js';

/** The text of an `isError` result is kept up to this many characters. */
export const ERROR_TEXT_CHARS = 1_000;

/** One content block, read as `toolResultParts` reads it. */
export interface ContentBlockCost {
  index: number;
  /** The block's `type` as sent. */
  type: string;
  /** How it reaches the model: `text`, `resource-text`, `resource-link` and `other` as text; `image`, `audio`, `resource-blob` as bytes. */
  kind: ResultPartKind;
  /** o200k tokens of its text; null for binary data (images, audio, blobs). */
  tokens: number | null;
  /** UTF-8 bytes of its text, or the decoded bytes of binary data. */
  bytes: number;
  /** A text block or an embedded text resource whose text parses as JSON. */
  json: boolean;
}

export interface ContentCost {
  blocks: ContentBlockCost[];
  /** Tokens of every content block read as text (text, embedded text resources, resource links, other blocks as JSON). */
  textTokens: number;
  textBytes: number;
  /** Decoded bytes of images, audio and blobs: paid for by size, not text tokens. */
  binaryBytes: number;
  /** Of `JSON.stringify(structuredContent)`; null when the result has none. */
  structuredTokens: number | null;
  structuredBytes: number | null;
  /**
   * structuredContent repeats the content: the JSON value of one text block or of the list of the
   * JSON text blocks (key order ignored), that value under one key, or a block's text under one key.
   */
  structuredDuplicatesText: boolean;
  /** `json`: the same JSON value; `wrapped-json`: it under one key; `wrapped-text`: the text string itself under one key. */
  duplicateKind: 'json' | 'wrapped-json' | 'wrapped-text' | null;
  /** What the duplicate costs: the structuredContent tokens when it duplicates the content, else 0. */
  duplicateTokens: number;
  /** The content blocks the structuredContent repeats (all of a list's blocks); empty when it repeats none. */
  duplicateOfBlocks: number[];
  /** The one property of structuredContent that holds the copy (`result`, `pull_requests`, `content`), when it wraps it. */
  duplicateWrapperKey: string | null;
  /** textTokens + structuredTokens: every token the result puts into context (`toolResultCost(result).textTokens`). */
  totalTokens: number;
}

/** The JSON payload the fields are read from. */
export interface ResultPayload {
  /** `text`: one JSON text block; `blocks`: the list of the values of two or more JSON text blocks (one per item); `structuredContent`. */
  source: 'text' | 'blocks' | 'structuredContent';
  /** The content blocks read (none for structuredContent). */
  blocks: number[];
  /** Keys from the payload's root to what is broken down: `[]` for the root, `["items"]` for `{items: [...], total}`. */
  path: string[];
  /** `records`: an array of objects; `object`: one object; `other`: no breakdown. */
  shape: 'records' | 'object' | 'other';
  /** Records broken down (1 for a single object, 0 for `other`). */
  records: number;
  /** o200k tokens and UTF-8 bytes of the payload's compact JSON (`JSON.stringify`, key order kept). */
  tokens: number;
  bytes: number;
}

export interface ResultEstimate {
  /** JS string length of every part read as text (content and the compact structuredContent). */
  chars: number;
  /** Math.ceil(chars / 4): the usual guess. */
  charsOver4: number;
  /** What it is really: the result's total tokens. */
  realTokens: number;
  /** (charsOver4 - realTokens) / realTokens * 100, one decimal; null when there are no tokens. */
  errorPercent: number | null;
}

/** The cost of one `tools/call` result, read from the result object exactly as parsed off the wire. */
export interface ResultCost {
  isError: boolean;
  /** For an `isError` result: its text (text blocks and embedded text resources, else structuredContent), up to ERROR_TEXT_CHARS characters; else null. */
  errorText: string | null;
  content: ContentCost;
  payload: ResultPayload | null;
  /** Top-level fields and, beneath nested objects, their own fields (`head.repo`), largest first. */
  fields: FieldCost[];
  estimate: ResultEstimate;
  suggestion: ProjectionSuggestion;
  /** What was unusual about the result, in words. */
  notes: string[];
}

/** A content part read as text whose text may hold a JSON payload. */
interface TextPart {
  index: number;
  text: string;
  parsed?: { value: unknown };
}

/** Where the payload comes from, before it is described. */
interface PayloadSource {
  source: ResultPayload['source'];
  blocks: number[];
  value: JsonObject | unknown[];
  /** The payload's compact JSON and its tokens, when already known. */
  compact?: { text: string; tokens: number };
}

/**
 * Analyses a raw `tools/call` result: every part as `toolResultCost` (src/shape) reads it, tokens
 * and bytes per content block and of structuredContent, whether structuredContent duplicates the
 * content, tokens per field of the JSON payload with copies marked, the characters/4 estimate
 * against the real count, and a suggested projection. Throws PROTOCOL for a result that is not an
 * object or nests deeper than MAX_JSON_DEPTH.
 */
export function resultCost(result: unknown): ResultCost {
  if (!isPlainObject(result)) {
    throw new McpctxError('PROTOCOL', 'the tools/call result is not an object', { resultType: Array.isArray(result) ? 'array' : typeof result });
  }
  if (nestsDeeperThan(result)) throw tooDeep('the tools/call result');
  const notes: string[] = [];
  if (!Array.isArray(result.content)) notes.push('the result has no content array');
  const cost = toolResultCost(result);
  const blocks: ContentBlockCost[] = [];
  const texts: TextPart[] = [];
  let structuredPart: CountedResultPart | undefined;
  for (const part of cost.parts) {
    if (part.block === null) {
      structuredPart = part;
      continue;
    }
    const text = readsAsPayload(part) ? textPart(part, notes) : undefined;
    if (text) texts.push(text);
    blocks.push({ index: part.block, type: part.type, kind: part.kind, tokens: part.tokens, bytes: part.bytes, json: text?.parsed !== undefined });
  }
  const contentParts = cost.parts.filter((part) => part.block !== null && part.text !== null);
  const structured: unknown = structuredPart ? result.structuredContent : undefined;
  const structuredTokens = structuredPart?.tokens ?? null;
  const duplicate = structuredPart ? findDuplicate(texts, structured) : undefined;
  const content: ContentCost = {
    blocks,
    textTokens: sum(contentParts.map((part) => part.tokens ?? 0)),
    textBytes: sum(contentParts.map((part) => part.bytes)),
    binaryBytes: cost.binaryBytes,
    structuredTokens,
    structuredBytes: structuredPart?.bytes ?? null,
    structuredDuplicatesText: duplicate !== undefined,
    duplicateKind: duplicate?.kind ?? null,
    duplicateTokens: duplicate ? (structuredTokens ?? 0) : 0,
    duplicateOfBlocks: duplicate?.blocks ?? [],
    duplicateWrapperKey: duplicate?.wrapperKey ?? null,
    totalTokens: cost.textTokens,
  };

  const chars = sum(cost.parts.map((part) => part.text?.length ?? 0));
  const charsOver4 = Math.ceil(chars / 4);
  const estimate: ResultEstimate = {
    chars,
    charsOver4,
    realTokens: content.totalTokens,
    errorPercent: content.totalTokens > 0 ? Math.round(((charsOver4 - content.totalTokens) / content.totalTokens) * 1000) / 10 : null,
  };
  const isError = result.isError === true;
  const errorText = isError ? errorTextOf(cost.parts) : null;

  const found = findPayload(texts, structuredPart, structured);
  if (!found) {
    const why = texts.length === 0 ? 'the result has no text block' : 'no text block holds a JSON object or array';
    const note = `${why}${structuredPart ? ' and structuredContent is not an object or array' : ' and no structuredContent'}: no field breakdown`;
    notes.push(note);
    return { isError, errorText, content, payload: null, fields: [], estimate, suggestion: noProjection(note), notes };
  }
  const payload = describePayload(found);
  const records = recordsAt(found.value, payload);
  if (!records) {
    const note = 'the JSON payload is an array that is not a list of records (objects): no field breakdown';
    notes.push(note);
    return { isError, errorText, content, payload, fields: [], estimate, suggestion: noProjection(note), notes };
  }
  const fields = fieldCosts(records, payload.tokens);
  const suggestion = suggestProjection({
    payload: found.value,
    path: payload.path,
    records,
    single: payload.shape === 'object',
    payloadTokens: payload.tokens,
    fieldTokens: new Map(fields.filter((field) => field.parent === null).map((field) => [field.path, field.tokens])),
  });
  return { isError, errorText, content, payload, fields, estimate, suggestion, notes };
}

/** Text blocks and embedded text resources: the parts whose text can be a JSON payload (links and other blocks are our JSON of the block). */
function readsAsPayload(part: CountedResultPart): boolean {
  return part.text !== null && (part.kind === 'text' || part.kind === 'resource-text');
}

function textPart(part: CountedResultPart, notes: string[]): TextPart {
  const text = part.text ?? '';
  const index = part.block ?? 0;
  const parsed = tryParseJson(text);
  if (parsed && nestsDeeperThan(parsed.value)) {
    notes.push(`${part.where} is JSON nested deeper than ${MAX_JSON_DEPTH} levels: read as plain text`);
    return { index, text };
  }
  return parsed ? { index, text, parsed } : { index, text };
}

/** What structuredContent repeats: one block's JSON value, the list of the JSON blocks' values, either under one key, or a block's text under one key. */
function findDuplicate(
  texts: readonly TextPart[],
  structured: unknown,
): { blocks: number[]; kind: NonNullable<ContentCost['duplicateKind']>; wrapperKey: string | null } | undefined {
  const wrapperKeys = isPlainObject(structured) ? Object.keys(structured) : [];
  const wrapperKey = wrapperKeys.length === 1 ? wrapperKeys[0] : undefined;
  const wrapped = wrapperKey === undefined ? undefined : (structured as JsonObject)[wrapperKey];
  const json = texts.filter((text) => text.parsed !== undefined);
  const candidates = json.map((text) => ({ blocks: [text.index], value: text.parsed?.value }));
  // A Python-SDK list: one block per item, structuredContent {"result": [...the items]}.
  if (json.length > 0) candidates.push({ blocks: json.map((text) => text.index), value: json.map((text) => text.parsed?.value) });
  for (const candidate of candidates) {
    if (jsonEqual(candidate.value, structured)) return { blocks: candidate.blocks, kind: 'json', wrapperKey: null };
    if (wrapperKey !== undefined && jsonEqual(candidate.value, wrapped)) return { blocks: candidate.blocks, kind: 'wrapped-json', wrapperKey };
  }
  if (wrapperKey === undefined || typeof wrapped !== 'string') return undefined;
  const same = texts.find((text) => text.text === wrapped);
  return same ? { blocks: [same.index], kind: 'wrapped-text', wrapperKey } : undefined;
}

/**
 * Two or more JSON text blocks that each hold an object are one list of records (a Python-SDK
 * server sends a list one block per item); else the first text block that holds a JSON object or
 * array; else structuredContent.
 */
function findPayload(texts: readonly TextPart[], structuredPart: CountedResultPart | undefined, structured: unknown): PayloadSource | undefined {
  const json = texts.filter((text) => text.parsed !== undefined);
  if (json.length >= 2 && json.every((text) => isPlainObject(text.parsed?.value))) {
    return { source: 'blocks', blocks: json.map((text) => text.index), value: json.map((text) => text.parsed?.value) };
  }
  const first = json.find((text) => isContainer(text.parsed?.value));
  if (first) return { source: 'text', blocks: [first.index], value: first.parsed?.value as JsonObject | unknown[] };
  if (structuredPart !== undefined && structuredPart.text !== null && structuredPart.tokens !== null && isContainer(structured)) {
    return { source: 'structuredContent', blocks: [], value: structured, compact: { text: structuredPart.text, tokens: structuredPart.tokens } };
  }
  return undefined;
}

function describePayload(found: PayloadSource): ResultPayload {
  const compact = found.compact?.text ?? JSON.stringify(found.value);
  const tokens = found.compact?.tokens ?? countTokens(compact);
  const path: string[] = [];
  let node: unknown = found.value;
  // One-key wrappers around an object or records (`{"result": [...]}`, `{"error": {...}}`) are unwrapped.
  for (let key = soleKeyOf(node); key !== undefined; key = soleKeyOf(node)) {
    path.push(key);
    node = (node as JsonObject)[key];
  }
  let shape: ResultPayload['shape'] = 'object';
  if (Array.isArray(node)) {
    shape = node.every(isPlainObject) ? 'records' : 'other';
  } else {
    const key = envelopeKeyOf(node as JsonObject);
    if (key !== undefined) {
      path.push(key);
      node = (node as JsonObject)[key];
      shape = 'records';
    }
  }
  const records = shape === 'records' ? (node as unknown[]).length : shape === 'object' ? 1 : 0;
  return { source: found.source, blocks: found.blocks, path, shape, records, tokens, bytes: Buffer.byteLength(compact, 'utf8') };
}

/** The key of an object that has only that key, holding an object or a list of records. */
function soleKeyOf(node: unknown): string | undefined {
  if (!isPlainObject(node)) return undefined;
  const keys = Object.keys(node);
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  const value = node[key];
  return isPlainObject(value) || (Array.isArray(value) && value.every(isPlainObject)) ? key : undefined;
}

/** The one property of an object whose value is a non-empty array of records (`{ items: [...], total }`). */
function envelopeKeyOf(value: JsonObject): string | undefined {
  const keys = Object.keys(value).filter((key) => {
    const member = value[key];
    return Array.isArray(member) && member.length > 0 && member.every(isPlainObject);
  });
  return keys.length === 1 ? keys[0] : undefined;
}

function recordsAt(value: unknown, payload: ResultPayload): JsonObject[] | undefined {
  if (payload.shape === 'other') return undefined;
  let node = value;
  for (const key of payload.path) node = (node as JsonObject)[key];
  return payload.shape === 'records' ? (node as JsonObject[]) : [node as JsonObject];
}

/** What an error result says: its text blocks and embedded text resources, else its structuredContent; bounded. */
function errorTextOf(parts: readonly CountedResultPart[]): string {
  const texts = parts.filter((part) => part.kind === 'text' || part.kind === 'resource-text').map((part) => part.text ?? '');
  const text = texts.length > 0 ? texts.join('\n') : (parts.find((part) => part.kind === 'structured')?.text ?? '');
  const capped = capText(text, ERROR_TEXT_CHARS);
  return capped.truncated ? `${capped.text}… (${text.length - capped.text.length} more characters)` : capped.text;
}

/** Refused rather than walked: see MAX_JSON_DEPTH. */
function tooDeep(what: string): McpctxError {
  return new McpctxError('PROTOCOL', `${what} nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels; it is not analysed`, {
    maxDepth: MAX_JSON_DEPTH,
  });
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
