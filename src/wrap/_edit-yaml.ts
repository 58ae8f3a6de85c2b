import type * as Yaml from 'yaml';
import type { Document, Node as YamlNode, YAMLMap } from 'yaml';
import { lazyRequire } from '../lazy/index.js';
import { isPlainObject } from '../json/index.js';
import { firstLine } from '../config/index.js';
import type { ServerMapEdit } from './_edit-types.js';
import {
  type Spliced,
  type TextEdit,
  commentLinesAbove,
  indentOfLine,
  indentUnitOf,
  isBlankLine,
  keyPathText,
  lineEndingOf,
  lineStartOf,
  linesAt,
  namesProblem,
  nextLineStartOf,
  noMapToRemoveFrom,
  replaceLines,
  spliced,
  startsItsLine,
  swallowBlankLines,
} from './_edit-text.js';

const yaml = lazyRequire<typeof Yaml>('yaml');

/**
 * The YAML editor (Goose's config.yaml): the `yaml` parser gives each key's offset; an entry of a
 * block mapping is its key's line and every following line indented deeper than the key (blank
 * lines between them included, blank lines after it not). Choices:
 * - A comment line inside an entry (before one of its lines, or indented deeper than its key) goes
 *   with it, and so do the comment lines right above its key (left behind, `# the memory server`
 *   would sit above another entry), except right under the map's own key (`extensions:`), where
 *   they may describe the map.
 * - The added entry goes after the map's last entry, at the map's indent, nested one unit deeper
 *   (the unit the file's entries use), lists and empty maps in flow style (`[a, b]`, `{}`).
 * - Flow mappings (`{a: 1}`) holding entries, anchors and aliases in or on the map are refused:
 *   splicing lines would break them.
 */
export function editYamlText(text: string, edit: ServerMapEdit): Spliced {
  const { parseDocument, LineCounter } = yaml();
  const lineCounter = new LineCounter();
  let document: Document;
  try {
    document = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
  } catch (error) {
    return { refused: `the file cannot be parsed as YAML (${firstLine(error instanceof Error ? error.message : String(error))})` };
  }
  const [first] = document.errors;
  if (first !== undefined) {
    const { line, col } = lineCounter.linePos(first.pos[0]);
    return { refused: `the file is not valid YAML (${first.code} at line ${line}, column ${col}); fix it first` };
  }
  const { isMap, isScalar, isAlias } = yaml();
  const eol = lineEndingOf(text);
  const node: unknown = document.contents;
  if (node === null && edit.remove.length === 0 && edit.serversAt.length === 1) {
    // A file of comments (or nothing): the map goes at its end.
    return addMissing(text, edit.serversAt, edit, eol, indentUnitOf(text));
  }
  if (!isMap(node)) return { refused: 'the file does not hold a mapping at the top' };
  let map: YAMLMap = node;
  let mapKeyLine = 0;
  for (const [depth, key] of edit.serversAt.entries()) {
    const here = keyPathText(edit.serversAt.slice(0, depth + 1));
    if (map.anchor !== undefined) return { refused: `${keyPathText(edit.serversAt.slice(0, depth))} carries an anchor (&${map.anchor}) that other parts of the file may repeat; edit it by hand` };
    const pair = map.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
    const value = pair?.value;
    const isLast = depth === edit.serversAt.length - 1;
    if (pair === undefined) {
      if (edit.remove.length > 0) return noMapToRemoveFrom(here, edit.remove);
      if (edit.serversAt.length === 1 && !map.flow && map.range != null) return addMissing(text, edit.serversAt, edit, eol, indentUnitOf(text));
      return { refused: `there is no ${here} in the file to add the entry to; add an empty ${here} mapping first` };
    }
    if (isAlias(value)) return { refused: `${here} is an alias (*${value.source}); edit the mapping it points to by hand` };
    const keyNode = pair.key as YamlNode;
    if (isLast && edit.remove.length === 0 && isScalar(value) && value.value === null && value.source === '' && keyNode.range != null) {
      // `extensions:` with nothing after it: the entry goes on the next lines, one unit in.
      const unit = indentUnitOf(text);
      const indent = indentOfLine(text, keyNode.range[0]) + unit;
      const at = nextLineStartOf(text, keyNode.range[0]);
      return spliced(text, [linesAt(text, at, entryLines(edit.addName, edit.addValue, indent, unit), eol)]);
    }
    if (!isMap(value)) return { refused: `${here} is ${isScalar(value) ? `a ${value.value === null ? 'null' : typeof value.value} value` : 'a list'}, not a mapping of servers by name` };
    if (value.flow) {
      if (value.items.length === 0 && isLast && edit.remove.length === 0 && value.range != null && keyNode.range != null) {
        // `extensions: {}` (what Goose writes when it has none): the braces go, the entry follows in block style.
        const unit = indentUnitOf(text);
        const indent = indentOfLine(text, keyNode.range[0]) + unit;
        let start = value.range[0];
        while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start -= 1;
        const at = nextLineStartOf(text, value.range[1]);
        return spliced(text, [{ start, end: value.range[1], insert: '' }, linesAt(text, at, entryLines(edit.addName, edit.addValue, indent, unit), eol)]);
      }
      return { refused: `${here} is a flow mapping ({...}); mcpctx edits block mappings only: write one entry per line, then wrap again` };
    }
    map = value;
    mapKeyLine = lineStartOf(text, keyNode.range?.[0] ?? 0);
  }

  if (map.anchor !== undefined) return { refused: `${keyPathText(edit.serversAt)} carries an anchor (&${map.anchor}) that other parts of the file may repeat; edit it by hand` };
  const inside = anchorOrAliasIn(map);
  if (inside !== undefined) return { refused: `${keyPathText(edit.serversAt)} holds ${inside}; removing or adding lines could break what refers to it, so edit it by hand` };

  const entries: { name: string; start: number }[] = [];
  for (const item of map.items) {
    const key = item.key as YamlNode | null;
    if (!isScalar(key) || key.range == null) return { refused: `${keyPathText(edit.serversAt)} has a key that is not a plain name; edit it by hand` };
    if (!startsItsLine(text, key.range[0])) return { refused: `${keyPathText(edit.serversAt)} has an entry that does not start its own line (${String(key.value)}); edit it by hand` };
    entries.push({ name: String(key.value), start: key.range[0] });
  }
  const problem = namesProblem(new Set(entries.map((entry) => entry.name)), edit.remove, edit.addName, edit.serversAt);
  if (problem !== undefined) return { refused: problem };
  const removing = new Set(edit.remove);
  const lastEntry = entries.at(-1);
  if (lastEntry === undefined) return { refused: `${keyPathText(edit.serversAt)} is empty in a form mcpctx does not edit; edit it by hand` };

  const mapIndent = indentOfLine(text, lastEntry.start);
  const unit = entryUnit(text, entries[0]?.start ?? lastEntry.start, mapIndent.length) ?? indentUnitOf(text);
  const added = entryLines(edit.addName, edit.addValue, mapIndent, unit);
  const edits: TextEdit[] = [];
  const isShallowComment = (line: string): boolean => /^[ \t]*#/.test(line) && (/^[ \t]*/.exec(line)?.[0].length ?? 0) <= mapIndent.length;
  for (const entry of entries) {
    const removed = removing.has(entry.name);
    const own = entrySpan(text, entry.start, mapIndent.length);
    const span = removed ? { start: commentLinesAbove(text, own.start, isShallowComment, mapKeyLine), end: own.end } : own;
    // The added entry goes where the last one ends (in its place when that one is removed).
    if (entry === lastEntry) edits.push(removed ? replaceLines(text, span.start, span.end, added, eol) : linesAt(text, span.end, added, eol));
    else if (removed) edits.push({ start: span.start, end: swallowBlankLines(text, span.start, span.end), insert: '' });
  }
  return spliced(text, edits);
}

/** A top-level `extensions:` that is not there yet, added at the end of the file with the entry in it. */
function addMissing(text: string, serversAt: readonly string[], edit: ServerMapEdit, eol: string, unit: string): Spliced {
  const [key] = serversAt;
  const lines = key === undefined ? entryLines(edit.addName, edit.addValue, '', unit) : [`${yamlScalar(key)}:`, ...entryLines(edit.addName, edit.addValue, unit, unit)];
  return spliced(text, [linesAt(text, text.length, lines, eol)]);
}

/** What in `map` an anchor (`&x`) or an alias (`*x`) is, or undefined. */
function anchorOrAliasIn(map: YAMLMap): string | undefined {
  const { visit, isAlias } = yaml();
  let found: string | undefined;
  visit(map, (_key, node) => {
    if (isAlias(node)) found = `an alias (*${node.source})`;
    else if (node !== null && typeof node === 'object' && 'anchor' in node && typeof node.anchor === 'string') found = `an anchor (&${node.anchor})`;
    return found === undefined ? undefined : visit.BREAK;
  });
  return found;
}

function indentWidth(text: string, lineStart: number): number {
  return /^[ \t]*/.exec(text.slice(lineStart, nextLineStartOf(text, lineStart)))?.[0].length ?? 0;
}

/**
 * An entry's lines: its key's line and every later line deeper than `mapIndent` (or a list item at
 * it), up to its last such line; comment and blank lines after that last line are not the entry's.
 */
function entrySpan(text: string, keyStart: number, mapIndent: number): { start: number; end: number } {
  const start = lineStartOf(text, keyStart);
  let end = nextLineStartOf(text, keyStart);
  for (let at = end; at < text.length; at = nextLineStartOf(text, at)) {
    if (isBlankLine(text, at)) continue;
    const width = indentWidth(text, at);
    // A comment at the key's indent or shallower is the entry's only when the entry goes on after it.
    if (width <= mapIndent && text[at + width] === '#') continue;
    // A list under the entry's key may sit at the key's own indent (`args:` then `- -y`).
    const indentless = width === mapIndent && /^-(?:[ \t]|\r?\n|$)/.test(text.slice(at + width, nextLineStartOf(text, at)));
    if (width < mapIndent || (width === mapIndent && !indentless)) break;
    end = nextLineStartOf(text, at);
  }
  return { start, end };
}

/** The step from the map's indent to its first entry's nested lines, when there are some. */
function entryUnit(text: string, keyStart: number, mapIndent: number): string | undefined {
  for (let at = nextLineStartOf(text, keyStart); at < text.length; at = nextLineStartOf(text, at)) {
    if (isBlankLine(text, at) || /^[ \t]*#/.test(text.slice(at, nextLineStartOf(text, at)))) continue;
    const indent = indentOfLine(text, at);
    return indent.length > mapIndent && !indent.includes('\t') ? ' '.repeat(indent.length - mapIndent) : undefined;
  }
  return undefined;
}

const RESERVED_PLAIN = /^(?:true|false|yes|no|on|off|y|n|null|~|\.inf|\.nan)$/i;

/** A string as a YAML scalar: plain when nothing in it could read as anything else, else double-quoted (JSON's escapes are YAML's). */
export function yamlScalar(value: string): string {
  if (/^[A-Za-z_/][A-Za-z0-9_./@+-]*$/.test(value) && !RESERVED_PLAIN.test(value)) return value;
  return JSON.stringify(value);
}

function yamlValue(value: unknown): string {
  if (typeof value === 'string') return yamlScalar(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(yamlValue).join(', ')}]`;
  if (isPlainObject(value)) return `{${Object.entries(value).map(([key, inner]) => `${yamlScalar(key)}: ${yamlValue(inner)}`).join(', ')}}`;
  return 'null';
}

/** `name:` at `indent`, then the entry's fields one `unit` deeper. */
function entryLines(name: string, value: Record<string, unknown>, indent: string, unit: string): string[] {
  return [`${indent}${yamlScalar(name)}:`, ...Object.entries(value).map(([key, inner]) => `${indent}${unit}${yamlScalar(key)}: ${yamlValue(inner)}`)];
}
