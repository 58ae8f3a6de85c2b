// Answer-checked experiments: the same questions through a baseline and an optimized MCP server,
// answers checked against a key before any token is compared, and a receipt that
// `verifyReceipt` recomputes from its rows alone.
export * from './_types.js';
export { runExperiment, type ExperimentProgress, type ExperimentRun, type RunExperimentOptions } from './_run.js';
export { buildReport, judge, questionTotals, renderReportMarkdown, verifyReceipt, type ReceiptVerification } from './receipt/index.js';
export { applyModelOverrides, loadExperimentConfig, parseExperimentConfig, type ModelOverrides } from './config/index.js';
export { RECEIPT_FILE, REPORT_FILE } from './_receipt.js';
