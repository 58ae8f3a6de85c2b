// The three strategies the optimizer benchmark compares on every scenario:
//   A raw: every record, in input order, each under a source tag;
//   B exact dedupe (keep the latest copy), then the head of A's rendering cut to the budget;
//   C the context optimizer.
import { ContextOptimizer, normalizeRecords } from '../../src/optimizer/index.js';
import { compareRecency } from '../../src/optimizer/_recency.js';
import type { ContextResult, NormalizedRecord } from '../../src/optimizer/_types.js';
import { countTokens } from '../../src/tokens/index.js';
import type { BenchScenario } from './_scenarios.js';

export type StrategyName = 'A' | 'B' | 'C';

export interface StrategyOutput {
  context: string;
  ms: number;
  /** C only: the optimizer reported BUDGET_CONFLICT (mandatory records alone exceed the budget). */
  conflict?: boolean;
  /** C only: the whole result, for the report and the determinism check. */
  result?: ContextResult;
}

export const STRATEGY_LABELS: Readonly<Record<StrategyName, string>> = {
  A: 'A raw',
  B: 'B dedupe + head',
  C: 'C optimizer',
};

const RECORD_SEPARATOR = '\n\n';

/** The same tag shape the optimizer renders: `[source: <fragment id> | <record id> | <label>]`. */
function renderRecord(record: NormalizedRecord): string {
  return `[source: ${record.id}#1 | ${record.id} | ${record.label}]\n${record.text}`;
}

function inputOrder(records: readonly NormalizedRecord[]): NormalizedRecord[] {
  return [...records].sort((a, b) => a.order - b.order);
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

export function rawStrategy(scenario: BenchScenario): StrategyOutput {
  const { value: context, ms } = timed(() => inputOrder(normalizeRecords(scenario.records).records).map(renderRecord).join(RECORD_SEPARATOR));
  return { context, ms };
}

/** Later is larger: time first (records without one count as earliest), then input order. */
function isLater(a: NormalizedRecord, b: NormalizedRecord): boolean {
  const timeA = a.time ?? Number.NEGATIVE_INFINITY;
  const timeB = b.time ?? Number.NEGATIVE_INFINITY;
  return timeA !== timeB ? timeA > timeB : a.order > b.order;
}

/** Exact duplicates (same content hash) collapse to their latest copy, which keeps its place. */
function dedupeExact(records: readonly NormalizedRecord[]): NormalizedRecord[] {
  const latest = new Map<string, NormalizedRecord>();
  for (const record of records) {
    const seen = latest.get(record.contentHash);
    if (seen === undefined || isLater(record, seen)) latest.set(record.contentHash, record);
  }
  return records.filter((record) => latest.get(record.contentHash) === record);
}

/**
 * The first blocks that fit the budget whole; the first one that does not is cut after its last
 * line that still fits (the tag and at least one line of text, else it is left out), and
 * nothing after it is kept. Counts the joined output itself, so the result is never over budget.
 */
function headToBudget(blocks: readonly string[], budget: number): string {
  const kept: string[] = [];
  const fits = (parts: readonly string[]): boolean => countTokens(parts.join(RECORD_SEPARATOR)) <= budget;
  for (const block of blocks) {
    if (fits([...kept, block])) {
      kept.push(block);
      continue;
    }
    const lines = block.split('\n');
    // Largest k (tag plus k-1 lines of text, k < all lines) that fits; the count grows with k.
    let low = 1;
    let high = lines.length - 1;
    let best = 0;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      if (fits([...kept, lines.slice(0, middle).join('\n')])) {
        best = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (best >= 2) kept.push(lines.slice(0, best).join('\n'));
    break;
  }
  return kept.join(RECORD_SEPARATOR);
}

export function dedupeHeadStrategy(scenario: BenchScenario): StrategyOutput {
  const { value: context, ms } = timed(() => {
    const records = dedupeExact(inputOrder(normalizeRecords(scenario.records).records));
    return headToBudget(records.map(renderRecord), scenario.tokenBudget);
  });
  return { context, ms };
}

/**
 * The newest-first baseline of the blind-session comparisons: exact duplicates collapsed, then
 * records newest first (the optimizer's one recency order), each under its tag, cut to the budget.
 */
export function newestFirstContext(scenario: BenchScenario, budget: number): string {
  const records = dedupeExact(normalizeRecords(scenario.records).records).sort((a, b) => compareRecency(b, a));
  return headToBudget(records.map(renderRecord), budget);
}

export function optimizerStrategy(scenario: BenchScenario): StrategyOutput {
  const { value: result, ms } = timed(() =>
    new ContextOptimizer().buildContext({ ...scenario.records, task: scenario.task, tokenBudget: scenario.tokenBudget }),
  );
  return { context: result.context, ms, conflict: result.report.selection.conflict !== undefined, result };
}

export const STRATEGIES: Readonly<Record<StrategyName, (scenario: BenchScenario) => StrategyOutput>> = {
  A: rawStrategy,
  B: dedupeHeadStrategy,
  C: optimizerStrategy,
};
