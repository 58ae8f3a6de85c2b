import { renderReportMarkdown, skippedGroups, type ExperimentRun, type ReceiptVerification } from '../experiment/index.js';
import { printableText } from '../text/index.js';

/** The run for people: the report's tables when the run got that far, what stopped it, and where the receipt is. */
export function renderExperimentRun(run: ExperimentRun, invocation: string): string {
  const { receipt } = run;
  const lines: string[] = [];
  if (receipt.report !== undefined) lines.push(renderReportMarkdown(receipt).trimEnd(), '');
  for (const error of receipt.errors) {
    lines.push(`stopped at ${error.stage}: ${error.code}: ${printableText(error.message, 'note')}`);
  }
  // The report lists them under its failures; a run stopped before its report still says what it left out.
  if (receipt.report === undefined) for (const group of skippedGroups(receipt)) lines.push(printableText(group.sentence, 'note'));
  lines.push(`receipt: ${printableText(run.receiptFile, 'note')}`);
  if (run.reportFile !== undefined) lines.push(`report: ${printableText(run.reportFile, 'note')}`);
  if (run.csvFiles !== undefined && run.csvFiles.length > 0) lines.push(`tables as CSV: ${run.csvFiles.map((file) => printableText(file, 'note')).join(', ')}`);
  lines.push(`check it: ${invocation} experiment verify ${printableText(run.receiptFile, 'note')}`);
  return `${lines.join('\n')}\n`;
}

export function renderVerification(file: string, verification: ReceiptVerification & { csvFiles?: string[] }): string {
  const { checked } = verification;
  const counts = `${checked.questions} questions, ${checked.turns} model turns, ${checked.toolCalls} tool calls, ${checked.frames} MCP frames`;
  const files = verification.csvFiles ?? [];
  const named = files.length < 2 ? files.join('') : `${files.slice(0, -1).join(', ')} and ${files.at(-1) ?? ''}`;
  const csv = files.length === 0 ? '' : `, and so ${files.length === 1 ? 'does' : 'do'} ${named}`;
  if (verification.ok) return `verified ${printableText(file, 'note')}: ${counts}; every hash, figure and table recomputes${csv}\n`;
  const lines = [`NOT verified ${printableText(file, 'note')}: ${verification.problems.length} problem(s) (${counts} read)`];
  for (const problem of verification.problems) lines.push(`  ${printableText(problem, 'note')}`);
  return `${lines.join('\n')}\n`;
}
