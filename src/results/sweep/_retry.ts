import { DEFAULT_TIMEOUT_MS, type MeasureOptions, type Measurement } from '../../measure/index.js';
import { printableText } from '../../text/index.js';
import { MAX_BUDGET_MS } from '../../mcp/index.js';

/** How one entry was measured: the record kept and every budget tried, in order. */
export interface RetriedMeasurement {
  measurement: Measurement;
  /** One budget per measurement made: one entry when there was no retry. */
  budgetsMs: number[];
}

export type MeasureFunction = (options: MeasureOptions) => Promise<Measurement>;

/**
 * Measures an entry, retrying what a busy machine can cause: a `startup-failure` once more at the
 * same budget, a `timeout` once with the budget doubled (never past MAX_BUDGET_MS). A
 * `protocol-mismatch`, `protocol-limit` or `redirect-refused` is the server's answer and is never retried; nor is any other status. The
 * record kept is the retry's, and its note starts by saying what the first attempt gave.
 */
export async function measureWithRetries(options: MeasureOptions, measure: MeasureFunction): Promise<RetriedMeasurement> {
  const budget = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const first = await measure({ ...options, timeoutMs: budget });
  if (first.status !== 'startup-failure' && first.status !== 'timeout') return { measurement: first, budgetsMs: [budget] };
  const retryBudget = first.status === 'timeout' ? Math.min(budget * 2, MAX_BUDGET_MS) : budget;
  const second = await measure({ ...options, timeoutMs: retryBudget });
  const said = retryNote(first, second, budget, retryBudget);
  return {
    measurement: { ...second, note: printableText(second.note === '' ? said : `${said}; ${second.note}`, 'note') },
    budgetsMs: [budget, retryBudget],
  };
}

function retryNote(first: Measurement, second: Measurement, budget: number, retryBudget: number): string {
  const ms = (value: number): string => `${value.toLocaleString('en-US')} ms`;
  if (first.status === 'timeout') {
    const how =
      retryBudget === budget * 2
        ? `with a doubled budget of ${ms(retryBudget)}`
        : retryBudget > budget
          ? `with the budget raised to ${ms(retryBudget)}, the most allowed`
          : `at the same budget of ${ms(retryBudget)}, the most allowed`;
    if (second.status === 'timeout') {
      return `timeout at ${ms(budget)} and again on the retry at ${ms(retryBudget)}; widest budget tried ${ms(retryBudget)}`;
    }
    return `${second.status} on the retry ${how} (first attempt: timeout at ${ms(budget)})`;
  }
  // A start failure: the first note says why, bounded so the retry's own note still fits.
  const why = first.note.length > 300 ? `${first.note.slice(0, 300)}…` : first.note;
  if (second.status === 'startup-failure') {
    return `startup-failure on the first attempt and again on the retry at the same budget of ${ms(budget)}`;
  }
  return `${second.status} on the retry at the same budget of ${ms(budget)} (first attempt: startup-failure: ${why})`;
}
