import { basename, frameInLine, identifierParts, scanPaths, scanSymbols, STOP_WORDS } from './_extract-code.js';
import {
  decideOutcome,
  errorSignatureInLine,
  outcomeMarkerInLine,
  requirementsInLine,
  testFailureInLine,
  type OutcomeMarker,
} from './_extract-outcome.js';
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
    paths: paths.values,
    symbols: symbols.values,
    frames: frames.values,
    errorSignatures: errorSignatures.values,
    testFailures: testFailures.values,
    requirements: requirements.values,
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

// Runs of letters, digits and underscores; camelCase and snake_case are split afterwards.
const WORD_RUN = /[\p{L}\p{N}_]+/gu;

/**
 * The words lexical scoring counts: lower-cased, 2+ characters, stop words removed, each
 * identifier kept whole and also split into its camelCase and snake_case parts
 * (`parseConfigFile` → `parseconfigfile`, `parse`, `config`, `file`). De-duplicated, in order
 * of first appearance.
 */
export function tokenizeWords(text: string): string[] {
  const words = new Set<string>();
  const add = (word: string): void => {
    if (word.length >= 2 && !STOP_WORDS.has(word)) words.add(word);
  };
  for (const match of text.matchAll(WORD_RUN)) {
    const run = match[0];
    if (run.length > EXTRACTION_LIMITS.maxWordChars) continue;
    add(trimUnderscores(run).toLowerCase());
    const parts = identifierParts(run);
    if (parts.length > 1) for (const part of parts) add(part.toLowerCase());
  }
  return [...words];
}

function trimUnderscores(run: string): string {
  let start = 0;
  let end = run.length;
  while (start < end && run[start] === '_') start += 1;
  while (end > start && run[end - 1] === '_') end -= 1;
  return run.slice(start, end);
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
  readonly values: T[] = [];
  private readonly seen = new Set<string>();

  get full(): boolean {
    return this.values.length >= EXTRACTION_LIMITS.maxFactsPerCategory;
  }

  add(value: T, key: string): void {
    if (this.full || this.seen.has(key)) return;
    this.seen.add(key);
    this.values.push(value);
  }
}
