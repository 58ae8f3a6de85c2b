import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { csvDifferences, type CsvDifference } from './_csv.js';

/** Room over twice the table's size for a file edited by hand (a re-saved spreadsheet, wider numbers). */
const SIZE_SLACK_BYTES = 64 * 1024;

/**
 * Checks the CSV files found in `dir` against their re-derived text: `expected` maps each file a
 * report may write to its text, or to null when the report has no such table (then the file must
 * not be there). A file that is absent is not checked (CSVs are exports, the receipt is the record).
 */
export async function csvFilesDifferences(dir: string, expected: ReadonlyMap<string, string | null>): Promise<{ checked: string[]; differences: CsvDifference[] }> {
  const checked: string[] = [];
  const differences: CsvDifference[] = [];
  for (const [name, text] of expected) {
    const file = join(dir, name);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new McpctxError('IO', `Cannot read ${file}: ${(error as Error).message}`, { file }, { cause: error });
    }
    checked.push(name);
    if (text === null) {
      differences.push({ file: name, row: 0, column: '(file)', recorded: 'present', recomputed: null });
      continue;
    }
    // A file far larger than its table is not read: it differs, and a planted gigabyte must not be parsed cell by cell.
    const expectedBytes = Buffer.byteLength(text, 'utf8');
    if (size > expectedBytes * 2 + SIZE_SLACK_BYTES) {
      differences.push({ file: name, row: 0, column: '(file)', recorded: `${size} bytes`, recomputed: `${expectedBytes} bytes` });
      continue;
    }
    let found: string;
    try {
      found = await readFile(file, 'utf8');
    } catch (error) {
      throw new McpctxError('IO', `Cannot read ${file}: ${(error as Error).message}`, { file }, { cause: error });
    }
    differences.push(...csvDifferences(name, found, text));
  }
  return { checked, differences };
}

/** A difference as one line: the file, the data row, the column and both values. */
export function csvDifferenceText(difference: CsvDifference): string {
  const where = difference.row === 0 ? `${difference.file} header, column ${difference.column}` : `${difference.file} row ${difference.row}, column ${difference.column}`;
  const show = (value: string | null): string => (value === null ? 'nothing' : JSON.stringify(value));
  return `${where}: recorded ${show(difference.recorded)}, recomputed ${show(difference.recomputed)}`;
}
