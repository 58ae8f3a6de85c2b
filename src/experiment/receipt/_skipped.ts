/**
 * What a stopped run left out, and why, in one sentence per cause: "5 skipped after lookup-1
 * (optimized) failed with PROTOCOL: ...". Derived from the receipt's skipped records only, so a
 * report and `--json` say the same, and a receipt from before `skippedAfter` still reads (grouped
 * by its skip code).
 */
import type { Condition, ExperimentReceipt, StopCause } from '../_types.js';

export interface SkippedQuestion {
  taskId: string;
  repetition: number;
  condition: Condition;
}

export interface SkippedGroup {
  /** The question whose failure stopped the run; null when the skips name none (a refused task file, an older receipt). */
  after: StopCause | null;
  /** The skipped records' code: PRIOR_FAILURE, BUDGET_STOP, TASKS_REFUSED. */
  code: string;
  questions: SkippedQuestion[];
  /** The warm-cache probe was skipped for the same cause. */
  probe: boolean;
  /** For people: "N skipped after <task> (<condition>) failed with <CODE>: <message>". */
  sentence: string;
}

/** The longest failure message a sentence quotes whole; the receipt keeps it all. */
const MAX_QUOTED = 300;

/** One group per cause, in the order the run met them; empty when nothing was skipped. */
export function skippedGroups(receipt: Pick<ExperimentReceipt, 'questions' | 'probe'>): SkippedGroup[] {
  const groups = new Map<string, SkippedGroup>();
  const groupOf = (after: StopCause | undefined, code: string): SkippedGroup => {
    const key = after === undefined ? `code ${code}` : JSON.stringify([after.taskId, after.repetition, after.condition]);
    let group = groups.get(key);
    if (group === undefined) {
      group = { after: after ?? null, code, questions: [], probe: false, sentence: '' };
      groups.set(key, group);
    }
    return group;
  };
  const repeated = receipt.questions.some((question) => (question.repetition ?? 1) > 1);
  for (const question of receipt.questions) {
    if (question.status !== 'skipped') continue;
    const repetition = question.repetition ?? 1;
    // The question the budget stopped at is skipped itself, and heads the group it caused.
    const budgetStop = question.skippedAfter === undefined && question.failure?.code === 'BUDGET_STOP' ? { taskId: question.taskId, repetition, condition: question.condition, ...question.failure } : undefined;
    groupOf(question.skippedAfter ?? budgetStop, question.failure?.code ?? 'NOT_RUN').questions.push({ taskId: question.taskId, repetition, condition: question.condition });
  }
  const probe = receipt.probe;
  if (probe?.status === 'skipped' && probe.failure !== undefined) groupOf(probe.skippedAfter, probe.failure.code).probe = true;
  for (const group of groups.values()) group.sentence = sentenceOf(group, repeated);
  return [...groups.values()];
}

function sentenceOf(group: SkippedGroup, repeated: boolean): string {
  const count = group.questions.length;
  const what = [count > 0 ? `${count} question${count === 1 ? '' : 's'}` : '', group.probe ? 'the warm-cache probe' : ''].filter(Boolean).join(' and ');
  const { after } = group;
  if (after === null) return `${what} skipped: ${group.code}`;
  const which = `${after.taskId}${repeated ? ` #${after.repetition}` : ''} (${after.condition})`;
  const message = after.message.replace(/\s+/g, ' ').trim();
  const quoted = message.length > MAX_QUOTED ? `${message.slice(0, MAX_QUOTED)}…` : message;
  if (after.code === 'BUDGET_STOP') return `${what} skipped after the budget (--max-usd) stopped the run at ${which}: ${quoted}`;
  return `${what} skipped after ${which} failed with ${after.code}: ${quoted}`;
}
