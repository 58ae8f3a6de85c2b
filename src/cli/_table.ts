import { printableText } from '../text/index.js';

export type Align = 'left' | 'right';

export interface Column {
  header: string;
  align?: Align;
  /** Widest the column may be: a longer cell is cut and ends in an ellipsis. Default: no limit. */
  max?: number;
}

/** `text` cut to `width` characters, the last one an ellipsis when anything was cut. */
export function ellipsize(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * A plain-text table: padded columns, a rule under the header, no colour (pipes stay clean), and
 * optional footer rows under a second rule (a total). Cells may hold what a server sent (tool
 * names): escape sequences and control characters are removed, so a server cannot colour, move or
 * rewrite the terminal.
 */
export function renderTable(columns: readonly Column[], cells: ReadonlyArray<readonly string[]>, footer: ReadonlyArray<readonly string[]> = []): string {
  const clean = (row: readonly string[]): string[] =>
    row.map((cell, index) => {
      const text = printableText(cell, 'note');
      const max = columns[index]?.max;
      return max === undefined ? text : ellipsize(text, max);
    });
  const rows = cells.map(clean);
  const footRows = footer.map(clean);
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...[...rows, ...footRows].map((row) => (row[index] ?? '').length)),
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
  const foot = footRows.length > 0 ? [rule, ...footRows.map(line)] : [];
  return [header, rule, ...rows.map(line), ...foot].join('\n') + '\n';
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : value.toLocaleString('en-US');
}

/** A total that may be a floor: `>= 1,234` when not every part was counted. */
export function formatTotal(total: { tokens: number; complete: boolean }): string {
  return `${total.complete ? '' : '>= '}${formatCount(total.tokens)}`;
}

export function formatShare(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '-';
}
