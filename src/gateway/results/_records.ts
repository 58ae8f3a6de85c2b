import { describeValue, isPlainObject, MAX_JSON_DEPTH, nestsDeeperThan, setOwn, soleStringMember } from '../../json/index.js';
import { parsePath } from '../config/index.js';

/** Text longer than this is not parsed for records (a stored or paged value this size is refused anyway). */
export const MAX_PARSE_CHARS = 64 * 1024 * 1024;

/** Where a result's JSON value was found: structuredContent, the JSON inside its one string member, or the one text block's JSON. */
export type ValueSource = 'structuredContent' | `structuredContent.${string}` | 'content[0].text';

/** The JSON value a result carries, and where it was found. */
export type ResultValue = { readonly found: true; readonly value: unknown; readonly from: ValueSource } | { readonly found: false; readonly why: string };

/**
 * `structuredContent` when present, else the JSON of a single text block. A structuredContent that
 * only wraps one string (filesystem's `{content: "<text>"}`) is read through: when that string is
 * wholly JSON (directory_tree's tree), its parsed value is the result's value, so rules and
 * read_result paths reach into it. Only what is stored or shaped changes: what the upstream sent
 * is counted as it came.
 */
export function resultValue(result: Record<string, unknown>): ResultValue {
  if (Object.hasOwn(result, 'structuredContent') && result.structuredContent !== undefined) {
    const structured = result.structuredContent;
    if (nestsDeeperThan(structured, MAX_JSON_DEPTH)) return { found: false, why: `structuredContent nests deeper than ${MAX_JSON_DEPTH} levels` };
    const wrapped = soleStringMember(structured);
    if (wrapped !== undefined) {
      const parsed = parseJsonText(wrapped.text);
      if (parsed.found) return { found: true, value: parsed.value, from: `structuredContent.${wrapped.key}` };
    }
    return { found: true, value: structured, from: 'structuredContent' };
  }
  const content = Array.isArray(result.content) ? result.content : [];
  const [block] = content;
  if (content.length !== 1 || !isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
    return { found: false, why: 'the result has no structuredContent and is not a single text block' };
  }
  const parsed = parseJsonText(block.text);
  return parsed.found ? { found: true, value: parsed.value, from: 'content[0].text' } : parsed;
}

/** The value of a text that is wholly one JSON array or object, within MAX_PARSE_CHARS and MAX_JSON_DEPTH. */
function parseJsonText(text: string): { found: true; value: unknown } | { found: false; why: string } {
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
  return { found: true, value };
}

/** The list of records in a value, and a path a person can read (`structuredContent.pull_requests`). */
export type RecordList =
  | {
      readonly found: true;
      readonly records: readonly unknown[];
      readonly where: string;
      /** Where the list is in the value: keys and indexes, none when the value is the list. */
      readonly steps: ReadonlyArray<string | number>;
    }
  | { readonly found: false; readonly why: string };

/**
 * The list at `recordsPath` (a tool's `records` rule) when given, else the value itself when it is
 * an array, else the one array-valued member of an object.
 */
export function recordList(value: unknown, from: string, recordsPath?: string): RecordList {
  if (recordsPath !== undefined) return listAtPath(value, from, recordsPath);
  if (Array.isArray(value)) return { found: true, records: value, where: from, steps: [] };
  if (!isPlainObject(value)) return { found: false, why: `${from} is neither an array nor an object` };
  const arrays = Object.keys(value).filter((key) => Array.isArray(value[key]));
  if (arrays.length === 1) {
    const key = arrays[0] as string;
    return { found: true, records: value[key] as unknown[], where: `${from}.${key}`, steps: [key] };
  }
  if (arrays.length === 0) return { found: false, why: `${from} has no array member` };
  return {
    found: false,
    why: `${from} has ${arrays.length} array members (${arrays.slice(0, 5).join(', ')}), so which is the list is ambiguous: name it with the tool's records rule (records: ${arrays[0]})`,
  };
}

function listAtPath(value: unknown, from: string, recordsPath: string): RecordList {
  let steps: Array<string | number>;
  try {
    steps = parsePath(recordsPath);
  } catch (error) {
    return { found: false, why: (error as Error).message };
  }
  let current = value;
  for (const step of steps) {
    const next = typeof step === 'number' ? (Array.isArray(current) ? current[step] : undefined) : isPlainObject(current) && Object.hasOwn(current, step) ? current[step] : undefined;
    if (next === undefined) return { found: false, why: `the records rule's path ${JSON.stringify(recordsPath)} is not in ${from} (its shape: ${JSON.stringify(describeShape(value)).slice(0, 300)})` };
    current = next;
  }
  if (!Array.isArray(current)) return { found: false, why: `the records rule's path ${JSON.stringify(recordsPath)} in ${from} is ${describeValue(current)}, not an array` };
  return { found: true, records: current, where: steps.length === 0 ? from : `${from}.${recordsPath.replace(/^\$\.?/, '')}`, steps };
}

/** The value without its list of records (at `steps`); undefined when nothing else is in it. */
export function othersOf(value: unknown, steps: ReadonlyArray<string | number>): Record<string, unknown> | undefined {
  if (steps.length === 0 || !isPlainObject(value)) return undefined;
  const rest = replaceAt(value, steps, undefined);
  return isPlainObject(rest) && Object.keys(rest).length > 0 ? rest : undefined;
}

/** A copy of `value` with what is at `steps` replaced (`replacement` undefined: removed); the rest shared. */
export function replaceAt(value: unknown, steps: ReadonlyArray<string | number>, replacement: unknown): unknown {
  const [step, ...rest] = steps;
  if (step === undefined) return replacement;
  if (Array.isArray(value) && typeof step === 'number') {
    const copy = [...value];
    copy[step] = rest.length === 0 && replacement === undefined ? null : replaceAt(value[step], rest, replacement);
    return copy;
  }
  if (!isPlainObject(value) || typeof step !== 'string') return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key !== step) setOwn(copy, key, value[key]);
    else if (rest.length > 0 || replacement !== undefined) setOwn(copy, key, replaceAt(value[key], rest, replacement));
  }
  return copy;
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

/** What one paged item of a value is: an element, a `{key: value}` member, a piece of a string, the value itself. */
export type PageUnit = 'items' | 'members' | 'pieces' | 'value';

/**
 * What a value is paged as: an array by its items, an object by its members (one `{key: value}`
 * per item, in order), a string by pieces of its lines, anything else as itself alone.
 */
export function pageableItems(value: unknown): { items: unknown[]; unit: PageUnit } {
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
