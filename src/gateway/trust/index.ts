// Gateway trust: tool definitions pinned by hash and approved by the user (pins), tool arguments
// checked against their schemas (ajv), and the poisoning scan of every string in a definition
// (pure, in scan/).
export {
  PIN_FILE_FORMAT,
  allPending,
  approvePending,
  checkCatalog,
  emptyPinFile,
  fieldChanges,
  rejectPending,
  resolvePending,
  toolFingerprint,
  toolName,
  type CatalogCheck,
  type FieldChange,
  type HeldTool,
  type PendingTool,
  type PinFile,
  type PinMode,
  type PinTarget,
  type ToolPin,
  type UpstreamPins,
} from './_pins.js';
export { MAX_PIN_FILE_BYTES, readPinFile, writePinFile, type PinFileRead } from './_pin-file.js';
export { managePins, type ManagePinsOptions, type PinListing } from './_manage-pins.js';
export { type CatalogFilter } from './_catalog-filter.js';
export { PinStore } from './_pin-store.js';
export { confirmationRefusal, confirmationRequest, isDestructive } from './_confirm.js';
export { ScanGate, type ScanMode } from './_scan-gate.js';
export {
  DEFAULT_SCAN_LIMITS,
  MAX_EXCERPT_CHARS,
  POISONING_RULES,
  SCAN_LIMIT_RULE_ID,
  escapeHidden,
  scanCatalog,
  scanText,
  scanTool,
  shadowedNames,
  type Finding,
  type NamedTool,
  type PoisoningRule,
  type PoisoningRuleKind,
  type ScanLimits,
  type ShadowKind,
  type Shadowing,
  type ToolScan,
} from './scan/index.js';
export {
  ArgumentChecker,
  MAX_PATTERN_CHARS,
  MAX_PATTERN_PROGRAM,
  MAX_SCHEMA_CHARS,
  MAX_SCHEMA_DEPTH,
  PATTERN_CHECK_BUDGET,
  SchemaCache,
  argumentRefusalText,
  estimatedProgramSize,
  type ArgumentCheck,
  type ArgumentProblem,
  type UncheckedTool,
} from './_arguments.js';
