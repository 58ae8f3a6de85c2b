import { compareRecency } from './_recency.js';
import type { Extraction, NormalizedRecord, TaskTerms } from './_types.js';

// A task about making something pass ("the build is broken, fix it", "CI is red", "terraform plan
// fails") names no identifier, yet it is about the session's newest failure: what failed last is
// the most relevant thing the session holds. This module says when a task is such a task and how
// much each failing record bears on it.

/** Task words that say something is broken and should pass. */
const FAILURE_TASK_WORDS = new Set([
  'fix', 'fixes', 'fixing', 'broken', 'break', 'breaks', 'breaking', 'fail', 'fails', 'failing', 'failed', 'failure', 'failures',
  'error', 'errors', 'crash', 'crashes', 'crashing', 'bug', 'bugs', 'red', 'green', 'pass', 'passing', 'flaky', 'flakes', 'flaking',
  'regression', 'panic', 'panics', 'exception', 'exceptions', 'debug', 'repair', 'unbreak', 'wrong', 'incorrect', 'hangs', 'timeout',
]);

/** Each older failing record keeps this share of the newer one's value: the newest failure leads. */
const OLDER_FAILURE_DECAY = 0.6;
/** A fragment of a failing record that shows no error itself (the lines around it) keeps this share. */
const WITHOUT_EVIDENCE_SHARE = 0.3;

/** A task of more words than this besides its failure words says what it is about; fewer, and it is about whatever fails. */
const GENERIC_TASK_MAX_WORDS = 5;

export function isFailureTask(task: TaskTerms): boolean {
  return task.words.some((word) => FAILURE_TASK_WORDS.has(word));
}

/**
 * "The build is broken, fix it", "terraform plan fails", "CI is red": a task about making
 * something pass that says little else. Such a task is about the newest failures whatever they
 * say; a task that names identifiers or describes the problem is about the failures that touch it.
 */
export function isGenericFailureTask(task: TaskTerms, namesIdentifiers: boolean): boolean {
  if (namesIdentifiers || !isFailureTask(task)) return false;
  return task.words.filter((word) => !FAILURE_TASK_WORDS.has(word)).length <= GENERIC_TASK_MAX_WORDS;
}

/** Whether the record reports a failure: an error, a failed test, a run that exited non-zero or printed a failure marker. */
export function isFailingRecord(record: NormalizedRecord, facts: Extraction): boolean {
  return record.kind === 'error' || record.testStatus === 'failed' || facts.outcome === 'failure';
}

export function showsError(record: NormalizedRecord, facts: Extraction): boolean {
  return record.kind === 'error' || facts.errorSignatures.length > 0 || facts.frames.length > 0 || facts.testFailures.length > 0;
}

/**
 * How much each failing record bears on a task about making something pass: the newest failing
 * record 1, each older one OLDER_FAILURE_DECAY of the one after it. Records that do not fail are
 * absent. (Repeated runs of one command are already one record, the latest run.)
 */
export function failureRanks(failing: readonly NormalizedRecord[]): Map<string, number> {
  const newestFirst = [...new Set(failing)].sort((a, b) => compareRecency(b, a));
  return new Map(newestFirst.map((record, rank) => [record.id, OLDER_FAILURE_DECAY ** rank]));
}

/** The failing value of one fragment: its record's rank, less where the fragment itself shows no error. */
export function failingValue(recordValue: number, record: NormalizedRecord, facts: Extraction): number {
  return showsError(record, facts) ? recordValue : recordValue * WITHOUT_EVIDENCE_SHARE;
}
