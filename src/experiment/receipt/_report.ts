/**
 * The experiment's report, derived from the receipt's question records only (so `verifyReceipt`
 * can rebuild it and compare), and its markdown rendering for people. Tokens are compared only
 * for tasks both conditions answered right: a cheaper wrong answer is not a saving.
 */
import type {
  Condition,
  ConditionRow,
  ExperimentReceipt,
  ExperimentReport,
  QuestionRecord,
  QuestionTotals,
  Reduction,
  ReportRow,
  Task,
  TurnRecord,
  Verdict,
} from '../_types.js';
import { INTERVAL_TOTALS } from '../_types.js';
import type { BootstrapSettings } from '../../stats/index.js';
import { OUTCOME_LABELS, VERDICT_OUTCOMES, outcomeOf } from './_outcome.js';
import { repetitionStatistics } from './_statistics.js';
import { statisticsSection } from './_statistics-markdown.js';
import { renderCostMarkdown } from './_cost.js';
import { conditionTime, timingSection } from './_timing.js';
import { skippedGroups } from './_skipped.js';

type TotalKey = keyof ExperimentReport['totals'];
const TOTAL_KEYS: readonly TotalKey[] = ['contextTokens', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'turns', 'rawToolBytes', 'modelFacingBytes', 'modelFacingTokens'];

/**
 * One question's sums over its turns: the context it read (input + cache read + cache write
 * tokens: a cache read is cheaper but is still context), output tokens, turns, and over every
 * turn's tool calls, the calls, raw result bytes, and model-facing bytes and o200k tokens. The
 * token sums are null (unknown) as soon as one turn's usage is unknown.
 */
export function questionTotals(turns: TurnRecord[]): QuestionTotals {
  const totals: QuestionTotals = {
    contextTokens: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    turns: turns.length,
    toolCalls: 0,
    rawToolBytes: 0,
    modelFacingBytes: 0,
    modelFacingTokens: 0,
  };
  for (const turn of turns) {
    const usage = turn.usage;
    totals.contextTokens = plus(totals.contextTokens, usage === null ? null : usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens);
    totals.inputTokens = plus(totals.inputTokens, usage?.inputTokens ?? null);
    totals.outputTokens = plus(totals.outputTokens, usage?.outputTokens ?? null);
    totals.cacheReadTokens = plus(totals.cacheReadTokens, usage?.cacheReadTokens ?? null);
    totals.cacheWriteTokens = plus(totals.cacheWriteTokens, usage?.cacheWriteTokens ?? null);
    for (const call of turn.tools) {
      totals.toolCalls += 1;
      totals.rawToolBytes += call.rawContentBytes;
      totals.modelFacingBytes += call.modelFacingBytes;
      totals.modelFacingTokens += call.modelFacingTokens;
    }
  }
  return totals;
}

/** A sum with an unknown term is unknown. */
function plus(sum: number | null, term: number | null): number | null {
  return sum === null || term === null ? null : sum + term;
}

export interface ReportOptions {
  /** Repetitions per task and condition (default 1): a row per task and repetition. */
  repeat?: number;
  /** How the reduction's bootstrap interval is drawn (default DEFAULT_BOOTSTRAP). */
  bootstrap?: BootstrapSettings;
}

/**
 * One row per task and repetition, in task order then repetition, with each condition's status, outcome and totals and a
 * verdict from the two outcomes when both are verdicts (right, wrong, no answer within limits):
 * both right → compared; only the baseline right → cut-lost-answer (the optimized condition
 * answered wrong, or gave no answer within the limits the baseline answered within: seed 000
 * fails a question at max_tokens or its turn limit like a wrong answer, and both conditions share
 * those limits); only the optimized right → baseline-failed; neither → both-failed. A provider or
 * harness failure, or a question not run, on either side → not-compared, with the first such side
 * as the reason: it says nothing about the answer. Totals sum the compared rows only; a sum is
 * null when one of its terms is unknown; a reduction is null when nothing was compared, a sum is
 * unknown or the baseline sum is 0. `allPassed` needs at least one task, every row compared.
 * `statistics` adds the rates, the paired test and the reduction's interval over the rows.
 */
export function buildReport(tasks: Task[], questions: QuestionRecord[], options: ReportOptions = {}): ExperimentReport {
  const repeat = options.repeat ?? 1;
  const repetitions = Array.from({ length: repeat }, (_, index) => index + 1);
  const rows = tasks.flatMap((task) =>
    repetitions.map((repetition): ReportRow => {
      const baseline = conditionRow(questions, task.id, repetition, 'baseline');
      const optimized = conditionRow(questions, task.id, repetition, 'optimized');
      const verdict = verdictOf(baseline, optimized);
      const row: ReportRow = { taskId: task.id, repetition, kind: task.kind, baseline, optimized, verdict };
      if (verdict === 'not-compared') row.notCompared = notComparedReason(baseline, optimized);
      return row;
    }),
  );
  const compared = rows.filter((row) => row.verdict === 'compared');
  const totals = Object.fromEntries(
    TOTAL_KEYS.map((key): [TotalKey, Reduction] => {
      const baseline = compared.reduce<number | null>((sum, row) => plus(sum, row.baseline.totals[key]), 0);
      const optimized = compared.reduce<number | null>((sum, row) => plus(sum, row.optimized.totals[key]), 0);
      const known = baseline !== null && optimized !== null;
      return [key, { baseline, optimized, reduction: compared.length === 0 || !known || baseline === 0 ? null : (baseline - optimized) / baseline }];
    }),
  ) as ExperimentReport['totals'];
  return {
    compared: compared.length,
    tasks: tasks.length,
    rows,
    lostAnswers: [...new Set(rows.filter((row) => row.verdict === 'cut-lost-answer').map((row) => row.taskId))],
    notCompared: rows.filter((row) => row.verdict === 'not-compared').length,
    totals,
    allPassed: rows.length > 0 && compared.length === rows.length,
    statistics: repetitionStatistics(rows, repeat, options.bootstrap),
  };
}

function conditionRow(questions: readonly QuestionRecord[], taskId: string, repetition: number, condition: Condition): ConditionRow {
  // A record from before repetitions is the first (and only) one.
  const question = questions.find((candidate) => candidate.taskId === taskId && (candidate.repetition ?? 1) === repetition && candidate.condition === condition);
  if (question === undefined) {
    const which = repetition === 1 ? '' : ` (repetition ${repetition})`;
    return { status: 'skipped', outcome: 'not-run', failure: { code: 'NOT_RUN', message: `No ${condition} question was recorded for task ${taskId}${which}.` }, totals: questionTotals([]) };
  }
  const time = question.timing === undefined ? {} : { time: conditionTime(question) };
  return { status: question.status, outcome: outcomeOf(question), ...(question.failure === undefined ? {} : { failure: question.failure }), totals: question.totals, ...time };
}

function verdictOf(baseline: ConditionRow, optimized: ConditionRow): Verdict {
  if (!VERDICT_OUTCOMES.has(baseline.outcome) || !VERDICT_OUTCOMES.has(optimized.outcome)) return 'not-compared';
  if (baseline.outcome === 'right') return optimized.outcome === 'right' ? 'compared' : 'cut-lost-answer';
  return optimized.outcome === 'right' ? 'baseline-failed' : 'both-failed';
}

function notComparedReason(baseline: ConditionRow, optimized: ConditionRow): NonNullable<ReportRow['notCompared']> {
  const [condition, side]: [Condition, ConditionRow] = VERDICT_OUTCOMES.has(baseline.outcome) ? ['optimized', optimized] : ['baseline', baseline];
  const failure = side.failure ?? { code: side.status.toUpperCase(), message: `the ${condition} question is still marked ${side.status}` };
  return { condition, outcome: side.outcome, code: failure.code, message: failure.message };
}

// ---- markdown -------------------------------------------------------------------------------------

const TOTAL_LABELS: Readonly<Record<TotalKey, string>> = {
  contextTokens: 'context tokens (input + cache)',
  inputTokens: 'input tokens',
  outputTokens: 'output tokens',
  cacheReadTokens: 'cache read tokens',
  cacheWriteTokens: 'cache write tokens',
  turns: 'turns',
  rawToolBytes: 'raw tool result bytes',
  modelFacingBytes: 'model-facing bytes',
  modelFacingTokens: 'model-facing tokens (o200k)',
};

/**
 * The report for people: the run, one table row per task and condition, the totals over the
 * compared tasks with their reduction, every lost answer, the warm-cache probe, and every failure
 * and skipped question (never dropped). Reads the receipt's report; says so when there is none.
 */
export function renderReportMarkdown(receipt: ExperimentReceipt): string {
  const lines: string[] = ['# Experiment report', ''];
  const model = receipt.model === undefined ? 'no model recorded' : `${receipt.model.provider} \`${receipt.model.model}\`, max_tokens ${number(receipt.model.maxTokens)}`;
  lines.push(`Run ${receipt.status}, started ${receipt.startedAt}, updated ${receipt.updatedAt}; ${model}.`, '');
  const report = receipt.report;
  if (report === undefined) {
    lines.push(`No report: the run is ${receipt.status} and did not reach its report stage.`, '');
  } else {
    lines.push(...taskTable(report), '', ...totalsSection(report));
    // Receipts from before repetitions have no statistics.
    if (report.statistics !== undefined) lines.push('', ...statisticsSection(report.statistics));
    if (report.lostAnswers.length > 0) {
      lines.push('', '## Lost answers', '');
      for (const row of report.rows.filter((candidate) => candidate.verdict === 'cut-lost-answer')) {
        lines.push(`- the cut lost the answer to ${rowLabel(report, row)}: ${OUTCOME_LABELS[row.optimized.outcome]}: ${oneLine(row.optimized.failure?.message ?? 'the optimized condition did not pass')}`);
      }
    }
    if (report.notCompared > 0) lines.push('', ...notComparedSection(report));
    lines.push('', ...timingSection(report));
  }
  lines.push('', ...renderCostMarkdown(receipt.cost));
  lines.push('', ...probeSection(receipt), '', ...notCheckedSection(receipt), '', ...problemsSection(receipt));
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

function taskTable(report: ExperimentReport): string[] {
  const lines = [
    '## Tasks',
    '',
    '| task | kind | condition | outcome | context tokens | output tokens | turns | raw tool bytes | model-facing tokens | verdict |',
    '|---|---|---|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of report.rows) {
    for (const condition of ['baseline', 'optimized'] as const) {
      const side = row[condition];
      const status = side.failure === undefined ? OUTCOME_LABELS[side.outcome] : `${OUTCOME_LABELS[side.outcome]} (${side.failure.code})`;
      const { contextTokens, outputTokens, turns, rawToolBytes, modelFacingTokens } = side.totals;
      lines.push(
        `| ${cell(rowLabel(report, row))} | ${row.kind} | ${condition} | ${cell(status)} | ${number(contextTokens)} | ${number(outputTokens)} | ${number(turns)} | ${number(rawToolBytes)} | ${number(modelFacingTokens)} | ${row.verdict} |`,
      );
    }
  }
  return lines;
}

/**
 * How many tasks have no verdict and why, by outcome, then each task with its reason: a provider
 * or harness failure is not an answer, so these tasks are neither lost nor compared.
 */
function notComparedSection(report: ExperimentReport): string[] {
  const rows = report.rows.filter((row) => row.notCompared !== undefined);
  const byOutcome = new Map<string, number>();
  for (const row of rows) {
    const label = OUTCOME_LABELS[row.notCompared?.outcome ?? 'not-run'];
    byOutcome.set(label, (byOutcome.get(label) ?? 0) + 1);
  }
  const counts = [...byOutcome].map(([label, count]) => `${number(count)} ${label}`).join(', ');
  const lines = [
    '## Not compared',
    '',
    `${number(report.notCompared)} of ${number(report.rows.length)} ${rowsWord(report)} were not compared (${counts}): a provider or harness failure, or a question not run, is no verdict on an answer, so these tasks are neither compared nor lost answers.`,
    '',
  ];
  for (const row of rows) {
    const reason = row.notCompared;
    if (reason === undefined) continue;
    lines.push(`- ${rowLabel(report, row)}: ${OUTCOME_LABELS[reason.outcome]} on the ${reason.condition} run: ${reason.code}: ${oneLine(reason.message)}`);
  }
  return lines;
}

function totalsSection(report: ExperimentReport): string[] {
  const lines = ['## Totals', ''];
  if (report.compared === 0) {
    lines.push(`No task was answered right in both conditions (0 of ${number(report.rows.length)} ${rowsWord(report)}), so no tokens are compared.`);
    return lines;
  }
  lines.push(
    `Over the ${number(report.compared)} of ${number(report.rows.length)} ${rowsWord(report)} answered right in both conditions (n = ${number(report.compared)}):`,
    '',
    '| measure | baseline | optimized | reduction | 95% bootstrap interval |',
    '|---|---:|---:|---:|---|',
  );
  for (const key of TOTAL_KEYS) {
    const total = report.totals[key];
    lines.push(`| ${TOTAL_LABELS[key]} | ${number(total.baseline)} | ${number(total.optimized)} | ${reductionText(total)} | ${intervalText(report, key)} |`);
  }
  lines.push('', 'Reduction is (baseline − optimized) / baseline; a negative one means the optimized condition cost more. The intervals resample tasks with replacement, each with its repetitions (see Rates and intervals).');
  if (TOTAL_KEYS.some((key) => report.totals[key].baseline === null || report.totals[key].optimized === null)) {
    lines.push('', 'A token figure is unknown when the provider reported no usage for a turn it sums (see the turns whose usage is null in receipt.json): it is never counted as 0.');
  }
  return lines;
}

/** A token total's bootstrap interval, as percentages; blank for a total that has none. */
function intervalText(report: ExperimentReport, key: TotalKey): string {
  const measure = INTERVAL_TOTALS.find((total) => total === key);
  if (measure === undefined) return '';
  const interval = report.statistics[measure];
  if (interval.low === null || interval.high === null) return 'n/a';
  const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;
  return `${percent(interval.low)} to ${percent(interval.high)}`;
}

function probeSection(receipt: ExperimentReceipt): string[] {
  const probe = receipt.probe;
  const lines = ['## Warm-cache probe (excluded from totals)', ''];
  if (probe === undefined) return [...lines, 'No probe was recorded.'];
  lines.push(`${probe.status}: \`${probe.tool}\` ${cell(JSON.stringify(probe.arguments))} twice on one fresh ${probe.condition} server. ${oneLine(probe.note)}`);
  for (const [label, call] of [['first', probe.first], ['repeat', probe.repeat]] as const) {
    if (call !== undefined) {
      lines.push(`- ${label}: cache ${call.cache ?? 'not reported'}, ${number(call.rawContentBytes)} raw bytes, ${number(call.modelFacingTokens)} model-facing tokens`);
    }
  }
  if (probe.failure !== undefined) lines.push(`- failure: ${probe.failure.code}: ${oneLine(probe.failure.message)}`);
  return lines;
}

/** What validation could not check (a later_page task without a page query), per task; nothing when it checked everything. */
export function notCheckedOf(receipt: Pick<ExperimentReceipt, 'validation'>): { taskId: string; note: string }[] {
  return (receipt.validation ?? []).flatMap((validation) => (validation.notChecked ?? []).map((note) => ({ taskId: validation.taskId, note })));
}

function notCheckedSection(receipt: ExperimentReceipt): string[] {
  const notes = notCheckedOf(receipt);
  if (notes.length === 0) return [];
  return ['## Not checked before the run', '', ...notes.map(({ taskId, note }) => `- ${taskId}: ${oneLine(note)}`)];
}

function problemsSection(receipt: ExperimentReceipt): string[] {
  const lines = ['## Failures and skipped questions', ''];
  const listed: string[] = skippedGroups(receipt).map((group) => `- ${group.sentence}`);
  for (const question of receipt.questions) {
    if (question.status === 'passed') continue;
    const why = question.failure === undefined ? 'no failure recorded' : `${question.failure.code}: ${oneLine(question.failure.message)}`;
    const which = question.repetition === undefined || receipt.report === undefined || repeatOf(receipt.report) === 1 ? question.taskId : `${question.taskId} #${question.repetition}`;
    listed.push(`- ${which} (${question.condition}) ${question.status}: ${why}`);
  }
  for (const row of receipt.report?.rows ?? []) {
    for (const condition of ['baseline', 'optimized'] as const) {
      const failure = row[condition].failure;
      if (failure?.code === 'NOT_RUN' && receipt.report !== undefined) listed.push(`- ${rowLabel(receipt.report, row)} (${condition}) skipped: ${oneLine(failure.message)}`);
    }
  }
  for (const stage of receipt.stages) {
    if (stage.error !== undefined) listed.push(`- stage ${stage.stage} ${stage.status}: ${stage.error.code}: ${oneLine(stage.error.message)}`);
  }
  for (const error of receipt.errors) listed.push(`- error in ${error.stage} at ${error.at}: ${error.code}: ${oneLine(error.message)}`);
  return listed.length === 0 ? [...lines, 'None.'] : [...lines, ...listed];
}

function repeatOf(report: ExperimentReport): number {
  return report.statistics?.repeat ?? 1;
}

/** A row is a task, or with repetitions a task's repetition ("lookup-author #2"). */
function rowLabel(report: ExperimentReport, row: ReportRow): string {
  return repeatOf(report) === 1 ? row.taskId : `${row.taskId} #${row.repetition}`;
}

function rowsWord(report: ExperimentReport): string {
  return repeatOf(report) === 1 ? 'tasks' : `task repetitions (${number(report.tasks)} tasks × ${number(repeatOf(report))})`;
}

/** null is a figure the provider did not report. */
function number(value: number | null): string {
  return value === null ? 'unknown' : value.toLocaleString('en-US');
}

/** A reduction is n/a when nothing was compared, unknown when a sum it needs is unknown. */
function reductionText(total: Reduction): string {
  if (total.reduction === null && (total.baseline === null || total.optimized === null)) return 'unknown';
  return percent(total.reduction);
}

function percent(fraction: number | null): string {
  return fraction === null ? 'n/a' : `${(fraction * 100).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}%`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cell(text: string): string {
  return oneLine(text).replaceAll('|', '\\|');
}
