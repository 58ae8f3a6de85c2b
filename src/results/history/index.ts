// History of published measurements: history.csv, per-tool vectors, cost movements, capture index.
export { HISTORY_COLUMNS, HISTORY_FILE, ISOLATION_NOT_RECORDED, compareRows, historyCsv, parseHistoryCsv } from './_csv.js';
export { appendHistory, historyRowFor } from './_rows.js';
export {
  MAX_TOOL_VECTORS,
  TOOL_VECTORS_FILE,
  emptyToolVectors,
  parseToolVectors,
  recordToolVector,
  toolVectorsJson,
} from './_vectors.js';
