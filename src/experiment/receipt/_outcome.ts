/**
 * What became of one question, kept apart: only "right" and "wrong" (and "no answer within
 * limits", which the same limits make a verdict on the condition) judge an answer; a provider or
 * harness failure, or a question never asked, says nothing about the answer and is never
 * counted as one.
 */
import { JUDGE_FAILURE_CODES } from './_judge.js';
import type { QuestionOutcome, QuestionRecord } from '../_types.js';

/** Stops of the model within the run's limits (max_tokens, maxTurns): no answer within limits. */
const NO_ANSWER_CODES: ReadonlySet<string> = new Set(['STOP_max_tokens', 'TURN_LIMIT']);

/** Failures of the tool-use loop that are the model's doing (the other stop reasons are STOP_<reason>). */
const WRONG_LOOP_CODES: ReadonlySet<string> = new Set(['EMPTY_TOOL_USE', 'TOOL_FAILURE']);

/** Codes only the model call fails with (DEADLINE is not among them: an MCP request has deadlines too). */
const PROVIDER_CODES: ReadonlySet<string> = new Set(['PROVIDER_ERROR', 'NO_SCRIPTED_TURN']);

/** Outcomes that are a verdict on an answer; the others leave the question without one. */
export const VERDICT_OUTCOMES: ReadonlySet<QuestionOutcome> = new Set(['right', 'wrong', 'no-answer']);

export const OUTCOME_LABELS: Readonly<Record<QuestionOutcome, string>> = {
  right: 'answered right',
  wrong: 'answered wrong',
  'no-answer': 'no answer within limits',
  'provider-failure': 'provider failure',
  'harness-failure': 'harness failure',
  'not-run': 'not run',
};

/** The verdict a failure code gives (wrong, or no answer within limits), or undefined when it is a failure of the run. */
export function verdictOfFailure(code: string): 'wrong' | 'no-answer' | undefined {
  if (NO_ANSWER_CODES.has(code)) return 'no-answer';
  if (WRONG_LOOP_CODES.has(code) || (JUDGE_FAILURE_CODES as readonly string[]).includes(code) || code.startsWith('STOP_')) return 'wrong';
  return undefined;
}

/**
 * True when a question's failure code is an outcome of the model or its answer (the run goes on),
 * false when the run's machinery failed (an input changed, the provider or a server failed) and
 * the run stopped there.
 */
export function isQuestionOutcome(code: string): boolean {
  return verdictOfFailure(code) !== undefined;
}

/**
 * The question's outcome: the one the runner recorded (it knows whether the model call or the
 * harness failed), else derived from its status and failure code (receipts from before outcomes
 * were recorded): a code only the provider gives is a provider failure, any other stop the harness's.
 */
export function outcomeOf(question: Pick<QuestionRecord, 'status' | 'failure' | 'outcome'>): QuestionOutcome {
  if (question.outcome !== undefined) return question.outcome;
  return derivedOutcome(question);
}

/** The outcome a status and failure code give; for a stop of the run, the provider's codes name it, else the harness. */
export function derivedOutcome(question: Pick<QuestionRecord, 'status' | 'failure'>): QuestionOutcome {
  if (question.status === 'passed') return 'right';
  if (question.status !== 'failed') return 'not-run';
  const code = question.failure?.code ?? '';
  return verdictOfFailure(code) ?? (PROVIDER_CODES.has(code) ? 'provider-failure' : 'harness-failure');
}
