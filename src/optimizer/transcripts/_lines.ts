import { isPlainObject, type JsonObject } from '../../json/index.js';

/** Longest line read; a longer one (a pasted image, a huge tool output) is skipped and counted. */
export const MAX_LINE_CHARS = 8 * 1024 * 1024;
/** Deepest nesting read from a transcript line: the walkers never go deeper than a few levels. */
export const MAX_LINE_DEPTH = 64;

export interface LineProblems {
  skipped: Record<string, number>;
  truncatedLastLine?: { line: number; bytes: number };
  badLines: { count: number; first: number[] };
}

export interface ParsedLine {
  /** 1-based line number in the file. */
  line: number;
  value: JsonObject;
}

const FIRST_BAD_LINES = 5;

/** Adds one to `skipped[key]` (own properties only: a type named `__proto__` is just a key). */
export function countSkipped(skipped: Record<string, number>, key: string): void {
  const previous = Object.hasOwn(skipped, key) ? (skipped[key] as number) : 0;
  Object.defineProperty(skipped, key, { value: previous + 1, enumerable: true, writable: true, configurable: true });
}

/**
 * Whether brackets nest deeper than `limit` outside strings: checked on the text, before
 * `JSON.parse`, so a hostile `[[[[…]]]]` is refused without building it.
 */
export function textNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1;
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return false;
}

/** Parses one JSON value with the depth bound; undefined when it is not JSON or nests too deep. */
export function parseBoundedJson(text: string): { value: unknown } | { problem: 'not-json' | 'too-deep' } {
  if (textNestsDeeperThan(text, MAX_LINE_DEPTH)) return { problem: 'too-deep' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problem: 'not-json' };
  }
}

/**
 * The JSON objects of a JSON Lines text, in order. Blank lines are ignored; a line over the cap,
 * nested too deep or not an object is counted in `skipped`; a line that is not JSON is a bad line,
 * except the last one of a file that does not end with a newline: that one was cut short (the agent
 * still writing, or a crash) and is reported as truncated.
 */
export function readJsonLines(text: string, problems: LineProblems): ParsedLine[] {
  const parsed: ParsedLine[] = [];
  let start = 0;
  let lineNumber = 0;
  while (start < text.length) {
    lineNumber += 1;
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const isLastUnterminated = newline === -1;
    let raw = text.slice(start, end);
    start = end + 1;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (lineNumber === 1 && raw.startsWith('\uFEFF')) raw = raw.slice(1);
    if (raw.trim() === '') continue;
    if (raw.length > MAX_LINE_CHARS) {
      countSkipped(problems.skipped, 'line over 8 MiB');
      continue;
    }
    const result = parseBoundedJson(raw);
    if ('problem' in result) {
      if (result.problem === 'too-deep') countSkipped(problems.skipped, `line nested over ${MAX_LINE_DEPTH} levels`);
      else if (isLastUnterminated) problems.truncatedLastLine = { line: lineNumber, bytes: Buffer.byteLength(raw, 'utf8') };
      else {
        problems.badLines.count += 1;
        if (problems.badLines.first.length < FIRST_BAD_LINES) problems.badLines.first.push(lineNumber);
      }
      continue;
    }
    if (!isPlainObject(result.value)) {
      countSkipped(problems.skipped, 'line not an object');
      continue;
    }
    parsed.push({ line: lineNumber, value: result.value });
  }
  return parsed;
}
