import { mkdir, rm, writeFile } from 'node:fs/promises';
import { spendMarkdown } from '../_spend.js';
import { join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { routingChart } from './_chart.js';
import { routingCsvFiles } from './_csv-tables.js';
import type { RoutingReceipt } from './_receipt.js';
import type { RoutingRun } from '../_run.js';
import type { AccuracyCell } from '../_score.js';
import { CALL_TIME_HEADERS, CALL_TIME_NOTE, CALL_TIME_NUMERIC_COLUMNS, callTimeRow } from './_call-time-report.js';

export const RECEIPT_FILE = 'receipt.json';
export const REPORT_FILE = 'report.md';
export const CHART_FILE = 'chart.svg';

/** A markdown table; cells are escaped so a tool name cannot break a row. */
function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, right: ReadonlySet<number>): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
  return [
    `| ${headers.map(cell).join(' | ')} |`,
    `|${headers.map((_, index) => (right.has(index) ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** The report of a run in markdown: setup, recall@k, catalog cost, and (with a model) accuracy; links the chart. */
export function routingMarkdown(run: RoutingRun, options: { chartFile?: string; receiptFile?: string } = {}): string {
  const routed = run.requests.filter((request) => request.tool !== null).length;
  const lines = [
    '# Tool routing',
    '',
    `${run.tools.domain.length} domain tools; ${run.requests.length} requests (${routed} with a right tool, ${run.requests.length - routed} needing none); ` +
      `pools of ${run.tools.unrelated.length} unrelated and ${run.tools.confusable.length} confusable tools; sizes ${run.sizes.join(', ')}; seed ${run.seed}.` +
      (run.model ? ` Model: ${run.model.name} (${run.model.provider}).` : ' Offline: retrieval only.'),
    '',
  ];
  if (options.chartFile) lines.push(`![${run.model ? 'Accuracy' : 'Recall'} and tokens against catalog size](${options.chartFile})`, '');
  for (const retriever of [...new Set(run.recall.map((cell) => cell.retriever))]) {
    lines.push(`## ${retriever}: recall@k`, '', 'The share of requests (with a right tool) whose tool is within the first k the retriever ranks.', '');
    const cells = run.recall.filter((cell) => cell.retriever === retriever);
    lines.push(
      table(
        ['kind', 'size', 'n', ...run.recallAt.map((k) => `recall@${k}`)],
        cells.map((cell) => [cell.kind, String(cell.size), String(cell.requests), ...cell.hits.map((hit) => (hit.recall === null ? '-' : `${hit.recall.toFixed(3)} (${hit.hits})`))]),
        new Set([1, 2, ...run.recallAt.map((_, index) => index + 3)]),
      ),
      '',
    );
  }
  lines.push('## Catalog cost', '', 'o200k tokens of each whole catalog: as the tools field (name, description, schema) and as the constrained listing (names and descriptions).', '');
  lines.push(
    table(
      ['kind', 'size', 'native tokens', 'per tool', 'constrained tokens', 'per tool'],
      run.catalogCosts.map((cost) => [cost.kind, String(cost.size), String(cost.nativeTokens), cost.nativeTokensPerTool.toFixed(1), String(cost.constrainedTokens), cost.constrainedTokensPerTool.toFixed(1)]),
      new Set([1, 2, 3, 4, 5]),
    ),
    '',
  );
  if (run.model) {
    if (run.failure) {
      lines.push(`**The model run stopped early** at call ${run.failure.call + 1} (${run.failure.protocol}, ${run.failure.kind}, size ${run.failure.size}): ${run.failure.code}. The ${run.answers.length} answers before it are in the receipt; conditions not answered in full are left out of the table below.`, '');
    }
    // Receipts from before repetitions have no repeat: each request was asked once.
    const repeat = run.repeat ?? 1;
    const asked = repeat === 1 ? '' : `Each request was asked ${repeat} times per protocol and condition (--repeat ${repeat}), the same request each time: a condition's n is requests × ${repeat}, and its interval counts every answer. `;
    lines.push('## Routing accuracy', '', asked + 'Right: the right tool (or no tool when none was needed). No tool: a text answer or a declined choice when a tool was needed, counted apart from a wrong tool. Wrong call: a tool called when none was needed. 95% Wilson intervals. Right when offered: of the requests with a right tool that was among the tools offered, those answered right (under retrieval, what the model did with what the retriever gave it). Two counters, not one: prompt tokens (provider) is the mean prompt the provider\'s usage reports, counted by the model\'s own tokenizer; o200k/tool (catalog) is mcpctx\'s o200k_base count of the rendered catalog per tool, an estimate of the same kind for every model.', '');
    lines.push(
      table(
        [...ACCURACY_HEADERS],
        run.accuracy.map(accuracyRow),
        ACCURACY_NUMERIC_COLUMNS,
      ),
      '',
    );
    if (run.callTimes !== undefined && run.callTimes.length > 0) {
      lines.push('## Model-call time', '', CALL_TIME_NOTE, '', table([...CALL_TIME_HEADERS], run.callTimes.map(callTimeRow), CALL_TIME_NUMERIC_COLUMNS), '');
    }
  }
  lines.push(...spendMarkdown(run.spend));
  if (options.receiptFile) {
    // A report is read where mcpctx may not be installed, and mcpctx is not on npm (`npx mcpctx`
    // would fetch whatever holds that name): the command is the one a clone runs.
    lines.push(
      `Every figure recomputes from the rows of [${options.receiptFile}](${options.receiptFile}) with mcpctx's \`routing verify\`; in a clone of mcpctx, after \`npm ci\`: \`node dist/cli/main.js routing verify path/to/${options.receiptFile}\`.`,
      '',
    );
  }
  return lines.join('\n');
}

/**
 * Writes receipt.json, report.md (linking the chart), chart.svg and report.md's tables as CSV
 * into `dir` (created if needed); returns their paths. A CSV this run has no table for is removed,
 * so a rerun into the same folder leaves none of an earlier run's.
 */
export async function writeRoutingOutput(dir: string, receipt: RoutingReceipt): Promise<{ receipt: string; report: string; chart: string; csv: string[] }> {
  const paths = { receipt: join(dir, RECEIPT_FILE), report: join(dir, REPORT_FILE), chart: join(dir, CHART_FILE), csv: [] as string[] };
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(paths.receipt, `${JSON.stringify(receipt, null, 2)}\n`);
    await writeFile(paths.chart, routingChart(receipt));
    await writeFile(paths.report, routingMarkdown(receipt, { chartFile: CHART_FILE, receiptFile: RECEIPT_FILE }));
    for (const [name, text] of routingCsvFiles(receipt)) {
      if (text === null) await rm(join(dir, name), { force: true });
      else {
        await writeFile(join(dir, name), text);
        paths.csv.push(join(dir, name));
      }
    }
  } catch (error) {
    throw new McpctxError('IO', `Cannot write the routing output to ${dir}: ${(error as Error).message}`, { dir }, { cause: error });
  }
  return paths;
}

/** The accuracy table's columns, shared by this report and the CLI. */
export const ACCURACY_HEADERS = ['protocol', 'kind', 'size', 'right', 'wrong tool', 'no tool', 'wrong call', 'accuracy', '95% CI', 'right when offered', 'prompt tokens (provider)', 'o200k/tool (catalog)', 'first token ms'] as const;
/** The right-aligned (numeric) columns of ACCURACY_HEADERS, by index. */
export const ACCURACY_NUMERIC_COLUMNS: ReadonlySet<number> = new Set([2, 3, 4, 5, 6, 7, 9, 10, 11, 12]);

/** One accuracy cell as the row of ACCURACY_HEADERS. */
export function accuracyRow(cell: AccuracyCell): string[] {
  return [
    cell.retriever === null ? cell.protocol : `${cell.protocol} (${cell.retriever})`,
    cell.kind,
    String(cell.size),
    `${cell.counts.right}/${cell.requests}`,
    String(cell.counts.wrong_tool),
    String(cell.counts.no_tool),
    String(cell.counts.wrong_call),
    cell.accuracy.toFixed(3),
    `${cell.low.toFixed(2)}-${cell.high.toFixed(2)}`,
    `${cell.rightWhenOffered}/${cell.rightToolOffered}`,
    cell.meanPromptTokens.toFixed(0),
    cell.tokensPerTool.toFixed(1),
    cell.meanFirstTokenMs === null ? '-' : cell.meanFirstTokenMs.toFixed(0),
  ];
}
