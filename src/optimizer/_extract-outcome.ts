import type { Outcome, RecordKind, TestStatus } from './_types.js';

// What went wrong or right, found in one line of text: error signatures, failing tests,
// requirement sentences and outcome markers; and the outcome of a whole record. The caller
// caps each line's length and trims it once for all the readers that take `trimmed`; the regexes
// here are single-pass (no nested quantifiers). A regex that searches the whole line is run only
// when the line holds a literal the regex requires (`includes` is much cheaper than a search).

/** Error signatures and test names are cut to this many characters. */
const MAX_SIGNATURE_CHARS = 200;
/** Outcome evidence quotes at most this much of its line. */
const MAX_EVIDENCE_CHARS = 120;

// ---------------------------------------------------------------------------------------------
// Error signatures
// ---------------------------------------------------------------------------------------------

const TSC_ERROR = /\berror TS\d+:/;
const COMPILER_ERROR = /^error(?:\[E\d+\])?: /; // rustc, cargo and other compilers
const GO_PANIC = /^panic: /;
const RUST_PANIC = /^thread '[^']*' panicked at/;
const FATAL = /\bFATAL\b|^fatal: /;
const PYTEST_ERROR_LINE = /^E\s+/;
const THROWN_PREFIX = /^(?:Uncaught |Caused by: |Exception in thread "[^"]*" )/;
const LEADING_NAME = /^[A-Za-z_$][\w$.]*/;

/** The line (trimmed) as an error signature (`TypeError: x is not a function`), if it states an error. */
export function errorSignatureInLine(trimmed: string): string | undefined {
  if (trimmed === '') return undefined;
  if (
    (trimmed.includes('error TS') && TSC_ERROR.test(trimmed)) ||
    COMPILER_ERROR.test(trimmed) ||
    GO_PANIC.test(trimmed) ||
    RUST_PANIC.test(trimmed) ||
    ((trimmed.includes('FATAL') || trimmed.startsWith('fatal: ')) && FATAL.test(trimmed))
  ) {
    return cap(trimmed, MAX_SIGNATURE_CHARS);
  }
  // The thrown error's name is in the statement, a part of the line.
  if (!mayNameThrownError(trimmed)) return undefined;
  // pytest's `E   AssertionError: ...` is the same signature as the traceback's last line.
  const statement = trimmed.replace(PYTEST_ERROR_LINE, '').replace(THROWN_PREFIX, '');
  return namesThrownError(statement) ? cap(statement, MAX_SIGNATURE_CHARS) : undefined;
}

function mayNameThrownError(text: string): boolean {
  return text.includes('Error') || text.includes('Exception');
}

/** `TypeError: ...`, `AssertionError`, `java.lang.IllegalStateException: ...`, `TypeError [ERR_X]: ...`. */
function namesThrownError(statement: string): boolean {
  const name = LEADING_NAME.exec(statement)?.[0];
  if (!name) return false;
  const shortName = name.slice(name.lastIndexOf('.') + 1);
  if (!/^[A-Z]/.test(shortName) || !(shortName.endsWith('Error') || shortName.endsWith('Exception'))) return false;
  let rest = statement.slice(name.length);
  if (rest.startsWith(' [')) {
    const close = rest.indexOf(']');
    if (close < 0) return false;
    rest = rest.slice(close + 1);
  }
  if (rest.startsWith(':')) return true;
  // A bare name on its own line counts, except plain `Error`, which says nothing.
  return rest.trim() === '' && shortName !== 'Error';
}

// ---------------------------------------------------------------------------------------------
// Failing tests
// ---------------------------------------------------------------------------------------------

const FAILED_MARKS = new Set(['✕', '×', '✗', '✖']);
const TRAILING_DURATION = /\s\(?\d+(?:\.\d+)? ?m?s\)?$/;
const PYTEST_TRAILING_FAILED = /\sFAILED(?:\s+\[\s*\d+%\])?$/;
const FAIL_LINE = /^FAIL\s/;

/** The name of a failing test the line (trimmed) reports (jest, vitest, pytest, go), if any. */
export function testFailureInLine(trimmed: string): string | undefined {
  const name = failingTestName(trimmed);
  return name ? cap(name, MAX_SIGNATURE_CHARS) : undefined;
}

function failingTestName(trimmed: string): string | undefined {
  if (trimmed.startsWith('● ')) {
    const name = trimmed.slice(2).trim();
    // jest also uses the bullet for captured console output.
    return name === 'Console' ? undefined : name;
  }
  if (FAILED_MARKS.has(trimmed[0] ?? '') && trimmed[1] === ' ') return withoutDuration(trimmed.slice(2).trim());
  if (trimmed.startsWith('--- FAIL: ')) return firstWord(trimmed.slice('--- FAIL: '.length));
  if (trimmed.startsWith('FAILED ')) {
    const rest = trimmed.slice('FAILED '.length);
    const reasonAt = rest.indexOf(' - ');
    return firstWord(reasonAt >= 0 ? rest.slice(0, reasonAt) : rest);
  }
  if (FAIL_LINE.test(trimmed)) {
    const rest = trimmed.slice(4).trim();
    // vitest names the test after the file (`FAIL src/a.test.ts > suite > name`); jest and go name a file or package.
    return rest.includes(' > ') ? withoutDuration(rest) : firstWord(rest);
  }
  if (trimmed.includes('FAILED') && PYTEST_TRAILING_FAILED.test(trimmed)) {
    const nodeId = firstWord(trimmed);
    return nodeId?.includes('::') ? nodeId : undefined;
  }
  return undefined;
}

function withoutDuration(name: string): string | undefined {
  const stripped = name.replace(TRAILING_DURATION, '').trim();
  return stripped === '' ? undefined : stripped;
}

function firstWord(text: string): string | undefined {
  const word = text.trim().split(/\s/, 1)[0];
  return word === '' ? undefined : word;
}

// ---------------------------------------------------------------------------------------------
// Requirements
// ---------------------------------------------------------------------------------------------

const REQUIREMENT = /\b(?:must|never|always|do\s+not|don['’]t|should\s+not)\b/i;

/**
 * Sentences of the line that state a requirement. Sentences end at `.`, `!` or `?` followed by
 * whitespace or the end of the line, so `src/config/loader.ts` and `e.g.` inside a sentence do
 * not cut it.
 */
export function requirementsInLine(line: string): string[] {
  if (!REQUIREMENT.test(line)) return [];
  const found: string[] = [];
  let start = 0;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (char !== '.' && char !== '!' && char !== '?') continue;
    const next = line[index + 1];
    if (next !== undefined && next !== ' ' && next !== '\t') continue;
    if (char === '.' && endsWithAbbreviation(line, index)) continue;
    addRequirement(found, line.slice(start, index + 1));
    start = index + 1;
  }
  addRequirement(found, line.slice(start));
  return found;
}

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'vs', 'cf']);

/** Whether the `.` at `dot` closes an abbreviation (`e.g.`, `i.e.`, `vs.`) rather than a sentence. */
function endsWithAbbreviation(line: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && dot - start < 4 && /[A-Za-z.]/.test(line[start - 1] ?? '')) start -= 1;
  return ABBREVIATIONS.has(line.slice(start, dot).toLowerCase());
}

function addRequirement(found: string[], sentence: string): void {
  const trimmed = sentence.trim();
  if (trimmed !== '' && REQUIREMENT.test(trimmed)) found.push(trimmed);
}

// ---------------------------------------------------------------------------------------------
// Outcome
// ---------------------------------------------------------------------------------------------

export interface OutcomeMarker {
  outcome: 'success' | 'failure';
  /** The line that carries the marker, whitespace collapsed: `Tests: 2 failed, 3 total`. */
  evidence: string;
}

const SUMMARY_LINE = /^(?:Tests|Test Suites|Test Files):?\s/; // jest and vitest totals
const COUNT_FAILED = /\b\d+ (?:failed|errors?)\b/;
const COUNT_PASSED = /\b\d+ passed\b/;
const COUNT_TOTAL = /\b\d+ total\b/;
const PYTEST_DURATION = /\bin \d+(?:\.\d+)?s\b/;
const FAILURE_LINE = /^(?:FAIL(?:\s|$)|FAILED\s|--- FAIL:|npm (?:ERR!|error)(?:\s|$))/;
const TSC_ERROR_CODE = /\berror TS\d+\b/;
const VITEST_PASSED = /^Tests\s+\d+ passed\b/;

/** Whether the line (trimmed) is an explicit marker of a failed or successful run. */
export function outcomeMarkerInLine(trimmed: string): OutcomeMarker | undefined {
  if (trimmed === '') return undefined;
  const outcome = markerOutcome(trimmed);
  if (!outcome) return undefined;
  return { outcome, evidence: cap(trimmed.split(/\s+/).join(' '), MAX_EVIDENCE_CHARS) };
}

function markerOutcome(trimmed: string): OutcomeMarker['outcome'] | undefined {
  const summary = SUMMARY_LINE.test(trimmed);
  // pytest's closing line: `=== 1 failed, 2 passed in 0.12s ===` or, with -q, `2 passed in 0.1s`.
  const pytestSummary = trimmed.startsWith('=') || (trimmed.includes('in ') && PYTEST_DURATION.test(trimmed));
  if (
    FAILURE_LINE.test(trimmed) ||
    trimmed.includes('Traceback (most recent call last)') ||
    (trimmed.includes('error TS') && TSC_ERROR_CODE.test(trimmed)) ||
    trimmed.includes('BUILD FAILED') ||
    ((summary || pytestSummary) && COUNT_FAILED.test(trimmed))
  ) {
    return 'failure';
  }
  if (trimmed.includes('BUILD SUCCESSFUL')) return 'success';
  if (trimmed.startsWith('Tests:') && COUNT_PASSED.test(trimmed) && COUNT_TOTAL.test(trimmed)) return 'success';
  if (VITEST_PASSED.test(trimmed)) return 'success';
  if (pytestSummary && COUNT_PASSED.test(trimmed)) return 'success';
  return undefined;
}

export interface OutcomeContext {
  kind: RecordKind;
  exitCode?: number;
  testStatus?: TestStatus;
}

export interface OutcomeDecision {
  outcome: Outcome;
  evidence?: string;
}

/**
 * The record's outcome: the exit code first, then the test status, then markers in the text.
 * Success from text needs a tool's or test's own output: a message or decision saying "fixed"
 * is an attempt, not a result. File contents and diffs are not runs, so their text decides nothing.
 */
export function decideOutcome(
  context: OutcomeContext,
  firstFailure: OutcomeMarker | undefined,
  firstSuccess: OutcomeMarker | undefined,
): OutcomeDecision {
  const { kind, exitCode, testStatus } = context;
  if (typeof exitCode === 'number' && Number.isFinite(exitCode)) {
    return { outcome: exitCode === 0 ? 'success' : 'failure', evidence: `exitCode ${exitCode}` };
  }
  if (testStatus === 'failed' || testStatus === 'passed') {
    return { outcome: testStatus === 'failed' ? 'failure' : 'success', evidence: `testStatus ${testStatus}` };
  }
  if (kind === 'file' || kind === 'diff') return { outcome: 'unknown' };
  if (firstFailure) return { outcome: 'failure', evidence: firstFailure.evidence };
  if (firstSuccess && (kind === 'toolOutput' || kind === 'testResult')) {
    return { outcome: 'success', evidence: firstSuccess.evidence };
  }
  return { outcome: 'unknown' };
}

function cap(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : text.slice(0, maxChars);
}
