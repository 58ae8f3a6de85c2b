// Answer-checked experiments: the same questions through a baseline and an optimized MCP server,
// answers checked against a key before any token is compared, and a receipt that
// `verifyReceipt` recomputes from its rows alone.
export * from './_types.js';
export { runExperiment, type ExperimentProgress, type ExperimentRun, type RunExperimentOptions } from './_run.js';
export { verifyReceipt, type ReceiptVerification } from './_verify.js';
export { buildReport, renderReportMarkdown, questionTotals } from './_report.js';
export { judge } from './_judge.js';
export { loadExperimentConfig, parseExperimentConfig, applyModelOverrides, type ModelOverrides } from './_config.js';
export { RECEIPT_FILE, REPORT_FILE } from './_receipt.js';
