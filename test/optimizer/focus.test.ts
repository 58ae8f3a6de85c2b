import { describe, expect, it } from 'vitest';
import { ContextOptimizer, type ContextResult, type SourceEntry } from '../../src/optimizer/index.js';
import { inInputOrder, reorderInput } from './_shuffle.js';

const HIDDEN = /^\[… (\d+) lines? not shown …\]$/;

/**
 * A build log of short routine lines with one line about the task at `at`; short enough (under
 * 1,600 characters) to be one fragment, long enough to be worth an excerpt.
 */
function buildLog(lines: number, at: number, special: string): string {
  return Array.from({ length: lines }, (_, i) => (i === at ? special : `step ${i} ok`)).join('\n');
}

function sourceOf(result: ContextResult, recordId: string): SourceEntry {
  const source = result.sources.find((entry) => entry.recordId === recordId);
  if (source === undefined) throw new Error(`${recordId} was not kept`);
  return source;
}

/** The rendered lines of one record's fragment: from its source tag to the next tag, section or the omission line. */
function blockOf(result: ContextResult, recordId: string): string[] {
  const lines = result.context.split('\n');
  const start = lines.findIndex((line) => line.startsWith('[source:') && line.includes(`| ${recordId} |`));
  if (start === -1) throw new Error(`${recordId} is not in the context`);
  const end = lines.findIndex((line, i) => i > start && (line.startsWith('[source:') || line.startsWith('## ') || line.startsWith('[omitted:')));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

/** Filler that keeps the whole session over a small budget, so that focusing is worth it. */
const filler = Array.from({ length: 12 }, (_, i) => ({
  id: `note-${i}`,
  role: 'assistant' as const,
  text: `Routine note ${i}: nothing here about the task, only words about lunch, weather and trains number ${i}.`,
}));

describe('focus: large outputs shown as the lines that bear on the task', () => {
  const log = buildLog(120, 60, 'exporting invoices: the invoice exporter wrote 0 rows for customer 42');
  const task = 'Why does the invoice exporter write 0 rows?';

  it('under a tight budget shows the matching line with 3 lines around it and marks every hidden run with its size', () => {
    const result = new ContextOptimizer().buildContext({ task, toolOutputs: [{ id: 'log', command: 'npm run export', output: log }], messages: filler, tokenBudget: 400 });
    expect(result.stats.withinBudget).toBe(true);
    const source = sourceOf(result, 'log');
    expect(source.excerpt).toEqual({ shownLines: 7, totalLines: 120 });
    const block = blockOf(result, 'log').filter((line) => line !== '');
    const shown = block.filter((line) => !HIDDEN.test(line));
    expect(shown).toEqual(log.split('\n').slice(57, 64));
    const hidden = block.flatMap((line) => {
      const match = HIDDEN.exec(line);
      return match === null ? [] : [Number(match[1])];
    });
    expect(hidden).toEqual([57, 56]);
    expect(hidden.reduce((sum, n) => sum + n, 0) + shown.length).toBe(120);
  });

  it('shows the fragment whole when everything relevant fits the budget', () => {
    const result = new ContextOptimizer().buildContext({ task, toolOutputs: [{ id: 'log', command: 'npm run export', output: log }], tokenBudget: 8_000 });
    expect(sourceOf(result, 'log').excerpt).toBeUndefined();
    expect(result.context).toContain(log.split('\n')[0]);
    expect(result.context).not.toMatch(/not shown …\]/);
  });

  it('keeps failure lines that share no word with the task, and their stack frames', () => {
    const lines = buildLog(100, 50, 'the invoice exporter started').split('\n');
    lines[80] = 'TypeError: Cannot read properties of undefined (reading \'rows\')';
    lines[81] = '    at writeBatch (src/export/batch.ts:41:13)';
    const result = new ContextOptimizer().buildContext({
      task,
      toolOutputs: [{ id: 'log', command: 'npm run export', output: lines.join('\n'), exitCode: 1 }],
      messages: filler,
      tokenBudget: 600,
    });
    const block = blockOf(result, 'log');
    expect(block).toContain(lines[80]);
    expect(block).toContain(lines[81]);
    expect(block).toContain(lines[50]);
    expect(sourceOf(result, 'log').excerpt?.shownLines).toBeLessThan(30);
  });

  it('cuts a failing test run\'s long output to its failure lines: the newest failure is mandatory, not its whole log', () => {
    // A race-detector or verbose run prints thousands of routine lines around one failure.
    const lines = Array.from({ length: 1_500 }, (_, i) => `=== RUN   TestRoutine${i}\n--- PASS: TestRoutine${i} (0.00s)`).join('\n').split('\n');
    lines[1_200] = '--- FAIL: TestInvoiceExporter_WritesRows (0.02s)';
    lines[1_201] = '    exporter_test.go:88: rows = 0, want 3';
    const output = lines.join('\n');
    const result = new ContextOptimizer().buildContext({
      task,
      testResults: [{ id: 'run', name: 'go test -v ./...', status: 'failed', output }],
      messages: filler,
      tokenBudget: 1_000,
    });
    expect(result.report.selection.conflict).toBeUndefined();
    expect(result.stats.withinBudget).toBe(true);
    const source = sourceOf(result, 'run');
    expect(source.mandatory).toBe(true);
    expect(source.excerpt?.totalLines).toBe(lines.length);
    const block = blockOf(result, 'run');
    expect(block).toContain(lines[1_200]);
    expect(block).toContain(lines[1_201]);
  });

  it('does not single out lines by a task word that is on most of them', () => {
    // Every line names `src/invoice`, one names the exporter: only that one and its neighbours are shown.
    const output = Array.from({ length: 60 }, (_, i) => (i === 30 ? ' ✗ src/invoice/exporter.ts' : ` ✓ src/invoice/p${i}.ts`)).join('\n');
    const result = new ContextOptimizer().buildContext({
      task: 'Fix the invoice exporter in src/invoice',
      toolOutputs: [{ id: 'tests', command: 'npx vitest run', output, exitCode: 0 }],
      messages: filler,
      tokenBudget: 400,
    });
    expect(sourceOf(result, 'tests').excerpt).toEqual({ shownLines: 7, totalLines: 60 });
  });

  it('shows a fragment whole when most of its lines bear on the task', () => {
    const output = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `invoice exporter row ${i}` : `padding ${i}`)).join('\n');
    const result = new ContextOptimizer().buildContext({ task, toolOutputs: [{ id: 'dense', command: 'cat rows.txt', output }], messages: filler, tokenBudget: 600 });
    const source = result.sources.find((entry) => entry.recordId === 'dense');
    expect(source?.excerpt).toBeUndefined();
  });

  it('never cuts diffs or messages', () => {
    const longText = buildLog(80, 40, 'the invoice exporter writes 0 rows');
    const input = {
      task,
      messages: [{ id: 'msg', role: 'user' as const, text: longText }, ...filler],
      diffs: [{ id: 'diff', path: 'src/invoice/exporter.ts', diff: longText.split('\n').map((line) => `+${line}`).join('\n') }],
      tokenBudget: 3_000,
    };
    const first = new ContextOptimizer().buildContext(input);
    expect(first.sources.map((source) => source.recordId)).toEqual(expect.arrayContaining(['msg', 'diff']));
    for (const source of first.sources) expect(source.excerpt, source.fragmentId).toBeUndefined();
  });

  it('shows the same excerpts, in the same bytes, whatever the order of the records', () => {
    const time = (minute: number) => new Date(Date.UTC(2026, 10, 30, 9, minute)).toISOString();
    const input = {
      task,
      tokenBudget: 700,
      toolOutputs: [
        { id: 'build-1', command: 'npm run build', output: buildLog(120, 20, 'the invoice exporter wrote 0 rows for customer 7'), exitCode: 0, timestamp: time(1) },
        { id: 'build-2', command: 'npm run export', output: buildLog(120, 90, 'the invoice exporter wrote 0 rows for customer 42'), exitCode: 0, timestamp: time(5) },
        { id: 'build-3', command: 'npm run report', output: buildLog(120, 50, 'invoice exporter: skipped 0 rows'), exitCode: 0, timestamp: time(3) },
      ],
      files: [{ id: 'exporter', path: 'src/invoice/exporter.ts', content: buildLog(90, 44, 'export function writeRows(invoices) { return 0; } // invoice exporter'), timestamp: time(4) }],
      messages: filler.map((note, i) => ({ ...note, timestamp: time(10 + i) })),
    };
    const reference = new ContextOptimizer().buildContext(input);
    expect(reference.sources.filter((source) => source.excerpt !== undefined).length).toBeGreaterThan(1);
    for (let seed = 1; seed <= 5; seed++) {
      const reordered = reorderInput(input, seed);
      expect(reordered.moved).toBeGreaterThan(0);
      expect(inInputOrder(new ContextOptimizer().buildContext(reordered.input), reordered), `seed ${seed}`).toBe(JSON.stringify(reference));
    }
  });
});

describe('focus: the line a failure names stays in the excerpt of its file', () => {
  it('keeps a file line named by a tsc location even when only another line carries the task words', () => {
    const content = Array.from({ length: 40 }, (_, i) =>
      i === 4 ? '// the invoice exporter writes one row per customer' : i === 29 ? '  const rowCount: number = String(rows.length); // culprit' : `  step${i}(ledger, cursor${i});`,
    ).join('\n');
    const result = new ContextOptimizer().buildContext({
      task: 'the invoice exporter build fails, fix it',
      tokenBudget: 500,
      messages: filler,
      toolOutputs: [{ id: 'tsc', command: 'npx tsc --noEmit', exitCode: 2, output: "src/export.ts(30,9): error TS2322: Type 'string' is not assignable to type 'number'." }],
      files: [{ id: 'export', path: 'src/export.ts', content }],
    });
    const source = sourceOf(result, 'export');
    expect(source.excerpt).toBeDefined();
    expect(blockOf(result, 'export')).toContain('  const rowCount: number = String(rows.length); // culprit');
  });
});

describe('focus: the lines an accepted decision names', () => {
  // A 70-line module, one fragment: the task's words are on the function that crashes (near the
  // top); the accepted decision names the other function, whose line is where the change goes.
  const module = Array.from({ length: 70 }, (_, i) => {
    if (i === 5) return 'def clamp_window(since, until) do';
    if (i === 6) return '  DateTime.compare(since, until)';
    if (i === 55) return 'def parse_bounds(args) do';
    if (i === 56) return '  cutoff = Map.get(args, "cutoff") || now';
    return `  step_${i}()`;
  }).join('\n');
  const input = {
    task: 'Fix the FunctionClauseError in clamp_window',
    files: [{ id: 'window', path: 'lib/digest/window.ex', content: module }],
    decisions: [{ id: 'plan', text: 'Convert the cutoff string with parse_bounds before clamping', status: 'accepted' as const }],
    messages: filler,
    tokenBudget: 250,
  };

  it('keeps the line of the function the decision names in the excerpt, beside the task\u2019s lines', () => {
    const result = new ContextOptimizer().buildContext(input);
    expect(result.stats.withinBudget).toBe(true);
    expect(sourceOf(result, 'window').excerpt).toBeDefined();
    const block = blockOf(result, 'window');
    expect(block).toContain('  DateTime.compare(since, until)');
    expect(block).toContain('  cutoff = Map.get(args, "cutoff") || now');
  });

  it('reads only accepted decisions: a rejected one names no lines', () => {
    const rejected = { ...input, decisions: [{ ...input.decisions[0]!, status: 'rejected' as const }] };
    const result = new ContextOptimizer().buildContext(rejected);
    expect(blockOf(result, 'window')).not.toContain('  cutoff = Map.get(args, "cutoff") || now');
  });
});
