import type * as JsoncParser from 'jsonc-parser';
import type { Node as JsonNode, ParseError } from 'jsonc-parser';
import { lazyRequire } from '../lazy/index.js';
import { lineAndColumn } from '../tokens/index.js';
import { setOwn, type JsonObject } from '../json/index.js';
import type { ServerMapEdit } from './_edit-types.js';
import {
  type Spliced,
  type TextEdit,
  commentLinesAbove,
  indentOfLine,
  indentUnitOf,
  keyPathText,
  lineEndingOf,
  lineStartOf,
  namesProblem,
  nextLineStartOf,
  noMapToRemoveFrom,
  spliced,
  startsItsLine,
  swallowBlankLines,
} from './_edit-text.js';

const jsonc = lazyRequire<typeof JsoncParser>('jsonc-parser');

/**
 * The JSON / JSONC editor: jsonc-parser's tree gives each property's offsets, and only those
 * ranges change. Choices, so the rest of the file reads as before:
 * - A removed property goes with the comma after it and, when it sits on lines of its own, with
 *   those whole lines, a comment at the end of its last line included, and the comment lines right
 *   above it (left behind, `// the memory server` would sit above another entry). Comment lines
 *   right after the map's `{` stay, even above a removed first entry: they may describe the map.
 * - The added property goes after the map's last property (kept or removed), with that property's
 *   indent, and carries a trailing comma exactly when the map's last property had one.
 * - A map written on one line gets the entry on that line, compact.
 */
export function editJsonText(text: string, edit: ServerMapEdit): Spliced {
  const errors: ParseError[] = [];
  const { parseTree, printParseErrorCode } = jsonc();
  let root: JsonNode | undefined;
  try {
    root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  } catch (error) {
    return { refused: `the file cannot be parsed as JSON (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
  const [first] = errors;
  if (first !== undefined) {
    const { line, column } = lineAndColumn(text, first.offset);
    return { refused: `the file is not valid JSON (${printParseErrorCode(first.error)} at line ${line}, column ${column}); fix it first` };
  }
  if (root === undefined || root.type !== 'object') return { refused: `the file holds ${root === undefined ? 'nothing' : `a JSON ${root.type}`}, not an object at the top` };

  const style = { eol: lineEndingOf(text), unit: indentUnitOf(text) };
  let node = root;
  for (const [depth, key] of edit.serversAt.entries()) {
    const property = lastProperty(node, key);
    const here = keyPathText(edit.serversAt.slice(0, depth + 1));
    const value = property?.children?.[1];
    if (property === undefined || value === undefined) {
      if (edit.remove.length > 0) return noMapToRemoveFrom(here, edit.remove);
      // Nothing to take out: the missing part of the path is written with the entry inside.
      const nested = nestedValue(edit.serversAt.slice(depth + 1), edit.addName, edit.addValue);
      return spliced(text, spliceObject(text, node, new Set(), key, nested, style));
    }
    if (value.type === 'null' && edit.remove.length === 0 && depth === edit.serversAt.length - 1) {
      const indent = indentOfLine(text, property.offset);
      const body = objectText({ [edit.addName]: edit.addValue }, indent, style);
      return spliced(text, [{ start: value.offset, end: value.offset + value.length, insert: body }]);
    }
    if (value.type !== 'object') return { refused: `${here} is a JSON ${value.type}, not an object of servers by name` };
    node = value;
  }

  const problem = namesProblem(new Set((node.children ?? []).map(keyOf)), edit.remove, edit.addName, edit.serversAt);
  if (problem !== undefined) return { refused: problem };
  return spliced(text, spliceObject(text, node, new Set(edit.remove), edit.addName, edit.addValue, style));
}

interface Style {
  readonly eol: string;
  readonly unit: string;
}

function keyOf(property: JsonNode): string {
  return String(property.children?.[0]?.value ?? '');
}

/** The property a reader sees: with duplicate keys, the last one (as JSON.parse). */
function lastProperty(object: JsonNode, key: string): JsonNode | undefined {
  let found: JsonNode | undefined;
  for (const property of object.children ?? []) if (keyOf(property) === key) found = property;
  return found;
}

function nestedValue(keys: readonly string[], name: string, entry: JsonObject): JsonObject {
  let value: JsonObject = {};
  setOwn<unknown>(value, name, entry);
  for (const key of [...keys].reverse()) {
    const outer: JsonObject = {};
    setOwn<unknown>(outer, key, value);
    value = outer;
  }
  return value;
}

/** A value written over several lines, its continuation lines under `indent`. */
function objectText(value: unknown, indent: string, style: Style): string {
  return JSON.stringify(value, null, style.unit).split('\n').join(style.eol + indent);
}

/** The offset of the first character after `offset` that is not whitespace or a comment. */
function skipTrivia(text: string, offset: number): number {
  let at = offset;
  while (at < text.length) {
    const char = text[at];
    if (char === ' ' || char === '\t' || char === '\r' || char === '\n') at += 1;
    else if (text.startsWith('//', at)) at = nextLineStartOf(text, at);
    else if (text.startsWith('/*', at)) {
      const close = text.indexOf('*/', at + 2);
      at = close === -1 ? text.length : close + 2;
    } else break;
  }
  return at;
}

/** Whether the rest of the line from `offset` holds only spaces, tabs and comments. */
function restIsTrivia(text: string, offset: number): boolean {
  let at = offset;
  for (;;) {
    while (text[at] === ' ' || text[at] === '\t') at += 1;
    if (at >= text.length || text[at] === '\n' || text.startsWith('\r\n', at)) return true;
    if (text.startsWith('//', at)) return true;
    if (!text.startsWith('/*', at)) return false;
    const close = text.indexOf('*/', at + 2);
    if (close === -1 || text.slice(at, close).includes('\n')) return false;
    at = close + 2;
  }
}

function skipSpaces(text: string, offset: number): number {
  let at = offset;
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at;
}

/** The offset just after the comma that follows `property`, or undefined when none does (the last property). */
function commaEnd(text: string, property: JsonNode): number | undefined {
  const next = skipTrivia(text, property.offset + property.length);
  return text[next] === ',' ? next + 1 : undefined;
}

/** The range a removed property takes with it (see editJsonText for what goes). */
/** A line that is only a `//` comment or one `/* ... *\/` comment. */
function isCommentLine(line: string): boolean {
  return /^[ \t]*(?:\/\/.*|\/\*(?:(?!\*\/).)*\*\/[ \t]*)$/.test(line);
}

function deletionOf(text: string, property: JsonNode, isLast: boolean, opener: number): TextEdit {
  const comma = commaEnd(text, property);
  const end = comma ?? property.offset + property.length;
  if (startsItsLine(text, property.offset)) {
    const start = commentLinesAbove(text, lineStartOf(text, property.offset), isCommentLine, opener);
    if (!restIsTrivia(text, end)) return { start, end, insert: '' };
    const lineEnd = nextLineStartOf(text, end);
    // The last property is where the added one goes: blank lines after it stay between the two.
    return { start, end: isLast ? lineEnd : swallowBlankLines(text, start, lineEnd), insert: '' };
  }
  // Not first on its line: when it is the last there, the spaces before it go (none are left dangling at the line's end).
  if (comma !== undefined && restIsTrivia(text, comma)) {
    let start = property.offset;
    while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start -= 1;
    return { start, end: comma, insert: '' };
  }
  return { start: property.offset, end: comma === undefined ? end : skipSpaces(text, end), insert: '' };
}

/** The edits that take `remove` out of `object` and add `key: value` at its end. */
function spliceObject(text: string, object: JsonNode, remove: ReadonlySet<string>, key: string, value: unknown, style: Style): TextEdit[] {
  const properties = object.children ?? [];
  const edits: TextEdit[] = [];
  const last = properties.at(-1);
  let lastDeletion: TextEdit | undefined;
  for (const property of properties) {
    if (!remove.has(keyOf(property))) continue;
    const deletion = deletionOf(text, property, property === last, lineStartOf(text, object.offset));
    edits.push(deletion);
    if (property === last) lastDeletion = deletion;
  }
  const keyText = JSON.stringify(key);

  if (last === undefined) {
    const close = object.offset + object.length - 1;
    if (startsItsLine(text, close) && text.lastIndexOf('\n', close) > object.offset) {
      const indent = indentOfLine(text, close) + style.unit;
      edits.push({ start: lineStartOf(text, close), end: lineStartOf(text, close), insert: `${indent}${keyText}: ${objectText(value, indent, style)}${style.eol}` });
    } else {
      const outer = indentOfLine(text, object.offset);
      const indent = outer + style.unit;
      edits.push({ start: close, end: close, insert: `${style.eol}${indent}${keyText}: ${objectText(value, indent, style)}${style.eol}${outer}` });
    }
    return edits;
  }

  const lastComma = commaEnd(text, last);
  const trailing = lastComma === undefined ? '' : ',';
  const lastEnd = last.offset + last.length;
  if (!startsItsLine(text, last.offset)) {
    const compact = `${keyText}: ${JSON.stringify(value)}`;
    if (lastDeletion !== undefined) edits.push({ start: lastDeletion.end, end: lastDeletion.end, insert: compact + trailing });
    else if (lastComma !== undefined) edits.push({ start: lastComma, end: lastComma, insert: ` ${compact},` });
    else edits.push({ start: lastEnd, end: lastEnd, insert: `, ${compact}` });
    return edits;
  }

  const indent = indentOfLine(text, last.offset);
  const entry = `${indent}${keyText}: ${objectText(value, indent, style)}${trailing}`;
  if (lastDeletion !== undefined) {
    const atLineStart = lastDeletion.end === lineStartOf(text, lastDeletion.end);
    edits.push({ start: lastDeletion.end, end: lastDeletion.end, insert: atLineStart ? entry + style.eol : entry });
    return edits;
  }
  const after = lastComma ?? lastEnd;
  if (lastComma === undefined) edits.push({ start: lastEnd, end: lastEnd, insert: ',' });
  if (restIsTrivia(text, after) && nextLineStartOf(text, after) < text.length) {
    const at = nextLineStartOf(text, after);
    edits.push({ start: at, end: at, insert: entry + style.eol });
  } else {
    edits.push({ start: after, end: after, insert: style.eol + entry });
  }
  return edits;
}
