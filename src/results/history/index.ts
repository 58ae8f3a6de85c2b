// History of published measurements: history.csv, per-tool vectors, cost movements, capture index.
export { HISTORY_COLUMNS, HISTORY_FILE, ISOLATION_NOT_RECORDED, compareRows, historyCsv, parseHistoryCsv } from './_csv.js';
