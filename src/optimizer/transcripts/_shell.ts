// What a shell command and its output say: whether it ran tests, whether they passed, and where a
// failure points. Read from the command line and the runners' own summary lines only.

import type { TestStatus } from '../_types.js';

const TEST_COMMAND =
  /(?:^|[\s;&|(/])(?:pytest|py\.test|jest|vitest|mocha|ava|tap|rspec|phpunit|tox|nox|ctest|(?:go|cargo|dotnet|mix|bun|deno|swift|zig|sbt|mvn|gradle|\.\/gradlew|make|just) test\b|(?:npm|pnpm|yarn)(?: run)? test\b|python3?(?: -\w+)* -m (?:pytest|unittest)|node --test)\b/;

/** Whether a shell command runs a test suite (pytest, jest, vitest, `npm test`, `go test`, `cargo test`, …). */
export function isTestCommand(command: string): boolean {
  return TEST_COMMAND.test(command);
}

const FAILED_SUMMARY = /(?:\b[1-9]\d* (?:failed|failing|errors?)\b|^FAILED\b|^FAIL\b|test result: FAILED|Tests?:\s.*\bfailed\b|^--- FAIL|\bFAILURES?\b)/m;
const PASSED_SUMMARY = /(?:\b\d+ passed\b|\b\d+ passing\b|test result: ok\b|^ok\s|^PASS\b|Tests?:\s.*\bpassed\b|^OK\b)/m;

/** A test run's status: from its exit code when known, else from the runner's summary; undefined when neither tells. */
export function testRunStatus(exitCode: number | undefined, output: string): TestStatus | undefined {
  if (exitCode !== undefined) return exitCode === 0 ? 'passed' : 'failed';
  if (FAILED_SUMMARY.test(output)) return 'failed';
  if (PASSED_SUMMARY.test(output)) return 'passed';
  return undefined;
}

// Locations failures print: Python frames, Node frames, `file:line[:col]` from compilers and test
// runners, Rust's `--> file:line:col`.
const LOCATIONS = [
  /File "([^"\n]+)", line (\d+)/,
  /\bat (?:[^\n(]*\()?((?:[A-Za-z]:)?[^\s():]+\.[A-Za-z]{1,5}):(\d+)(?::\d+)?\)?/,
  /-->\s*([^\s:]+):(\d+)(?::\d+)?/,
  /(?:^|\s)((?:[A-Za-z]:)?[\w./\\-]+\.[A-Za-z]{1,5}):(\d+)(?::\d+)?(?::|\b)/m,
];

/** The first `file:line` a failure's output names, written the way a reader finds it. */
export function failureLocation(output: string): string | undefined {
  for (const pattern of LOCATIONS) {
    const match = pattern.exec(output);
    if (match?.[1] !== undefined && match[2] !== undefined) return `${match[1]}:${match[2]}`;
  }
  return undefined;
}

const TRACEBACK = /Traceback \(most recent call last\)|^\s+at .+:\d+|^panic:|thread '.*' panicked at|^Exception in thread/m;
// A jest failure's `● suite › test` line names the failing test: the best headline it prints.
const ERROR_LINE = /^\s*(?:[\w.]*(?:Error|Exception)\b.*|error(?:\[\w+\])?:.*|Error:.*|E\s{2,}.*|● .*|panic:.*|fatal:.*)$/m;

/** Whether output carries a traceback or a failure location: a non-zero exit worth an error record. */
export function looksLikeFailure(output: string): boolean {
  return TRACEBACK.test(output) || (failureLocation(output) !== undefined && ERROR_LINE.test(output));
}

/** The line that states the error (`ValueError: …`, `error[E0308]: …`), else the first non-empty line. */
export function errorHeadline(output: string): string {
  const lines = output.split('\n');
  // The last error line of a Python traceback is the exception; elsewhere the first one is.
  const isTraceback = output.includes('Traceback (most recent call last)');
  const errorLines = lines.filter((line) => ERROR_LINE.test(line));
  const chosen = (isTraceback ? errorLines[errorLines.length - 1] : errorLines[0]) ?? lines.find((line) => line.trim() !== '') ?? output;
  return chosen.trim().slice(0, 1000);
}

const FRAME_LINE = /File "[^"\n]+", line \d+|^\s+at .+:\d+|-->\s*\S+:\d+|(?:^|\s)[\w./\\-]+\.[A-Za-z]{1,5}:\d+/;
const MAX_FRAME_LINES = 30;

/**
 * The lines of a failure's output that name code locations (stack frames, `file:line` lines), at
 * most 30: the error record's stack. The whole output stays in the tool output; repeating it in
 * the error would spend the budget twice on the same text.
 */
export function frameLines(output: string): string | undefined {
  const frames = output.split('\n').filter((line) => FRAME_LINE.test(line)).slice(0, MAX_FRAME_LINES);
  return frames.length === 0 ? undefined : frames.join('\n');
}
