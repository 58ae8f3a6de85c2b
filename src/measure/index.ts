export { BAND_LIMITS, bandFor, type Band } from './_band.js';
export {
  CLAUDE_DIVERGENCE_METHOD,
  addClaudeDivergence,
  claudeDivergence,
  claudeProjection,
  projectionFigures,
  type AnthropicToolProjection,
  type ClaudeBlockOutcome,
  type ClaudeDivergence,
  type ClaudeTokenCounter,
} from './_claude-divergence.js';
export {
  catalogCost,
  type CatalogCost,
  type CatalogCostOptions,
  type SessionStartLoad,
  type ToolCost,
} from './_catalog-cost.js';
export { captureCatalog, type Capture, type CaptureOptions, type CaptureTimings } from './_capture.js';
export {
  DEFAULT_RUNS,
  DEFAULT_TIMEOUT_MS,
  METHODOLOGY,
  measureServer,
  recordedLaunch,
  type AttemptSummary,
  type CaptureRedaction,
  type IsolationKind,
  type MeasureOptions,
  type Measurement,
  type RecordedLaunch,
  type RecordedRemoteLaunch,
  type RecordedStdioLaunch,
} from './_measure.js';
export {
  MAX_NOTE_CHARS,
  MEASUREMENT_STATUSES,
  RECORD_STATUSES,
  classifyFailure,
  plural,
  printableText,
  type FailureVerdict,
  type MeasurementStatus,
  type RecordStatus,
} from './_status.js';
export {
  MEASUREMENT_FILE,
  checkMeasurementTarget,
  measurementJson,
  measurementPath,
  safeSegment,
  writeMeasurement,
} from './_files.js';
export { loadServersFile, remoteTransportOfType, type NotApplicable, type ServerEntry, type ServersFile } from './_servers-file.js';
export {
  verifyDirectory,
  verifyFile,
  verifyMeasurement,
  type VerifyDifference,
  type VerifyReport,
} from './_verify.js';
export { type FieldCost } from './_field-cost.js';
export {
  INSPECTION_STATUSES,
  inspectResult,
  type InspectResultOptions,
  type InspectionDetails,
  type InspectionStatus,
  type ResultInspection,
} from './_inspect-result.js';
export {
  ERROR_TEXT_CHARS,
  resultCost,
  type ContentBlockCost,
  type ContentCost,
  type ResultCost,
  type ResultEstimate,
  type ResultPayload,
} from './_result-cost.js';
export {
  ANSWER_SHARE,
  IDENTIFYING_KEYS,
  PREVIEW_CHARS,
  SHORT_TEXT_CHARS,
  type DroppedField,
  type ProjectionSuggestion,
  type SuggestedField,
} from './_suggest-projection.js';
