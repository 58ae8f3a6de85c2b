import { isPlainObject, MAX_JSON_DEPTH, nestsDeeperThan, setOwn } from '../../json/index.js';

/** Text longer than this is not parsed for records (a stored or paged value this size is refused anyway). */
export const MAX_PARSE_CHARS = 64 * 1024 * 1024;

/** The JSON value a result carries, and where it was found. */
export type ResultValue =
  | { readonly found: true; readonly value: unknown; readonly from: 'structuredContent' | 'content[0].text' }
  | { readonly found: false; readonly why: string };

/** `structuredContent` when present, else the JSON of a single text block. */
export function resultValue(result: Record<string, unknown>): ResultValue {
  if (Object.hasOwn(result, 'structuredContent') && result.structuredContent !== undefined) {
    if (nestsDeeperThan(result.structuredContent, MAX_JSON_DEPTH)) return { found: false, why: `structuredContent nests deeper than ${MAX_JSON_DEPTH} levels` };
    return { found: true, value: result.structuredContent, from: 'structuredContent' };
  }
  const content = Array.isArray(result.content) ? result.content : [];
  const [block] = content;
  if (content.length !== 1 || !isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
    return { found: false, why: 'the result has no structuredContent and is not a single text block' };
  }
  const text = block.text;
  if (text.length > MAX_PARSE_CHARS) return { found: false, why: `its text is over ${MAX_PARSE_CHARS.toLocaleString('en-US')} characters` };
  const start = text.trimStart()[0];
  if (start !== '[' && start !== '{') return { found: false, why: 'its text is not a JSON array or object' };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { found: false, why: 'its text is not valid JSON' };
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return { found: false, why: `its JSON nests deeper than ${MAX_JSON_DEPTH} levels` };
  return { found: true, value, from: 'content[0].text' };
}

/** The list of records in a value, and a path a person can read (`structuredContent.pull_requests`). */
export type RecordList =
  | { readonly found: true; readonly records: readonly unknown[]; readonly where: string; readonly key: string | undefined }
  | { readonly found: false; readonly why: string };

/** The value itself when it is an array, else the one array-valued member of an object. */
export function recordList(value: unknown, from: string): RecordList {
  if (Array.isArray(value)) return { found: true, records: value, where: from, key: undefined };
  if (!isPlainObject(value)) return { found: false, why: `${from} is neither an array nor an object` };
  const arrays = Object.keys(value).filter((key) => Array.isArray(value[key]));
  if (arrays.length === 1) {
    const key = arrays[0] as string;
    return { found: true, records: value[key] as unknown[], where: `${from}.${key}`, key };
  }
  if (arrays.length === 0) return { found: false, why: `${from} has no array member` };
  return { found: false, why: `${from} has ${arrays.length} array members (${arrays.slice(0, 5).join(', ')}), so which is the list is ambiguous` };
}

const MAX_SHAPE_KEYS = 40;

/**
 * The top-level structure of a value, for a preview: types, keys and array lengths, never values.
 * Two levels: a member that is an array says its length and what its items are (with the keys of
 * its first object item), a member that is an object lists its keys.
 */
export function describeShape(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return arrayShape(value);
  if (!isPlainObject(value)) return { type: typeName(value), ...(typeof value === 'string' ? { length: value.length } : {}) };
  const keys = Object.keys(value);
  const members: Record<string, unknown> = {};
  for (const key of keys.slice(0, MAX_SHAPE_KEYS)) {
    const member = value[key];
    setOwn(members, key, Array.isArray(member) ? arrayShape(member) : isPlainObject(member) ? { type: 'object', keys: listKeys(member) } : typeName(member));
  }
  return { type: 'object', keys: members, ...(keys.length > MAX_SHAPE_KEYS ? { more_keys: keys.length - MAX_SHAPE_KEYS } : {}) };
}

function arrayShape(array: readonly unknown[]): Record<string, unknown> {
  const types = [...new Set(array.slice(0, 1000).map(typeName))];
  const first = array.find(isPlainObject);
  return { type: 'array', length: array.length, items: types.length === 1 ? types[0] : types, ...(first !== undefined ? { item_keys: listKeys(first) } : {}) };
}

function listKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  return keys.length > MAX_SHAPE_KEYS ? [...keys.slice(0, MAX_SHAPE_KEYS), `... ${keys.length - MAX_SHAPE_KEYS} more`] : keys;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Characters per piece when a long string is paged. Small enough that a piece of any text fits a page of 4,000 tokens. */
export const STRING_PIECE_CHARS = 1000;

/**
 * What a value is paged as: an array by its items, an object by its members (one `{key: value}`
 * per item, in order), a string by pieces of its lines, anything else as itself alone.
 */
export function pageableItems(value: unknown): { items: unknown[]; unit: 'items' | 'members' | 'pieces' | 'value' } {
  if (Array.isArray(value)) return { items: value, unit: 'items' };
  if (isPlainObject(value)) return { items: Object.keys(value).map((key) => ({ [key]: value[key] })), unit: 'members' };
  if (typeof value === 'string') return { items: stringPieces(value), unit: 'pieces' };
  return { items: [value], unit: 'value' };
}

/**
 * Pieces of at most STRING_PIECE_CHARS, each whole lines while they fit; a longer line is cut
 * (never inside a surrogate pair). A piece is always one span of the text, so it is worked out by
 * offsets: one pass, no string per line (a text of 1 MiB of newlines is a million lines).
 */
function stringPieces(text: string): string[] {
  const pieces: string[] = [];
  let pieceStart = 0;
  for (let lineStart = 0; lineStart < text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    if (lineStart > pieceStart && lineEnd - pieceStart > STRING_PIECE_CHARS) {
      pieces.push(text.slice(pieceStart, lineStart));
      pieceStart = lineStart;
    }
    for (let start = lineStart; start < lineEnd; ) {
      let end = Math.min(lineEnd, pieceStart + STRING_PIECE_CHARS);
      const last = text.charCodeAt(end - 1);
      if (end < lineEnd && last >= 0xd800 && last <= 0xdbff) end -= 1;
      start = end;
      if (start - pieceStart >= STRING_PIECE_CHARS - 1 && start < lineEnd) {
        pieces.push(text.slice(pieceStart, start));
        pieceStart = start;
      }
    }
    lineStart = lineEnd;
  }
  if (pieceStart < text.length || pieces.length === 0) pieces.push(text.slice(pieceStart));
  return pieces;
}
