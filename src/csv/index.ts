// CSV exports of report tables (RFC 4180), and the cell-by-cell comparison verify uses.
export { csvDifferences, csvText, parseCsv, type CsvCell, type CsvDifference } from './_csv.js';
export { csvDifferenceText, csvFilesDifferences } from './_files.js';
