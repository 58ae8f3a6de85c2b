/**
 * The report's tables as CSV files beside report.md: `tasks.csv` (one row per task and condition),
 * `totals.csv` (the sums over the compared tasks, written only when a task was compared, as
 * report.md prints that table only then) and `time.csv` (the wall-clock table, in ms, when a
 * question recorded its time) and `rates.csv` (each condition's rate of right answers with its 95%
 * Wilson interval, when the report has its statistics). A row of tasks.csv and time.csv is a task's
 * repetition (1 without --repeat). Figures are the receipt's, unformatted; an empty cell is a figure
 * that is unknown (a turn without usage, a time not recorded) or a reduction that does not apply.
 */
import { csvText, type CsvCell } from '../../csv/index.js';
import { INTERVAL_TOTALS, type ExperimentReceipt, type ExperimentReport, type RepetitionStatistics } from '../_types.js';
import { SPEND_CSV, spendCsv } from './_cost.js';

export const TASKS_CSV = 'tasks.csv';
export const TOTALS_CSV = 'totals.csv';
export const TIME_CSV = 'time.csv';
export const RATES_CSV = 'rates.csv';

const TASK_HEADER = ['task', 'repetition', 'kind', 'condition', 'outcome', 'failure', 'context_tokens', 'output_tokens', 'turns', 'raw_tool_bytes', 'model_facing_tokens', 'verdict'];
const TOTALS_HEADER = ['measure', 'baseline', 'optimized', 'reduction', 'ci95_low', 'ci95_high'];
const TIME_HEADER = ['task', 'repetition', 'condition', 'elapsed_ms', 'model_ms', 'tools_ms'];

/** Each CSV file a receipt's report.md has a table for, by name; null for a table it does not print. */
export function experimentCsvFiles(receipt: ExperimentReceipt): Map<string, string | null> {
  const report = receipt.report;
  return new Map([
    [TASKS_CSV, report === undefined ? null : tasksCsv(report)],
    [TOTALS_CSV, report === undefined || report.compared === 0 ? null : totalsCsv(report)],
    [TIME_CSV, report === undefined ? null : timeCsv(report)],
    [RATES_CSV, report?.statistics === undefined ? null : ratesCsv(report.statistics)],
    [SPEND_CSV, receipt.cost === undefined ? null : spendCsv(receipt.cost)],
  ]);
}

function tasksCsv(report: ExperimentReport): string {
  const rows: CsvCell[][] = report.rows.flatMap((row) =>
    (['baseline', 'optimized'] as const).map((condition) => {
      const side = row[condition];
      const { contextTokens, outputTokens, turns, rawToolBytes, modelFacingTokens } = side.totals;
      return [row.taskId, row.repetition, row.kind, condition, side.outcome, side.failure?.code ?? null, contextTokens, outputTokens, turns, rawToolBytes, modelFacingTokens, row.verdict];
    }),
  );
  return csvText(TASK_HEADER, rows);
}

/** The rows report.md's wall-clock table has (the conditions that recorded a time); null when it has none. */
function timeCsv(report: ExperimentReport): string | null {
  const rows = report.rows.flatMap((row) =>
    (['baseline', 'optimized'] as const).flatMap((condition): CsvCell[][] => {
      const time = row[condition].time;
      return time === undefined ? [] : [[row.taskId, row.repetition, condition, time.elapsedMs, time.modelMs, time.toolMs]];
    }),
  );
  return rows.length === 0 ? null : csvText(TIME_HEADER, rows);
}

function ratesCsv(statistics: RepetitionStatistics): string {
  const rows = (['baseline', 'optimized'] as const).map((condition): CsvCell[] => {
    const rate = statistics.rates[condition];
    return [condition, rate.right, rate.verdicts, rate.rate, rate.low, rate.high, rate.withoutVerdict];
  });
  return csvText(['condition', 'right', 'verdicts', 'rate', 'ci95_low', 'ci95_high', 'without_verdict'], rows);
}

function totalsCsv(report: ExperimentReport): string {
  const rows = Object.entries(report.totals).map(([measure, total]): CsvCell[] => {
    const withInterval = INTERVAL_TOTALS.find((key) => key === measure);
    const interval = withInterval === undefined ? undefined : report.statistics[withInterval];
    return [measure, total.baseline, total.optimized, total.reduction, interval?.low ?? null, interval?.high ?? null];
  });
  return csvText(TOTALS_HEADER, rows);
}
