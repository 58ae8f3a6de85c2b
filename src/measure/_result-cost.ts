import { McpctxError } from '../errors/index.js';
import { countTokens } from '../tokens/index.js';
import { fieldCosts, type FieldCost } from './_field-cost.js';
import { MAX_JSON_DEPTH, isContainer, isPlainObject, jsonEqual, nestsDeeperThan, tryParseJson, type JsonObject } from './_json-value.js';
import { noProjection, suggestProjection, type ProjectionSuggestion } from './_suggest-projection.js';

/** One content block: tokens and UTF-8 bytes of its text (text blocks only). */
export interface ContentBlockCost {
  index: number;
  type: string;
  /** o200k tokens of the text; null for a block that is not text (image, audio, resource, ...). */
  tokens: number | null;
  /** UTF-8 bytes of the text; for a block that is not text, of its compact JSON. */
  bytes: number;
  /** Whether the text parses as JSON (false for a block that is not text). */
  json: boolean;
}

export interface ContentCost {
  blocks: ContentBlockCost[];
  textTokens: number;
  textBytes: number;
  /** Of `JSON.stringify(structuredContent)`; null when the result has none. */
  structuredTokens: number | null;
  structuredBytes: number | null;
  /**
   * structuredContent repeats a text block: the same JSON value (key order ignored), or a
   * one-property object whose value is that JSON value or the very same text.
   */
  structuredDuplicatesText: boolean;
  /** `json`: the same JSON value; `wrapped-json`: it under one key; `wrapped-text`: the text string itself under one key. */
  duplicateKind: 'json' | 'wrapped-json' | 'wrapped-text' | null;
  /** What the duplicate costs: the structuredContent tokens when it duplicates the text, else 0. */
  duplicateTokens: number;
  /** The text block the structuredContent duplicates. */
  duplicateOfBlock: number | null;
  /** The one property of structuredContent that holds the text's JSON (`pull_requests`) or the text (`content`), when it wraps it. */
  duplicateWrapperKey: string | null;
  /** textTokens + structuredTokens. */
  totalTokens: number;
}

/** The JSON payload the fields are read from. */
export interface ResultPayload {
  source: 'text' | 'structuredContent';
  /** The text block parsed (source `text`). */
  block: number | null;
  /** `records`: an array of objects; `envelope`: an object with one array of records (broken down); `object`: one object; `other`: no breakdown. */
  shape: 'records' | 'envelope' | 'object' | 'other';
  envelopeKey: string | null;
  /** Records broken down (1 for a single object). */
  records: number;
  /** o200k tokens and UTF-8 bytes of the payload's compact JSON (`JSON.stringify`, key order kept). */
  tokens: number;
  bytes: number;
}

export interface ResultEstimate {
  /** JS string length of every text block plus the compact structuredContent. */
  chars: number;
  /** Math.ceil(chars / 4): the usual guess. */
  charsOver4: number;
  /** What it is really: text tokens + structured tokens. */
  realTokens: number;
  /** (charsOver4 - realTokens) / realTokens * 100, one decimal; null when there are no tokens. */
  errorPercent: number | null;
}

/** The cost of one `tools/call` result, read from the result object exactly as parsed off the wire. */
export interface ResultCost {
  isError: boolean;
  content: ContentCost;
  payload: ResultPayload | null;
  /** Top-level fields and, beneath nested objects, their own fields (`head.repo`), largest first. */
  fields: FieldCost[];
  estimate: ResultEstimate;
  suggestion: ProjectionSuggestion;
  /** What was unusual about the result, in words. */
  notes: string[];
}

interface TextBlock {
  index: number;
  text: string;
  tokens: number;
  parsed?: { value: unknown };
}

/**
 * Analyses a raw `tools/call` result: tokens and bytes per content block and of structuredContent,
 * whether structuredContent duplicates the text, tokens per field of the JSON payload with copies
 * marked, the characters/4 estimate against the real count, and a suggested projection.
 */
export function resultCost(result: unknown): ResultCost {
  if (!isPlainObject(result)) {
    throw new McpctxError('PROTOCOL', 'the tools/call result is not an object', { resultType: Array.isArray(result) ? 'array' : typeof result });
  }
  if (nestsDeeperThan(result)) throw tooDeep('the tools/call result');
  const notes: string[] = [];
  const blocks: ContentBlockCost[] = [];
  const texts: TextBlock[] = [];
  if (!Array.isArray(result.content)) notes.push('the result has no content array');
  for (const [index, block] of (Array.isArray(result.content) ? result.content : []).entries()) {
    const type = isPlainObject(block) && typeof block.type === 'string' ? block.type : 'unknown';
    if (isPlainObject(block) && type === 'text' && typeof block.text === 'string') {
      const text = block.text;
      let parsed = tryParseJson(text);
      if (parsed && nestsDeeperThan(parsed.value)) {
        notes.push(`content[${index}] is JSON nested deeper than ${MAX_JSON_DEPTH} levels: read as plain text`);
        parsed = undefined;
      }
      const entry: TextBlock = { index, text, tokens: countTokens(text), ...(parsed ? { parsed } : {}) };
      texts.push(entry);
      blocks.push({ index, type, tokens: entry.tokens, bytes: Buffer.byteLength(text, 'utf8'), json: parsed !== undefined });
    } else {
      blocks.push({ index, type, tokens: null, bytes: Buffer.byteLength(JSON.stringify(block) ?? '', 'utf8'), json: false });
    }
  }

  const hasStructured = Object.hasOwn(result, 'structuredContent') && result.structuredContent !== undefined;
  const structured: unknown = hasStructured ? result.structuredContent : undefined;
  const structuredText = hasStructured ? (JSON.stringify(structured) ?? 'null') : undefined;
  const structuredTokens = structuredText === undefined ? null : countTokens(structuredText);
  const duplicate = hasStructured ? findDuplicate(texts, structured) : undefined;
  const textTokens = sum(texts.map((text) => text.tokens));
  const content: ContentCost = {
    blocks,
    textTokens,
    textBytes: sum(texts.map((text) => Buffer.byteLength(text.text, 'utf8'))),
    structuredTokens,
    structuredBytes: structuredText === undefined ? null : Buffer.byteLength(structuredText, 'utf8'),
    structuredDuplicatesText: duplicate !== undefined,
    duplicateKind: duplicate?.kind ?? null,
    duplicateTokens: duplicate ? (structuredTokens ?? 0) : 0,
    duplicateOfBlock: duplicate?.block ?? null,
    duplicateWrapperKey: duplicate?.wrapperKey ?? null,
    totalTokens: textTokens + (structuredTokens ?? 0),
  };

  const chars = sum(texts.map((text) => text.text.length)) + (structuredText?.length ?? 0);
  const charsOver4 = Math.ceil(chars / 4);
  const estimate: ResultEstimate = {
    chars,
    charsOver4,
    realTokens: content.totalTokens,
    errorPercent: content.totalTokens > 0 ? Math.round(((charsOver4 - content.totalTokens) / content.totalTokens) * 1000) / 10 : null,
  };

  const found = findPayload(texts, hasStructured, structured, structuredText, structuredTokens);
  if (!found) {
    const why = texts.length === 0 ? 'the result has no text block' : 'the first text block is not a JSON object or array';
    const note = `${why}${hasStructured ? ' and structuredContent is not an object or array' : ' and no structuredContent'}: no field breakdown`;
    notes.push(note);
    return { isError: result.isError === true, content, payload: null, fields: [], estimate, suggestion: noProjection(note), notes };
  }
  const { payload, value } = found;
  const records = recordsOf(value, payload);
  let fields: FieldCost[] = [];
  let suggestion: ProjectionSuggestion;
  if (records) {
    fields = fieldCosts(records, payload.tokens);
    suggestion = suggestProjection(records, { single: payload.shape === 'object', payloadTokens: payload.tokens });
  } else {
    const note = 'the JSON payload is an array that is not a list of records (objects): no field breakdown';
    notes.push(note);
    suggestion = noProjection(note);
  }
  return { isError: result.isError === true, content, payload, fields, estimate, suggestion, notes };
}

/** The text block structuredContent repeats: its JSON value, that value under one key, or the text itself under one key. */
function findDuplicate(
  texts: readonly TextBlock[],
  structured: unknown,
): { block: number; kind: NonNullable<ContentCost['duplicateKind']>; wrapperKey: string | null } | undefined {
  const wrapperKeys = isPlainObject(structured) ? Object.keys(structured) : [];
  const wrapperKey = wrapperKeys.length === 1 ? wrapperKeys[0] : undefined;
  const wrapped = wrapperKey === undefined ? undefined : (structured as JsonObject)[wrapperKey];
  for (const text of texts) {
    if (text.parsed && jsonEqual(text.parsed.value, structured)) return { block: text.index, kind: 'json', wrapperKey: null };
    if (wrapperKey === undefined) continue;
    if (text.parsed && jsonEqual(text.parsed.value, wrapped)) return { block: text.index, kind: 'wrapped-json', wrapperKey };
    if (wrapped === text.text) return { block: text.index, kind: 'wrapped-text', wrapperKey };
  }
  return undefined;
}

/** The first text block parsed as JSON when it is an object or array; else structuredContent. */
function findPayload(
  texts: readonly TextBlock[],
  hasStructured: boolean,
  structured: unknown,
  structuredText: string | undefined,
  structuredTokens: number | null,
): { payload: ResultPayload; value: unknown } | undefined {
  const first = texts[0];
  if (first?.parsed && isContainer(first.parsed.value)) {
    const value = first.parsed.value;
    const compact = JSON.stringify(value);
    // Text that is already compact JSON needs no second count.
    const tokens = compact === first.text ? first.tokens : countTokens(compact);
    return { payload: describePayload('text', first.index, value, compact, tokens), value };
  }
  if (hasStructured && isContainer(structured) && structuredText !== undefined && structuredTokens !== null) {
    return { payload: describePayload('structuredContent', null, structured, structuredText, structuredTokens), value: structured };
  }
  return undefined;
}

function describePayload(source: ResultPayload['source'], block: number | null, value: JsonObject | unknown[], compact: string, tokens: number): ResultPayload {
  let shape: ResultPayload['shape'] = 'object';
  let envelopeKey: string | null = null;
  let records = 1;
  if (Array.isArray(value)) {
    shape = value.every(isPlainObject) ? 'records' : 'other';
    records = shape === 'records' ? value.length : 0;
  } else {
    envelopeKey = envelopeKeyOf(value) ?? null;
    if (envelopeKey !== null) {
      shape = 'envelope';
      records = (value[envelopeKey] as unknown[]).length;
    }
  }
  return { source, block, shape, envelopeKey, records, tokens, bytes: Buffer.byteLength(compact, 'utf8') };
}

/** The one property of an object whose value is a non-empty array of records (`{ items: [...] }`). */
function envelopeKeyOf(value: JsonObject): string | undefined {
  const keys = Object.keys(value).filter((key) => {
    const member = value[key];
    return Array.isArray(member) && member.length > 0 && member.every(isPlainObject);
  });
  return keys.length === 1 ? keys[0] : undefined;
}

function recordsOf(value: unknown, payload: ResultPayload): JsonObject[] | undefined {
  switch (payload.shape) {
    case 'records':
      return value as JsonObject[];
    case 'envelope':
      return (value as JsonObject)[payload.envelopeKey ?? ''] as JsonObject[];
    case 'object':
      return [value as JsonObject];
    case 'other':
      return undefined;
  }
}

/** Refused rather than walked: see MAX_JSON_DEPTH. */
export function tooDeep(what: string): McpctxError {
  return new McpctxError('PROTOCOL', `${what} nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels; it is not analysed`, {
    maxDepth: MAX_JSON_DEPTH,
  });
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
