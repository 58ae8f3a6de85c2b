/**
 * `mcpctx experiment verify`: recomputes every hash, figure, check and table of a receipt from the
 * bytes it holds (the MCP frames, the provider exchanges, the raw tool results) and lists every
 * place where the recorded value is not the recomputed one. A receipt that passes says what it
 * says because its bytes say it; the bytes themselves (that they came from a real server and a
 * real model) are the run's word, not something a file can prove.
 */
import { sha256Hex } from '../../tokens/index.js';
import { isPlainObject } from '../../json/index.js';
import { probeCallFigures, rawContentFigures } from './_model-facing.js';
import { buildReport } from './_report.js';
import { Problems, shown } from './_verify-compare.js';
import { verifyRequests } from './_verify-requests.js';
import { verifyCost, verifyReplaced } from './_verify-cost.js';
import { verifyTimings } from './_verify-timing.js';
import { verifyQuestionSet, verifyTasks } from './_verify-task-set.js';
import { recordedRepeat } from './_verify-repeat.js';
import { DEFAULT_BOOTSTRAP } from '../../stats/index.js';
import { verifyQuestion, verifyServer, type Answers, type Checked, type QuestionContext } from './_verify-question.js';
import { unplacedEvidenceNote } from '../config/index.js';
import { RECEIPT_FORMAT, type Condition, type ExperimentReceipt, type QuestionRecord, type StopCause, type Task } from '../_types.js';

export interface ReceiptVerification {
  ok: boolean;
  /** Each a sentence starting with the JSON path it is about. */
  problems: string[];
  checked: Checked;
}

/**
 * Recomputes and compares, each mismatch one problem naming the JSON path, the recorded and the
 * recomputed value:
 * - `model.systemSha256`; per server record (questions' and the probe's) `framesSha256` and
 *   `toolsSha256`;
 * - per turn: the raw request and response hashes, and content, stop reasons, usage and model
 *   replayed from the raw response by the provider's own assembly; its tool_use blocks and its
 *   tool call records pair 1:1 in order (id, name, input);
 * - per tool call: raw content bytes and hash; the model-facing text re-derived from the raw
 *   content with the condition's dropResultKeys (not for a call that failed before a result, or
 *   whose content gave the model nothing: the runner's in-band text stands); model-facing bytes,
 *   hash and tokens; the received frame answering its request carries that raw content;
 * - per question: totals; finalText against the last end_turn turn; checks judged again; a
 *   passed question, or one failed by the judge, gets the same verdict from `judge` (runtime
 *   failures such as TOOL_FAILURE or STOP_max_tokens stand as recorded);
 *   the recorded outcome is the one its status and failure code give; a failed call's hashes and
 *   the usage its partial answer announced, from its recorded bytes;
 * - probe calls: raw bytes and model-facing tokens, and a frame of the probe's server carries each;
 * - validation: an ok aggregate's independentCount is its expected answer, an ok later_page's
 *   evidence positions are those of its evidence ids in matchingIds, one past the first page, or,
 *   when the task names no pageField/pageValue, its `notChecked` says the position was not checked;
 * - completeness: each turn's recorded request body against the one the provider's own request
 *   code builds from the run settings (model, system, max tokens, temperature), the question's
 *   offered tools (those the condition's config names) and every earlier turn with the tool
 *   results sent, so a dropped turn or a rewritten prompt, tool, question or limit shows; the
 *   tasks against the tasks file's recorded text (its sha256, size and count); the questions as
 *   every task in both conditions `config.repeat` times, in the runner's order (a missing text is
 *   one problem);
 * - the report equals `buildReport(tasks, questions)` with the recorded repeat and the run's fixed
 *   bootstrap seed and resamples (so rates, intervals, the paired test and the reduction's
 *   interval are drawn again, and a receipt cannot pick a seed); a completed run has one;
 * - format v2: a question that ran has its timings, and a run that reached its report its spend;
 * - the spend (`cost`): every figure is the recorded usage at the recorded price, the price is the
 *   run's model's (a bundled one, the table's figures); records a resume replaced are checked as
 *   questions are (`_verify-cost`);
 * - timings (_verify-timing.ts): retried attempts' hashes and announced usage from their bytes,
 *   attempts = retries + 1, elapsed ms from the recorded times, and every recorded time in the
 *   order the run passed it (attempts, tool calls, turns inside their question, questions in run order);
 * - skips: a skipped question's (or the probe's) `skippedAfter` names an earlier question that
 *   failed with that code and message;
 * - the run ended: a receipt still marked `starting` or `running` (a killed run's) is a problem.
 * Never throws: input that is not a receipt is one problem.
 */
export function verifyReceipt(receipt: unknown): ReceiptVerification {
  const problems = new Problems();
  const checked: Checked = { questions: 0, turns: 0, toolCalls: 0, frames: 0 };
  const done = (): ReceiptVerification => ({ ok: problems.list.length === 0, problems: problems.list, checked });
  if (!isPlainObject(receipt)) {
    problems.add(`the receipt is not a JSON object (got ${Array.isArray(receipt) ? 'an array' : receipt === null ? 'null' : typeof receipt})`);
    return done();
  }
  if (receipt.format !== RECEIPT_FORMAT) {
    const earlier = receipt.format === 'mcpctx-experiment-receipt/v1' ? ': written by an earlier mcpctx, without the tasks text, timings and spend this version re-derives; run the experiment again' : '';
    problems.add(`format: recorded ${shown(receipt.format)}, expected ${JSON.stringify(RECEIPT_FORMAT)}${earlier}`);
    return done();
  }
  const run = receipt as unknown as ExperimentReceipt;
  if (run.model !== undefined) problems.guard('model', () => problems.compare('model.systemSha256', run.model?.systemSha256, sha256Hex(run.model?.system as string)));
  const tasks: Task[] = Array.isArray(run.tasks) ? run.tasks : [];
  const questions = Array.isArray(run.questions) ? run.questions : [];
  if (!Array.isArray(run.questions)) problems.add(`questions: recorded ${shown(run.questions)}, expected an array`);
  if (run.model === undefined && questions.some((question) => Array.isArray(question.turns) && question.turns.length > 0)) {
    problems.add('model: absent, so no turn can be replayed');
  }
  const context: QuestionContext = {
    provider: run.model?.provider,
    dropResultKeys: (condition) => dropResultKeysOf(run, condition),
    tasks,
    paths: run.config?.paths,
    problems,
    checked,
  };
  questions.forEach((question, index) => problems.guard(`questions[${index}]`, () => verifyQuestion(question, `questions[${index}]`, context)));
  if (run.tasks !== undefined) problems.guard('tasks', () => verifyTasks(run, tasks, problems));
  // A killed run's questions end where it stopped: that is its own problem, below.
  const finished = run.status !== 'starting' && run.status !== 'running';
  const repeat = recordedRepeat(run, problems);
  if (run.tasks !== undefined && finished) problems.guard('questions', () => verifyQuestionSet(tasks, questions, problems, repeat));
  const model = run.model;
  if (model !== undefined) {
    questions.forEach((question, index) => problems.guard(`questions[${index}]`, () => verifyRequests(question, `questions[${index}]`, model.provider, { ...model, offered: run.config?.conditions?.[question.condition]?.tools }, problems)));
  }
  problems.guard('questions', () => verifyTimings(questions, run.model?.provider, problems));
  problems.guard('questions', () => verifySkips(run, questions, problems));
  if (run.probe !== undefined) problems.guard('probe', () => verifyProbe(run, context));
  problems.guard('resume', () => verifyReplaced(run, context, problems));
  if (run.cost !== undefined) problems.guard('cost', () => verifyCost(run, problems));
  else if (run.report !== undefined) problems.add('cost: absent, but the run reached its report: every run that asked questions records its spend (unknown when unpriced)');
  if (run.validation !== undefined) problems.guard('validation', () => verifyValidation(run, tasks, problems));
  if (run.report !== undefined) {
    // The run always draws with the default seed and resamples: a receipt cannot choose its own.
    problems.guard('report', () => problems.compare('report', run.report, buildReport(tasks, questions, { repeat, bootstrap: DEFAULT_BOOTSTRAP })));
  }
  else if (run.status === 'completed') problems.add('report: absent, but the run is completed');
  if (run.status === 'starting' || run.status === 'running') {
    // What it holds may recompute, but a run stopped before its end (killed, crashed) is not a result to publish.
    problems.add(`status: recorded ${JSON.stringify(run.status)}: the run stopped before its end (killed or crashed), so its ${questions.length} recorded question(s) are not a finished run`);
  }
  return done();
}

function dropResultKeysOf(run: ExperimentReceipt, condition: Condition): readonly string[] | undefined {
  const keys: unknown = run.config?.conditions?.[condition]?.dropResultKeys;
  return Array.isArray(keys) && keys.every((key) => typeof key === 'string') ? (keys as string[]) : undefined;
}

function verifyProbe(run: ExperimentReceipt, context: QuestionContext): void {
  const probe = run.probe;
  if (probe === undefined) return;
  const { problems } = context;
  const answers: Answers | undefined = probe.server === undefined ? undefined : verifyServer(probe.server, 'probe.server', context);
  const drop = context.dropResultKeys(probe.condition);
  for (const label of ['first', 'repeat'] as const) {
    const call = probe[label];
    if (call === undefined) continue;
    const path = `probe.${label}`;
    problems.compare(`${path}.rawContentBytes`, call.rawContentBytes, rawContentFigures(call.rawContent).bytes);
    const figures = drop === undefined ? undefined : probeCallFigures(call.rawContent, drop);
    if (figures === undefined) problems.add(`${path}.modelFacingTokens: cannot be re-derived: config.conditions.${probe.condition}.dropResultKeys is absent`);
    else problems.compare(`${path}.modelFacingTokens`, call.modelFacingTokens, figures.modelFacingTokens);
    if (answers !== undefined) {
      const content = JSON.stringify(call.rawContent);
      const carried = [...answers.values()].some((answer) => isPlainObject(answer.result) && JSON.stringify(answer.result.content) === content);
      if (!carried) problems.add(`${path}.rawContent: no received frame of probe.server carries ${shown(call.rawContent)}`);
    }
  }
}

/**
 * Each `skippedAfter` (a question's, the probe's) names a question recorded before it that
 * failed with that code and message: a skip cannot blame a question that did not stop the run.
 */
function verifySkips(run: ExperimentReceipt, questions: readonly QuestionRecord[], problems: Problems): void {
  const check = (cause: StopCause | undefined, path: string, before: number): void => {
    if (cause === undefined) return;
    const blamed = questions
      .slice(0, before)
      .find((question) => question.taskId === cause.taskId && (question.repetition ?? 1) === cause.repetition && question.condition === cause.condition && question.status !== 'passed');
    if (blamed === undefined) problems.add(`${path}.skippedAfter: no question before it is ${shown(cause.taskId)} #${cause.repetition} (${cause.condition}) stopped by a failure`);
    else {
      problems.compare(`${path}.skippedAfter.code`, cause.code, blamed.failure?.code);
      problems.compare(`${path}.skippedAfter.message`, cause.message, blamed.failure?.message);
    }
  };
  questions.forEach((question, index) => check(question.skippedAfter, `questions[${index}]`, index));
  check(run.probe?.skippedAfter, 'probe', questions.length);
}

function verifyValidation(run: ExperimentReceipt, tasks: readonly Task[], problems: Problems): void {
  const pageSize = run.config?.pageSize;
  (run.validation ?? []).forEach((validation, index) => {
    const path = `validation[${index}]`;
    problems.guard(path, () => {
      if (!validation.ok) return;
      const task = tasks.find((candidate) => candidate.id === validation.taskId);
      if (task === undefined) {
        problems.add(`${path}.taskId: no task ${shown(validation.taskId)} in tasks`);
        return;
      }
      if (task.kind === 'aggregate') {
        if (validation.independentCount !== Number(task.expectedAnswer)) {
          problems.add(`${path}.independentCount: recorded ${shown(validation.independentCount)}, but the task's expectedAnswer is ${shown(task.expectedAnswer)}`);
        }
      } else if (task.kind === 'later_page') {
        if (task.pageField === undefined && task.pageValue === undefined) {
          // No page query: the position cannot have been checked, and the receipt must say so.
          const note = pageSize === undefined ? undefined : unplacedEvidenceNote(pageSize);
          problems.compare(`${path}.notChecked`, validation.notChecked, note === undefined ? undefined : [note]);
          if (validation.evidencePositions !== undefined) problems.add(`${path}.evidencePositions: recorded ${shown(validation.evidencePositions)}, but the task names no pageField/pageValue to place its evidence by`);
          return;
        }
        const matching = validation.matchingIds ?? [];
        problems.compare(`${path}.evidencePositions`, validation.evidencePositions, task.evidenceIds.map((id) => matching.indexOf(id)));
        if (pageSize === undefined) problems.add(`${path}: cannot be checked: config.pageSize is absent`);
        else if (!(validation.evidencePositions ?? []).some((position) => position >= pageSize)) {
          problems.add(`${path}.evidencePositions: recorded ${shown(validation.evidencePositions)}, but an ok later_page task needs evidence at position ${pageSize} or later (pageSize ${pageSize})`);
        }
      }
    });
  });
}
