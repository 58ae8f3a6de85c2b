import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { csvDifferences, type CsvDifference } from './_csv.js';

/**
 * Checks the CSV files found in `dir` against their re-derived text: `expected` maps each file a
 * report may write to its text, or to null when the report has no such table (then the file must
 * not be there). A file that is absent is not checked (CSVs are exports, the receipt is the record).
 */
export async function csvFilesDifferences(dir: string, expected: ReadonlyMap<string, string | null>): Promise<{ checked: string[]; differences: CsvDifference[] }> {
  const checked: string[] = [];
  const differences: CsvDifference[] = [];
  for (const [name, text] of expected) {
    let found: string;
    try {
      found = await readFile(join(dir, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new McpctxError('IO', `Cannot read ${join(dir, name)}: ${(error as Error).message}`, { file: join(dir, name) }, { cause: error });
    }
    checked.push(name);
    if (text === null) differences.push({ file: name, row: 0, column: '(file)', recorded: 'present', recomputed: null });
    else differences.push(...csvDifferences(name, found, text));
  }
  return { checked, differences };
}

/** A difference as one line: the file, the data row, the column and both values. */
export function csvDifferenceText(difference: CsvDifference): string {
  const where = difference.row === 0 ? `${difference.file} header, column ${difference.column}` : `${difference.file} row ${difference.row}, column ${difference.column}`;
  const show = (value: string | null): string => (value === null ? 'nothing' : JSON.stringify(value));
  return `${where}: recorded ${show(difference.recorded)}, recomputed ${show(difference.recomputed)}`;
}
