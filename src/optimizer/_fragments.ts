import type { Fragment, NormalizedRecord, RecordKind } from './_types.js';

/** Errors, test results, decisions and diffs are read as a whole: one fragment, never split. */
const STRUCTURED_KINDS: ReadonlySet<RecordKind> = new Set(['error', 'testResult', 'decision', 'diff']);

/** Text up to this many characters stays one fragment (about 400 tokens of prose or code). */
const WHOLE_UP_TO = 1_600;
/** Blocks are grown to about this size, so a fragment carries enough context to be useful. */
const TARGET_CHARS = 1_200;
/** A block larger than this is cut at line boundaries (and a huge line at character boundaries). */
const MAX_CHARS = 2_400;

export function isStructured(kind: RecordKind): boolean {
  return STRUCTURED_KINDS.has(kind);
}

/**
 * Splits a record into fragments: small and structured records are one fragment; long messages,
 * tool outputs and files are split at blank lines into blocks of roughly TARGET_CHARS, so that the
 * part of a 2,000-line log that matters can be kept without the rest.
 */
export function fragmentRecord(record: NormalizedRecord): Fragment[] {
  const pieces = isStructured(record.kind) || record.text.length <= WHOLE_UP_TO ? [record.text] : splitText(record.text);
  const lines = new LineLocator(record.text);
  return pieces.map((text, i) => ({ id: `${record.id}#${i + 1}`, recordId: record.id, index: i + 1, firstLine: lines.lineOf(text), text }));
}

/**
 * The record line each piece starts on. Pieces come in text order and each starts with text of
 * the record (its first line, or the start of a cut long line), so one forward scan finds them all.
 */
class LineLocator {
  private offset = 0;
  private line = 1;

  constructor(private readonly text: string) {}

  lineOf(piece: string): number {
    const newline = piece.indexOf('\n');
    const head = newline < 0 ? piece : piece.slice(0, newline);
    const at = this.text.indexOf(head, this.offset);
    if (at < 0) return this.line;
    for (let i = this.offset; i < at; i++) if (this.text.charCodeAt(i) === 10) this.line += 1;
    this.offset = at + head.length;
    return this.line;
  }
}

function splitText(text: string): string[] {
  const blocks = text.split(/\n[ \t]*\n/).flatMap(cutLongBlock);
  const pieces: string[] = [];
  let current = '';
  for (const block of blocks) {
    if (current === '') current = block;
    else if (current.length + block.length + 2 <= TARGET_CHARS) current = `${current}\n\n${block}`;
    else {
      pieces.push(current);
      current = block;
    }
  }
  if (current !== '' || pieces.length === 0) pieces.push(current);
  return pieces;
}

function cutLongBlock(block: string): string[] {
  if (block.length <= MAX_CHARS) return [block];
  const out: string[] = [];
  let current = '';
  for (const line of block.split('\n')) {
    for (const part of cutLongLine(line)) {
      if (current !== '' && current.length + part.length + 1 > TARGET_CHARS) {
        out.push(current);
        current = part;
      } else current = current === '' ? part : `${current}\n${part}`;
    }
  }
  if (current !== '') out.push(current);
  return out;
}

function cutLongLine(line: string): string[] {
  if (line.length <= MAX_CHARS) return [line];
  const out: string[] = [];
  let start = 0;
  while (start < line.length) {
    let end = Math.min(start + TARGET_CHARS, line.length);
    // Never cut between the two halves of a surrogate pair.
    const code = line.charCodeAt(end - 1);
    if (end < line.length && code >= 0xd800 && code <= 0xdbff) end--;
    out.push(line.slice(start, end));
    start = end;
  }
  return out;
}
