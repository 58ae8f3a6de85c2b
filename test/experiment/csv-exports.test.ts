// The report's tables as CSV beside report.md: the bundled demo run once, its CSVs parsed and held
// against the markdown tables and the receipt, then verify re-deriving them (a changed cell fails,
// naming the file, row, column and both values).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceiptAndExports, type ExperimentReceipt } from '../../src/experiment/index.js';
import { csvText, parseCsv } from '../../src/csv/index.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

let copy: DemoCopy;
let receipt: ExperimentReceipt;
let receiptFile: string;
let dir: string;
let csvFiles: string[] | undefined;

beforeAll(async () => {
  copy = copyDemo();
  const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out') });
  receipt = run.receipt;
  receiptFile = run.receiptFile;
  dir = dirname(receiptFile);
  csvFiles = run.csvFiles;
}, 120_000);

afterAll(async () => {
  rmSync(copy.dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

/** The rows of the markdown table under a `## heading`, each a list of cells. */
function markdownTable(markdown: string, heading: string): string[][] {
  const section = markdown.split(`## ${heading}\n`)[1]!.split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
    .slice(1)
    .map((line) => line.slice(2, -2).split(' | '));
}
const figure = (text: string): string => (text === 'unknown' ? '' : text.replaceAll(',', ''));
const read = (name: string): string => readFileSync(join(dir, name), 'utf8');

describe('CSV exports beside report.md', () => {
  it('tasks.csv holds the markdown task table\'s figures and the receipt\'s, unformatted', () => {
    expect(csvFiles).toEqual([join(dir, 'tasks.csv'), join(dir, 'totals.csv'), join(dir, 'time.csv'), join(dir, 'rates.csv'), join(dir, 'spend.csv')]);
    const [header, ...rows] = parseCsv(read('tasks.csv'));
    expect(header).toEqual(['task', 'repetition', 'kind', 'condition', 'outcome', 'failure', 'context_tokens', 'output_tokens', 'turns', 'raw_tool_bytes', 'model_facing_tokens', 'verdict']);
    const table = markdownTable(read('report.md'), 'Tasks');
    expect(rows).toHaveLength(8);
    expect(table).toHaveLength(8);
    rows.forEach((row, index) => {
      const shown = table[index]!;
      // task, kind, condition, then the five figures as the markdown prints them, then the verdict.
      expect([row[0], row[2], row[3], ...row.slice(6)]).toEqual([shown[0], shown[1], shown[2], ...shown.slice(4, 9).map(figure), shown[9]]);
      expect(row[1]).toBe('1');
      const side = receipt.report!.rows[Math.floor(index / 2)]![row[3] as 'baseline' | 'optimized'];
      expect(row[4]).toBe(side.outcome);
      expect(Number(row[6])).toBe(side.totals.contextTokens);
      expect(Number(row[10])).toBe(side.totals.modelFacingTokens);
    });
    expect(Number(rows.find((row) => row[0] === 'lookup-author' && row[3] === 'baseline')![6])).toBeGreaterThan(1000); // no thousands separator
  });

  it('totals.csv holds the totals table: sums as the receipt has them, the reduction as a fraction', () => {
    const [header, ...rows] = parseCsv(read('totals.csv'));
    expect(header).toEqual(['measure', 'baseline', 'optimized', 'reduction', 'ci95_low', 'ci95_high']);
    const table = markdownTable(read('report.md'), 'Totals');
    expect(rows.map((row) => [row[1], row[2]])).toEqual(table.map((row) => [figure(row[1]!), figure(row[2]!)]));
    const context = rows.find((row) => row[0] === 'contextTokens')!;
    const interval = receipt.report!.statistics.contextTokens;
    expect(context.slice(1).map(Number)).toEqual([receipt.report!.totals.contextTokens.baseline, receipt.report!.totals.contextTokens.optimized, receipt.report!.totals.contextTokens.reduction, interval.low, interval.high]);
    expect(`${(Number(context[3]) * 100).toFixed(1)}%`).toBe(table[0]![3]);
    // The bootstrap bounds are the markdown's interval column, unrounded; a total without one has them empty.
    expect(`${(Number(context[4]) * 100).toFixed(1)}% to ${(Number(context[5]) * 100).toFixed(1)}%`).toBe(table[0]![4]);
    expect(rows.find((row) => row[0] === 'turns')!.slice(4)).toEqual(['', '']);
    // A reduction over a baseline of 0 does not apply: empty, as documented, where the markdown says n/a.
    expect(rows.find((row) => row[0] === 'cacheReadTokens')![3]).toBe('');
  });

  it('time.csv holds the wall-clock table in ms, as the receipt has it', () => {
    const [header, ...rows] = parseCsv(read('time.csv'));
    expect(header).toEqual(['task', 'repetition', 'condition', 'elapsed_ms', 'model_ms', 'tools_ms']);
    const table = markdownTable(read('report.md'), 'Wall-clock time');
    expect(rows).toHaveLength(table.length);
    rows.forEach((row, index) => {
      expect([row[0], row[2]]).toEqual(table[index]!.slice(0, 2));
      expect(row.slice(3).map((ms) => (Number(ms) / 1000).toFixed(2))).toEqual(table[index]!.slice(2));
      const time = receipt.report!.rows[Math.floor(index / 2)]![row[2] as 'baseline' | 'optimized'].time!;
      expect(row.slice(3).map(Number)).toEqual([time.elapsedMs, time.modelMs, time.toolMs]);
    });
  });

  it('rates.csv holds the rates table: counts, the rate and its Wilson bounds as fractions', () => {
    const [header, ...rows] = parseCsv(read('rates.csv'));
    expect(header).toEqual(['condition', 'right', 'verdicts', 'rate', 'ci95_low', 'ci95_high', 'without_verdict']);
    const table = markdownTable(read('report.md'), 'Rates and intervals');
    const percent = (fraction: string): string => `${(Number(fraction) * 100).toFixed(1)}%`;
    rows.forEach((row, index) => {
      const shown = table[index]!;
      expect([row[0], row[1], row[2], percent(row[3]!), `${percent(row[4]!)} to ${percent(row[5]!)}`, row[6]]).toEqual(shown);
      const rate = receipt.report!.statistics!.rates[row[0] as 'baseline' | 'optimized'];
      expect(row.slice(1).map(Number)).toEqual([rate.right, rate.verdicts, rate.rate, rate.low, rate.high, rate.withoutVerdict]);
    });
  });

  it('verify re-derives the CSVs found beside the receipt, and a changed cell fails naming file, row, column and both values', async () => {
    const clean = await verifyReceiptAndExports(JSON.parse(read('receipt.json')), receiptFile);
    expect(clean.problems).toEqual([]);
    expect(clean.csvFiles).toEqual(['tasks.csv', 'totals.csv', 'time.csv', 'rates.csv', 'spend.csv']);
    const original = read('tasks.csv');
    const rows = parseCsv(original);
    const forged = rows.map((row) => [...row]);
    forged[3]![6] = '1'; // lookup-comments, baseline, context_tokens
    writeFileSync(join(dir, 'tasks.csv'), csvText(forged[0]!, forged.slice(1)));
    try {
      const found = await verifyReceiptAndExports(JSON.parse(read('receipt.json')), receiptFile);
      expect(found.ok).toBe(false);
      expect(found.problems).toEqual([`tasks.csv row 3, column context_tokens: recorded "1", recomputed "${rows[3]![6]}"`]);
    } finally {
      writeFileSync(join(dir, 'tasks.csv'), original);
    }
    // A totals.csv left over where the report compared nothing is a difference too; absent files are not checked.
    rmSync(join(dir, 'tasks.csv'));
    const none = await verifyReceiptAndExports({ ...JSON.parse(read('receipt.json')), report: { ...receipt.report, compared: 0 } }, receiptFile);
    expect(none.problems).toContain('totals.csv header, column (file): recorded "present", recomputed nothing');
    writeFileSync(join(dir, 'tasks.csv'), original);
  });

  it('a CSV far larger than its table is one difference, never parsed cell by cell', async () => {
    const original = read('rates.csv');
    // 8 MiB of commas: parsed, one row of 8 million cells, each a difference.
    writeFileSync(join(dir, 'rates.csv'), `${original}${','.repeat(8 * 1024 * 1024)}\n`);
    try {
      const found = await verifyReceiptAndExports(JSON.parse(read('receipt.json')), receiptFile);
      expect(found.problems).toEqual([`rates.csv header, column (file): recorded "${Buffer.byteLength(original) + 8 * 1024 * 1024 + 1} bytes", recomputed "${Buffer.byteLength(original)} bytes"`]);
    } finally {
      writeFileSync(join(dir, 'rates.csv'), original);
    }
  });
});

describe('the CSV writer', () => {
  it('quotes per RFC 4180, writes numbers unformatted and unknown as empty, and reads back what it wrote', () => {
    const text = csvText(['name', 'n', 'x'], [['a,b', 1234567, null], ['say "hi"', 0.5, 'line\nbreak']]);
    expect(text).toBe('name,n,x\r\n"a,b",1234567,\r\n"say ""hi""",0.5,"line\nbreak"\r\n');
    expect(parseCsv(text)).toEqual([['name', 'n', 'x'], ['a,b', '1234567', ''], ['say "hi"', '0.5', 'line\nbreak']]);
  });
});
