export { BAND_LIMITS, bandFor, type Band } from './_band.js';
export {
  addClaudeDivergence,
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
  type RecordedLaunchOptions,
  type RecordedRemoteLaunch,
  type RecordedStdioLaunch,
} from './_measure.js';
export {
  PROBE_CAPABILITIES,
  PROBE_METHOD,
  SAMPLING_PROBE_REFUSAL,
  checkProbeCapabilities,
  probeCapabilities,
  toolDifferences,
  type CapabilityProbe,
  type CapabilityProbeResult,
  type ProbeCapability,
  type ProbeOptions,
  type ProbeSide,
  type ToolDifference,
} from './_probe.js';
export {
  RECORD_STATUSES,
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
export type { FieldCost } from './_field-cost.js';
export {
  inspectResult,
  type InspectResultOptions,
  type InspectionDetails,
  type InspectionStatus,
  type ResultInspection,
} from './_inspect-result.js';
export type { ContentBlockCost, ContentCost, ResultCost, ResultEstimate, ResultPayload } from './_result-cost.js';
export type { DroppedField, ProjectionSuggestion, SuggestedField } from './_suggest-projection.js';
