/**
 * CSV as RFC 4180 writes it: a header row, CRLF line ends, a field quoted when it holds a comma,
 * a double quote, CR or LF (a quote doubled inside). Numbers are written unformatted (`String`),
 * and an unknown figure (null) is an empty field. The parser reads that back, so a verifier can
 * compare a file with the one it would write, cell by cell.
 */

/** A cell: text, a number as is, or null for a figure that is unknown or does not apply (written empty). */
export type CsvCell = string | number | null;

/** One cell that differs between a file as found and as re-derived; `row` counts data rows from 1 (the header is row 0). */
export interface CsvDifference {
  readonly file: string;
  readonly row: number;
  readonly column: string;
  readonly recorded: string | null;
  readonly recomputed: string | null;
}

const NEEDS_QUOTES = /[",\r\n]/;

function field(cell: CsvCell): string {
  const text = cell === null ? '' : String(cell);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV text of a table: the header row, then every row, each line ended by CRLF. */
export function csvText(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  return [header, ...rows].map((row) => `${row.map(field).join(',')}\r\n`).join('');
}

/**
 * The rows of CSV text, each a list of fields (quotes removed). Lenient where RFC 4180 is
 * silent: a bare LF also ends a record, and a missing final line end is accepted.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let value = '';
  let quoted = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        value += '"';
        index += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else value += char;
      index += 1;
      continue;
    }
    if (char === '"' && value === '') quoted = true;
    else if (char === ',') {
      row.push(value);
      value = '';
    } else if (char === '\r' || char === '\n') {
      row.push(value);
      rows.push(row);
      row = [];
      value = '';
      if (char === '\r' && text[index + 1] === '\n') index += 1;
    } else value += char;
    index += 1;
  }
  if (value !== '' || row.length > 0) {
    row.push(value);
    rows.push(row);
  }
  return rows;
}

/**
 * The cells where `found` (a file's text) differs from `expected` (the text re-derived), by data
 * row and header name; a row or column that one side lacks is a difference with null on that side.
 */
export function csvDifferences(file: string, found: string, expected: string): CsvDifference[] {
  const foundRows = parseCsv(found);
  const expectedRows = parseCsv(expected);
  const differences: CsvDifference[] = [];
  const foundHeader = foundRows[0] ?? [];
  const expectedHeader = expectedRows[0] ?? [];
  expectedHeader.forEach((name, index) => {
    if (foundHeader[index] !== name) differences.push({ file, row: 0, column: `#${index + 1}`, recorded: foundHeader[index] ?? null, recomputed: name });
  });
  foundHeader.slice(expectedHeader.length).forEach((name, offset) => differences.push({ file, row: 0, column: `#${expectedHeader.length + offset + 1}`, recorded: name, recomputed: null }));
  const rows = Math.max(foundRows.length, expectedRows.length);
  for (let row = 1; row < rows; row++) {
    const columns = Math.max(foundRows[row]?.length ?? 0, expectedRows[row]?.length ?? 0);
    for (let column = 0; column < columns; column++) {
      const recorded = foundRows[row]?.[column] ?? null;
      const recomputed = expectedRows[row]?.[column] ?? null;
      if (recorded !== recomputed) differences.push({ file, row, column: expectedHeader[column] ?? foundHeader[column] ?? `#${column + 1}`, recorded, recomputed });
    }
  }
  return differences;
}
