import { childPath } from '../config/index.js';

/**
 * Text facts and splices shared by the JSON, YAML and TOML editors of a client's config: line
 * positions, the file's line ending and indent unit, and applying edits at offsets. Everything the
 * editors do not splice stays the bytes it was.
 */

/** Replace `[start, end)` with `insert`; an insertion has start === end. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly insert: string;
}

export type Spliced = { text: string } | { refused: string };

/** The edits applied, or the refusal for edits that overlap. */
export function spliced(text: string, edits: readonly TextEdit[]): Spliced {
  const result = applyEdits(text, edits);
  return result === undefined ? { refused: 'the edits to the file overlap (a layout mcpctx does not handle); edit the file by hand' } : { text: result };
}

/**
 * Why the names in the map do not allow the edit: a name to remove that is not there, or the
 * added name already there and not removed. Undefined when they allow it.
 */
export function namesProblem(names: ReadonlySet<string>, remove: readonly string[], addName: string, serversAt: readonly string[]): string | undefined {
  const here = keyPathText(serversAt);
  const absent = remove.filter((name) => !names.has(name));
  if (absent.length > 0) return `${absent.map((name) => JSON.stringify(name)).join(', ')} ${absent.length === 1 ? 'is' : 'are'} not in ${here}`;
  if (names.has(addName) && !remove.includes(addName)) return `${here} already has a server named ${JSON.stringify(addName)}; choose another name for the gateway's entry`;
  return undefined;
}

/** The refusal for a server map that is not in the file when entries must come out of it. */
export function noMapToRemoveFrom(here: string, remove: readonly string[]): { refused: string } {
  return { refused: `there is no ${here} in the file, so ${remove.join(', ')} cannot be taken out of it` };
}

/**
 * The edits applied to `text`, or undefined when two of them overlap (an editor's bug, refused
 * rather than guessed at). Insertions at the same offset keep their order; an insertion at the end
 * of a deletion goes after it.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string | undefined {
  const ordered = edits.map((edit, index) => ({ edit, index })).sort((a, b) => a.edit.start - b.edit.start || a.edit.end - b.edit.end || a.index - b.index);
  let out = '';
  let at = 0;
  for (const { edit } of ordered) {
    if (edit.start < at) return undefined;
    out += text.slice(at, edit.start) + edit.insert;
    at = edit.end;
  }
  return out + text.slice(at);
}

/** The line ending the file uses (its first one); LF for a file of one line. */
export function lineEndingOf(text: string): '\r\n' | '\n' {
  const newline = text.indexOf('\n');
  return newline > 0 && text[newline - 1] === '\r' ? '\r\n' : '\n';
}

/** The offset where the line holding `offset` starts. */
export function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset of the line break (`\r\n` or `\n`) ending the line holding `offset`, or the text's length. */
export function lineBreakOf(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  if (newline === -1) return text.length;
  return newline > 0 && text[newline - 1] === '\r' && newline - 1 >= offset ? newline - 1 : newline;
}

/** The offset just after the line break ending the line holding `offset` (the text's length on the last line). */
export function nextLineStartOf(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

/** Whether only spaces and tabs precede `offset` on its line. */
export function startsItsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStartOf(text, offset), offset));
}

/** The spaces and tabs that open the line holding `offset`. */
export function indentOfLine(text: string, offset: number): string {
  const start = lineStartOf(text, offset);
  return /^[ \t]*/.exec(text.slice(start, lineBreakOf(text, start)))?.[0] ?? '';
}

export function isBlankLine(text: string, lineStart: number): boolean {
  return /^[ \t]*\r?$/.test(text.slice(lineStart, nextLineStartOf(text, lineStart)).replace(/\n$/, ''));
}

/**
 * The indent unit the file's nested lines use: the most frequent step from one line's indent to a
 * deeper next line's (a tab when tabs step), else `fallback`. Bounded by the text, one pass.
 */
export function indentUnitOf(text: string, fallback = '  '): string {
  const steps = new Map<string, number>();
  let previous = '';
  for (const line of text.split('\n')) {
    if (/^[ \t]*\r?$/.test(line)) continue;
    const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
    if (indent.length > previous.length && indent.startsWith(previous)) {
      const step = indent.slice(previous.length);
      if (/^(?: {1,8}|\t)$/.test(step)) steps.set(step, (steps.get(step) ?? 0) + 1);
    }
    previous = indent;
  }
  let best = fallback;
  let bestCount = 0;
  for (const [step, count] of steps) {
    if (count > bestCount) {
      best = step;
      bestCount = count;
    }
  }
  return best;
}

/**
 * After a deletion of whole lines `[start, end)` that had a blank line (or the file's start) before
 * it, the blank lines after it go too: removing the middle one of three blank-separated blocks
 * leaves one blank line between the other two, not two.
 */
export function swallowBlankLines(text: string, start: number, end: number): number {
  const blankBefore = start === 0 || (start >= 1 && isBlankLine(text, lineStartOf(text, start - 1)));
  if (!blankBefore) return end;
  let at = end;
  for (let guard = 0; at < text.length && isBlankLine(text, at) && guard < text.length; guard++) at = nextLineStartOf(text, at);
  return at;
}

/**
 * Whole lines to insert at a line start `at`, each ending with `eol`; at the end of a text whose
 * last line has no line break, the break goes first instead (the file keeps its missing final newline).
 */
export function linesAt(text: string, at: number, lines: readonly string[], eol: string): TextEdit {
  if (at === text.length && at > 0 && !text.endsWith('\n')) return { start: at, end: at, insert: eol + lines.join(eol) };
  return { start: at, end: at, insert: lines.map((line) => line + eol).join('') };
}

/**
 * The start of the comment lines right above the line starting at `lineStart` (contiguous, each
 * only a comment as `isComment` says), or `lineStart` when there are none, or when they follow
 * the map's opening line directly (`openerLineStart`): comments there may describe the map.
 */
export function commentLinesAbove(text: string, lineStart: number, isComment: (line: string) => boolean, openerLineStart: number): number {
  let start = lineStart;
  // Each step moves up one line, so the text's length bounds the loop.
  while (start > 0) {
    const previous = lineStartOf(text, start - 1);
    if (!isComment(text.slice(previous, start).replace(/\r?\n$/, ''))) break;
    start = previous;
  }
  if (start === lineStart) return lineStart;
  return start > 0 && lineStartOf(text, start - 1) === openerLineStart ? lineStart : start;
}

/**
 * Whole lines `[start, end)` replaced by `lines`: they end with a line break when the replaced
 * lines did (a last line without one stays without one).
 */
export function replaceLines(text: string, start: number, end: number, lines: readonly string[], eol: string): TextEdit {
  const closed = end > start ? text[end - 1] === '\n' : end < text.length || text.endsWith('\n') || text === '';
  return { start, end, insert: lines.join(eol) + (closed ? eol : '') };
}

/** `projects["/home/me/app"].mcpServers` (config's childPath per key); `(top)` for the document itself. */
export function keyPathText(path: readonly string[]): string {
  return path.length === 0 ? '(top)' : path.reduce(childPath, '');
}
