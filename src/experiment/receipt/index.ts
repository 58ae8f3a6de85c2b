// What a receipt records and what is derived from it: the text a model is shown of a tool result,
// the answer check, the totals and the report, and the verification that recomputes them all.
export { modelFacingFigures, modelFacingText, probeCallFigures, rawContentFigures } from './_model-facing.js';
export { finalTextOf, judge } from './_judge.js';
export { OUTCOME_LABELS, VERDICT_OUTCOMES, isQuestionOutcome, outcomeOf, verdictOfFailure } from './_outcome.js';
export { buildReport, notCheckedOf, questionTotals, renderReportMarkdown } from './_report.js';
export { skippedGroups, type SkippedGroup, type SkippedQuestion } from './_skipped.js';
export { verifyReceipt, type ReceiptVerification } from './_verify.js';
export { RATES_CSV, TASKS_CSV, TIME_CSV, TOTALS_CSV, experimentCsvFiles } from './_csv-tables.js';
export { verifyReceiptAndExports } from './_verify-csv.js';
export { buildRunCost, renderCostMarkdown, type QuestionCost, type RunCost } from './_cost.js';
