import { printableText } from '../text/index.js';

export type Align = 'left' | 'right';

export interface Column {
  header: string;
  align?: Align;
}

/**
 * A plain-text table: padded columns, a rule under the header, no colour (pipes stay clean).
 * Cells may hold what a server sent (tool names): escape sequences and control characters are
 * removed, so a server cannot colour, move or rewrite the terminal.
 */
export function renderTable(columns: readonly Column[], cells: ReadonlyArray<readonly string[]>): string {
  const rows = cells.map((row) => row.map((cell) => printableText(cell, 'note')));
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? '';
        const width = widths[index] ?? 0;
        return column.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const header = line(columns.map((column) => column.header));
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [header, rule, ...rows.map(line)].join('\n') + '\n';
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : value.toLocaleString('en-US');
}

export function formatShare(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '-';
}
