import { basename, frameInLine, identifierPartBounds, scanPaths, scanSymbols, STOP_WORDS } from './_extract-code.js';
import {
  decideOutcome,
  errorSignatureInLine,
  outcomeMarkerInLine,
  requirementsInLine,
  testFailureInLine,
  type OutcomeMarker,
} from './_extract-outcome.js';
import { CharClass } from './_scan.js';
import { LocationReader } from './_locations.js';
import type { Extraction, RecordKind, StackFrame, TaskTerms, TestStatus } from './_types.js';

export { basename } from './_extract-code.js';

/**
 * Stage 3: the facts scoring reads from a piece of text. Pure and deterministic, and linear in
 * the text: it is read line by line, and these caps bound the work and the output whatever the
 * input (a 4 MB single line, a hundred thousand `at` lines).
 */
export const EXTRACTION_LIMITS = {
  /** Only the first this-many characters of each line are examined; the rest of a longer line is skipped. */
  maxLineChars: 2_000,
  /** Each fact array keeps at most this many entries, the first ones found. */
  maxFactsPerCategory: 200,
  /** `tokenizeWords` skips runs of word characters longer than this (hashes past sha256, base64, minified code). */
  maxWordChars: 64,
} as const;

export interface ExtractionContext {
  kind: RecordKind;
  exitCode?: number;
  testStatus?: TestStatus;
  /** The record's own path (files, diffs): always the first path of the extraction. */
  path?: string;
}

/** Paths, symbols, frames, error signatures, failing tests, requirements and the outcome of `text`. */
export function extractFacts(text: string, context: ExtractionContext): Extraction {
  const paths = new CappedFacts<string>();
  const symbols = new CappedFacts<string>();
  const frames = new CappedFacts<StackFrame>();
  const errorSignatures = new CappedFacts<string>();
  const testFailures = new CappedFacts<string>();
  const requirements = new CappedFacts<string>();
  let firstFailure: OutcomeMarker | undefined;
  let firstSuccess: OutcomeMarker | undefined;

  if (context.path) paths.add(context.path, context.path);
  const locations = new LocationReader();
  forEachLine(text, EXTRACTION_LIMITS.maxLineChars, (framed) => {
    // Terraform (and other tools) draw a box around a diagnostic: `│ Error: ...`, `│   on main.tf line 4`.
    const line = framed.replace(BOX_DRAWING_PREFIX, '');
    const trimmed = line.trim();
    if (trimmed === '') return;
    const scan = scanPaths(line);
    for (const path of scan.paths) paths.add(path, path);
    if (!symbols.full) for (const symbol of scanSymbols(scan.masked)) symbols.add(symbol, symbol);
    const frame = frameInLine(trimmed) ?? locations.read(line, trimmed);
    if (frame) frames.add(frame, frameKey(frame));
    const signature = errorSignatureInLine(trimmed);
    if (signature !== undefined) errorSignatures.add(signature, signature);
    const failedTest = testFailureInLine(trimmed);
    if (failedTest !== undefined) testFailures.add(failedTest, failedTest);
    if (!requirements.full) for (const sentence of requirementsInLine(line)) requirements.add(sentence, sentence);
    if (!firstFailure) {
      const marker = outcomeMarkerInLine(trimmed);
      if (marker?.outcome === 'failure') firstFailure = marker;
      else if (marker && !firstSuccess) firstSuccess = marker;
    }
  });

  const decision = decideOutcome(context, firstFailure, firstSuccess);
  const extraction: Extraction = {
    paths: paths.result(),
    symbols: symbols.result(),
    frames: frames.result(),
    errorSignatures: errorSignatures.result(),
    testFailures: testFailures.result(),
    requirements: requirements.result(),
    outcome: decision.outcome,
  };
  if (decision.evidence !== undefined) extraction.outcomeEvidence = decision.evidence;
  return extraction;
}

const BOX_DRAWING_PREFIX = /^[ \t]*[│┃╷╵][ \t]?/;

/** `#512` (a pull request or issue), or a commit hash of 7 to 40 hex digits with a digit and a letter in it. */
const CHANGE_REFERENCE = /(?<![\w#&])#\d{1,7}(?![\w-])|(?<![\w#-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])/g;

function changeReferences(text: string): string[] {
  return [...new Set(text.match(CHANGE_REFERENCE) ?? [])];
}

/** What the task names: its words, paths, the file names among them, its identifiers and the changes it refers to. */
export function extractTaskTerms(task: string): TaskTerms {
  const facts = extractFacts(task, { kind: 'message' });
  const basenames = [...new Set(facts.paths.map(basename).filter((name) => name !== ''))];
  return { words: tokenizeWords(task), paths: facts.paths, basenames, symbols: facts.symbols, references: changeReferences(task) };
}

/**
 * The words lexical scoring counts: lower-cased, 2+ characters, stop words removed, each
 * identifier kept whole and also split into its camelCase and snake_case parts
 * (`parseConfigFile` → `parseconfigfile`, `parse`, `config`, `file`). De-duplicated, in order
 * of first appearance. Words are the runs of letters, digits and underscores (the regex
 * `[\p{L}\p{N}_]+` with the `u` flag), found by an index scan that cuts out only what it keeps.
 */
export function tokenizeWords(text: string): string[] {
  const words = new Set<string>();
  // ASCII lower-cases character by character, so the lower-cased text has the same positions and
  // its slices are the slices' lower case (outside ASCII a character may lower-case to two).
  const lower = NON_ASCII.test(text) ? undefined : text.toLowerCase();
  let index = 0;
  while (index < text.length) {
    const start = index;
    index = wordRunEnd(text, start);
    if (index === start) {
      index += codePointWidth(text, index);
      continue;
    }
    if (index - start > EXTRACTION_LIMITS.maxWordChars) continue;
    let wordStart = start;
    let wordEnd = index;
    while (wordStart < wordEnd && text.charCodeAt(wordStart) === UNDERSCORE) wordStart += 1;
    while (wordEnd > wordStart && text.charCodeAt(wordEnd - 1) === UNDERSCORE) wordEnd -= 1;
    addWord(words, lowerCased(text, lower, wordStart, wordEnd));
    if (!mayHaveParts(text, start, index)) continue;
    const parts: number[] = [];
    identifierPartBounds(text, start, index, parts);
    if (parts.length > 2) for (let part = 0; part < parts.length; part += 2) addWord(words, lowerCased(text, lower, parts[part] ?? 0, parts[part + 1] ?? 0));
  }
  return [...words];
}

const NON_ASCII = /[\u0080-\uffff]/;
const UNDERSCORE = 95;

function lowerCased(text: string, lower: string | undefined, start: number, end: number): string {
  return lower === undefined ? text.slice(start, end).toLowerCase() : lower.slice(start, end);
}

function addWord(words: Set<string>, word: string): void {
  if (word.length >= 2 && !STOP_WORDS.has(word)) words.add(word);
}

const ASCII_WORD_CHAR = new CharClass(/[A-Za-z0-9_]/);
// Sticky, to test the code point at an index in place; `u`, so a letter outside the BMP is one character.
const WORD_CHAR_AT = /[\p{L}\p{N}_]/uy;

/** Where the run of word characters starting at `index` ends (`index` itself when there is none). */
function wordRunEnd(text: string, index: number): number {
  while (index < text.length) {
    if (text.charCodeAt(index) < 128) {
      if (!ASCII_WORD_CHAR.at(text, index)) return index;
      index += 1;
      continue;
    }
    WORD_CHAR_AT.lastIndex = index;
    if (!WORD_CHAR_AT.test(text)) return index;
    index = WORD_CHAR_AT.lastIndex;
  }
  return index;
}

/** 2 for a surrogate pair, else 1: how far a `u` regex steps past a character it does not match. */
function codePointWidth(text: string, index: number): number {
  return (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
}

/** Only an underscore or a capital (any character outside ASCII may be one) splits a run into parts (`identifierParts`). */
function mayHaveParts(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code === UNDERSCORE || (code >= 65 && code <= 90) || code >= 128) return true;
  }
  return false;
}

/** Calls `visit` with each line of `text` (without its `\n` or `\r\n`), cut to `maxChars`. */
function forEachLine(text: string, maxChars: number, visit: (line: string) => void): void {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let line = text.slice(start, Math.min(end, start + maxChars));
    if (line.endsWith('\r')) line = line.slice(0, -1);
    visit(line);
    start = end + 1;
  }
}

function frameKey(frame: StackFrame): string {
  return [frame.language, frame.file, frame.line ?? '', frame.column ?? '', frame.fn ?? ''].join('\u0000');
}

/** A de-duplicated list in order of first appearance that stops growing at the category cap. */
class CappedFacts<T> {
  private readonly values: T[] = [];
  private seen: Set<string> | undefined;

  get full(): boolean {
    return this.values.length >= EXTRACTION_LIMITS.maxFactsPerCategory;
  }

  add(value: T, key: string): void {
    if (this.full || this.seen?.has(key) === true) return;
    (this.seen ??= new Set<string>()).add(key);
    this.values.push(value);
  }

  /**
   * The facts found, kept for as long as their fragment is: a list the size of its content (a
   * growing array holds spare room), or one shared empty list, frozen so that no caller can add to
   * it. Most fragments have no facts in most categories, and 100,000 records have 50,000 fragments.
   */
  result(): T[] {
    return this.values.length === 0 ? (NO_FACTS as unknown as T[]) : this.values.slice();
  }
}

const NO_FACTS: readonly never[] = Object.freeze([]);
