// Answer-checked experiments: the same questions through a baseline and an optimized MCP server,
// answers checked against a key before any token is compared, and a receipt that
// `verifyReceipt` recomputes from its rows alone. Public: running a config, verifying and
// reporting a receipt, and the config and receipt types (for tools built on the receipts).
export type {
  AnswerChecks,
  Condition,
  ConditionRow,
  ConditionSpec,
  ExperimentConfig,
  ExperimentReceipt,
  ExperimentReport,
  Frame,
  InputFile,
  ModelSpec,
  ProbeCall,
  ProbeRecord,
  PairedTest,
  ProbeSpec,
  QuestionRecord,
  QuestionStatus,
  QuestionTotals,
  RateInterval,
  ResumeRecord,
  Reduction,
  ReductionInterval,
  RepetitionStatistics,
  ReportRow,
  RunStatus,
  ServerRecord,
  SnapshotRecord,
  StageName,
  StageRecord,
  Task,
  TaskKind,
  TaskValidation,
  ToolCallRecord,
  ToolPaths,
  TurnRecord,
  Verdict,
} from './_types.js';
export type { ConditionTime, QuestionTiming, StepTiming } from './_timing-types.js';
export { runExperiment, type ExperimentProgress, type ExperimentRun, type RunExperimentOptions } from './_run.js';
export { buildReport, buildRunCost, experimentCsvFiles, judge, renderReportMarkdown, verifyReceipt, verifyReceiptAndExports, type QuestionCost, type ReceiptVerification, type RunCost } from './receipt/index.js';
export { MAX_REPEAT, loadExperimentConfig, type ModelOverrides } from './config/index.js';
