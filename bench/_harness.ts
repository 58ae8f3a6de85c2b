// Shared pieces of the benchmarks: what a benchmark module returns, timing helpers, the table.
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Progress for people watching: stderr, and only when stderr is a terminal. */
export type Progress = (message: string) => void;

export interface BenchContext {
  progress: Progress;
}

export interface BenchTable {
  columns: string[];
  rows: Array<Array<string | number>>;
}

export interface BenchReport {
  /** One line saying what was measured against what. */
  title: string;
  table: BenchTable;
  /** Everything worth keeping, written to bench/results/<name>.json. */
  figures: Record<string, unknown>;
  notes?: string[];
}

/** A benchmark module (`bench/<name>.bench.ts`) exports `run`. */
export interface BenchModule {
  run(context: BenchContext): Promise<BenchReport>;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] as number;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] as number) + upper) / 2;
}

/** The nearest-rank percentile (`fraction` 0.99 for p99): a value that was measured, never interpolated. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) throw new RangeError('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}

/** Rounds for display and for the results file: enough digits to compare, no float noise. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Megabytes (10^6 bytes) per second. */
export function megabytesPerSecond(bytes: number, ms: number): number {
  return bytes / 1e6 / (ms / 1000);
}

export function formatTable({ columns, rows }: BenchTable): string {
  const cells = [columns, ...rows.map((row) => row.map((cell) => (typeof cell === 'number' ? cell.toLocaleString('en-US') : cell)))];
  const widths = columns.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) => {
        const width = widths[column] ?? 0;
        // Text left, numbers right.
        return column === 0 ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  ')
      .trimEnd();
  const header = cells[0] ?? [];
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
