/**
 * report.md's tables as CSV files beside it: `recall.csv` (every retriever's recall@k table, one
 * row per retriever, kind and size), `catalog-cost.csv`, and with a model `accuracy.csv` and `call-time.csv` (when calls were timed). Figures
 * are the receipt's, unformatted. An empty cell is a figure that does not exist: a recall with no
 * request needing a tool, the retriever of a protocol that has none (native, constrained), a mean
 * time to first token no answer reported.
 */
import { csvText, type CsvCell } from '../../csv/index.js';
import { SPEND_CSV, spendCsv } from '../_spend.js';
import type { RoutingRun } from '../_run.js';

export const RECALL_CSV = 'recall.csv';
export const CATALOG_COST_CSV = 'catalog-cost.csv';
export const ACCURACY_CSV = 'accuracy.csv';
export const CALL_TIME_CSV = 'call-time.csv';

/** Each CSV file report.md has a table for, by name, in the order written; null for a table it does not print. */
export function routingCsvFiles(run: RoutingRun): Map<string, string | null> {
  return new Map([
    [RECALL_CSV, run.recall.length === 0 ? null : recallCsv(run)],
    [CATALOG_COST_CSV, catalogCostCsv(run)],
    [ACCURACY_CSV, run.model === null ? null : accuracyCsv(run)],
    [CALL_TIME_CSV, run.model === null || run.callTimes === undefined || run.callTimes.length === 0 ? null : callTimeCsv(run)],
    [SPEND_CSV, run.spend === null || run.spend === undefined ? null : spendCsv(run.spend)],
  ]);
}

function recallCsv(run: RoutingRun): string {
  const header = ['retriever', 'kind', 'size', 'n', ...run.recallAt.flatMap((k) => [`recall@${k}`, `hits@${k}`])];
  const rows = run.recall.map((cell): CsvCell[] => [cell.retriever, cell.kind, cell.size, cell.requests, ...cell.hits.flatMap((hit) => [hit.recall, hit.hits])]);
  return csvText(header, rows);
}

function catalogCostCsv(run: RoutingRun): string {
  const header = ['kind', 'size', 'native_tokens', 'native_tokens_per_tool', 'constrained_tokens', 'constrained_tokens_per_tool'];
  const rows = run.catalogCosts.map((cost): CsvCell[] => [cost.kind, cost.size, cost.nativeTokens, cost.nativeTokensPerTool, cost.constrainedTokens, cost.constrainedTokensPerTool]);
  return csvText(header, rows);
}

/** Wall-clock ms per cell; an empty cell is a time a call of the cell did not record. */
function callTimeCsv(run: RoutingRun): string {
  const header = ['protocol', 'retriever', 'kind', 'size', 'calls', 'total_ms', 'p50_ms', 'p95_ms'];
  const rows = (run.callTimes ?? []).map((cell): CsvCell[] => [cell.protocol, cell.retriever, cell.kind, cell.size, cell.calls, cell.totalMs, cell.p50Ms, cell.p95Ms]);
  return csvText(header, rows);
}

function accuracyCsv(run: RoutingRun): string {
  const header = [
    'protocol',
    'retriever',
    'kind',
    'size',
    'requests',
    'right',
    'wrong_tool',
    'no_tool',
    'wrong_call',
    'invalid',
    'accuracy',
    'ci95_low',
    'ci95_high',
    'right_when_offered',
    'right_tool_offered',
    'mean_prompt_tokens',
    'tokens_per_tool',
    'mean_first_token_ms',
  ];
  const rows = run.accuracy.map((cell): CsvCell[] => [
    cell.protocol,
    cell.retriever,
    cell.kind,
    cell.size,
    cell.requests,
    cell.counts.right,
    cell.counts.wrong_tool,
    cell.counts.no_tool,
    cell.counts.wrong_call,
    cell.invalid,
    cell.accuracy,
    cell.low,
    cell.high,
    cell.rightWhenOffered,
    cell.rightToolOffered,
    cell.meanPromptTokens,
    cell.tokensPerTool,
    cell.meanFirstTokenMs,
  ]);
  return csvText(header, rows);
}
