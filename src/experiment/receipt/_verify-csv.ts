/**
 * `experiment verify` on a receipt file: the receipt's own checks, then each CSV export found
 * beside it (tasks.csv, totals.csv) against the text the receipt re-derives, cell by cell.
 */
import { dirname } from 'node:path';
import { csvDifferenceText, csvFilesDifferences } from '../../csv/index.js';
import { isPlainObject } from '../../json/index.js';
import { experimentCsvFiles } from './_csv-tables.js';
import { verifyReceipt, type ReceiptVerification } from './_verify.js';
import type { ExperimentReceipt } from '../_types.js';

/** The verification of `receipt` (read from `file`) with its CSV exports; `csvFiles` names the ones checked. */
export async function verifyReceiptAndExports(receipt: unknown, file: string): Promise<ReceiptVerification & { csvFiles: string[] }> {
  const verification = verifyReceipt(receipt);
  // A receipt that is not an object has no tables to export; verifyReceipt already says so.
  if (!isPlainObject(receipt)) return { ...verification, csvFiles: [] };
  const { checked, differences } = await csvFilesDifferences(dirname(file), experimentCsvFiles(receipt as unknown as ExperimentReceipt));
  const problems = [...verification.problems, ...differences.map(csvDifferenceText)];
  return { ...verification, ok: problems.length === 0, problems, csvFiles: checked };
}
