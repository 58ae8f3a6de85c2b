/**
 * What a run spent, derived from its receipt alone: each turn's usage at the recorded price, each
 * failed call's announced usage, per question, per condition and per run. A usage the provider
 * did not report, or a model without a price, makes every sum it enters unknown (null), never 0.
 * `verifyReceipt` recomputes the whole block with these same functions.
 */
import { csvText, type CsvCell } from '../../csv/index.js';
import { formatUsd, sumUsd, usageUsd, type PriceRecord } from '../../pricing/index.js';
import { CONDITIONS, type Condition, type ExperimentReceipt, type FailedCallRecord, type QuestionCost, type QuestionRecord, type RunCost, type TurnRecord } from '../_types.js';

export type { QuestionCost, RunCost };

/**
 * A failed call's cost: its announced usage at the price. An HTTP error answer (4xx, 5xx) ran no
 * model and carries no usage: 0. A call that broke off without announcing any: unknown.
 */
export function failedCallUsd(failed: FailedCallRecord, price: PriceRecord | null): number | null {
  if (price === null) return null;
  if (failed.announcedUsage === null && failed.raw.status >= 400) return 0;
  return usageUsd(failed.announcedUsage, price);
}

export function questionCost(question: QuestionRecord, price: PriceRecord | null, skipTurns = 0): QuestionCost {
  const turnsUsd = question.turns.slice(skipTurns).map((turn) => usageUsd(turn.usage, price));
  const failed = question.failedCall === undefined ? undefined : failedCallUsd(question.failedCall, price);
  return {
    taskId: question.taskId,
    repetition: question.repetition ?? 1,
    condition: question.condition,
    turnsUsd,
    ...(failed === undefined ? {} : { failedCallUsd: failed }),
    usd: sumUsd(failed === undefined ? turnsUsd : [...turnsUsd, failed]),
  };
}

/**
 * Turns of a replaced record that the question re-asked on resume carried over as they were
 * (same request and response bytes, same place): paid once, counted once, in the new record.
 */
export function carriedTurns(replaced: QuestionRecord, questions: readonly QuestionRecord[]): number {
  const now = questions.find((question) => sameQuestion(question, replaced));
  if (now === undefined) return 0;
  let carried = 0;
  while (carried < replaced.turns.length && sameExchange(replaced.turns[carried], now.turns[carried])) carried += 1;
  return carried;
}

/** The same question of the run: task, repetition (1 in receipts from before repetitions) and condition. */
export function sameQuestion(one: QuestionRecord, other: QuestionRecord): boolean {
  return one.taskId === other.taskId && (one.repetition ?? 1) === (other.repetition ?? 1) && one.condition === other.condition;
}

function sameExchange(before: TurnRecord | undefined, after: TurnRecord | undefined): boolean {
  return before !== undefined && after !== undefined && before.raw.request === after.raw.request && before.raw.response === after.raw.response;
}

/** The cost block of a receipt, from its questions, the records a resume replaced, and the price. */
export function buildRunCost(receipt: Pick<ExperimentReceipt, 'questions' | 'resume'>, price: PriceRecord | null, maxUsd: number | null): RunCost {
  const questions = receipt.questions.map((question) => questionCost(question, price));
  const replaced = (receipt.resume?.replaced ?? []).map((record) => questionCost(record, price, carriedTurns(record, receipt.questions)).usd);
  const replacedUsd = sumUsd(replaced);
  const conditions = Object.fromEntries(CONDITIONS.map((condition) => [condition, sumUsd(questions.filter((cost) => cost.condition === condition).map((cost) => cost.usd))])) as Record<Condition, number | null>;
  return { price, maxUsd, questions, replacedUsd, conditions, totalUsd: sumUsd([...CONDITIONS.map((condition) => conditions[condition]), replacedUsd]) };
}

/** The report's spend section: the price used (model, figures, date, source), per condition and run, then per question. */
export function renderCostMarkdown(cost: RunCost | undefined): string[] {
  if (cost === undefined) return [];
  const lines = ['## Spend', ''];
  const price = cost.price;
  if (price === null) {
    lines.push('No price is known for this model (not in the bundled table, none in the config\'s `prices:`): every spend is unknown.', '');
  } else {
    const origin = price.from === 'table' ? 'the bundled price table' : 'the config\'s `prices:`';
    lines.push(
      `Priced from ${origin}: ${price.provider} \`${price.model}\`, USD per million tokens: input ${price.inputPerMTok}, output ${price.outputPerMTok}, cache read ${price.cacheReadPerMTok}, cache write ${price.cacheWritePerMTok}; read ${price.readOn} from ${price.source}.`,
      '',
    );
  }
  if (cost.maxUsd !== null) lines.push(`Budget (--max-usd): ${formatUsd(cost.maxUsd)}.`, '');
  lines.push('| | spend (USD) |', '|---|---:|');
  for (const condition of CONDITIONS) lines.push(`| ${condition} | ${formatUsd(cost.conditions[condition])} |`);
  if (cost.replacedUsd !== 0) lines.push(`| replaced on resume | ${formatUsd(cost.replacedUsd)} |`);
  lines.push(`| **run** | **${formatUsd(cost.totalUsd)}** |`, '');
  // The repetition column only when the run asked a question more than once.
  const repeated = cost.questions.some((question) => question.repetition > 1);
  lines.push(repeated ? '| task | repetition | condition | turns | spend (USD) |' : '| task | condition | turns | spend (USD) |', repeated ? '|---|---:|---|---:|---:|' : '|---|---|---:|---:|');
  for (const question of cost.questions) {
    lines.push(`| ${question.taskId} |${repeated ? ` ${question.repetition} |` : ''} ${question.condition} | ${question.turnsUsd.length} | ${formatUsd(question.usd)} |`);
  }
  return lines;
}

export const SPEND_CSV = 'spend.csv';

/** The Spend section as CSV: a row per question, then per condition, the replaced records (when any) and the run; USD unformatted, empty when unknown. */
export function spendCsv(cost: RunCost): string {
  const rows: CsvCell[][] = cost.questions.map((question) => ['question', question.taskId, question.repetition, question.condition, question.turnsUsd.length, question.usd]);
  for (const condition of CONDITIONS) rows.push(['condition', null, null, condition, null, cost.conditions[condition]]);
  if (cost.replacedUsd !== 0) rows.push(['replaced on resume', null, null, null, null, cost.replacedUsd]);
  rows.push(['run', null, null, null, null, cost.totalUsd]);
  return csvText(['scope', 'task', 'repetition', 'condition', 'turns', 'usd'], rows);
}
