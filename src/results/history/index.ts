// History of published measurements: history.csv, per-tool vectors, cost movements, capture index.
export { HISTORY_COLUMNS, HISTORY_FILE, ISOLATION_NOT_RECORDED, compareRows, historyCsv, parseHistoryCsv } from './_csv.js';
export { appendHistory, hasNumber, historyRowFor, nextSweepNumber } from './_rows.js';
export {
  MAX_TOOL_VECTORS,
  TOOL_VECTORS_FILE,
  emptyToolVectors,
  measuredWithOf,
  parseToolVectors,
  recordToolVector,
  toolVectorsJson,
} from './_vectors.js';
export {
  COST_REGRESSION_METHOD,
  EMPHASIS_MIN_SHARE,
  EMPHASIS_MIN_TOKENS,
  costMovements,
  costReport,
  type ConditionsChange,
  type CostFall,
  type CostMechanism,
  type CostMovement,
  type CostPoint,
  type CostReport,
  type CostReturn,
  type FailedSweep,
  type FieldSplit,
  type ToolAttribution,
  type ToolDelta,
} from './_movement.js';
export { REGRESSIONS_FILE, REGRESSIONS_JSON_FILE, regressionsJson, regressionsMarkdown } from './_regressions.js';
export { conditionsText } from './_conditions.js';
export { CAPTURE_INDEX_FILE, CAPTURE_INDEX_METHOD, captureIndex, captureIndexJson, readCaptureIndex, type CaptureIndex } from './_capture-index.js';
