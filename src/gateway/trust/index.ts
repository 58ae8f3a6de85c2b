// Gateway trust: tool definitions pinned by hash and approved by the user (pins), tool arguments
// checked against their schemas (ajv), and the poisoning scan of every string in a definition
// (pure, in scan/).
export {
  INSTRUCTIONS_KEY,
  PIN_FILE_FORMAT,
  PIN_KINDS,
  SHA_PREFIX_CHARS,
  allPending,
  approvePending,
  checkCatalog,
  checkItems,
  displayKey,
  emptyPinFile,
  fieldChanges,
  markShown,
  rejectPending,
  resolvePending,
  toolFingerprint,
  toolName,
  type CatalogCheck,
  type FieldChange,
  type HeldTool,
  type PendingTool,
  type PinFile,
  type PinItem,
  type PinKind,
  type PinMode,
  type PinSection,
  type PinTarget,
  type ToolPin,
  type UpstreamPins,
} from './_pins.js';
export { MAX_PIN_FILE_BYTES, parsePinText, pinText, readPinFile, writePinFile, type PinFileRead } from './_pin-file.js';
export { pinFileDocument, seedSharedPins, type LockedPins, type PinDocument } from './_pin-document.js';
export { LOCK_WAIT_MS, STALE_MS, withPinFileLock } from './_pin-lock.js';
export { managePins, type ManagePinsOptions, type PinChange, type PinListing, type PinRefusal } from './_manage-pins.js';
export { type CatalogFilter } from './_catalog-filter.js';
export { PinStore, type ItemFilter } from './_pin-store.js';
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
export { MAX_PATTERN_CHARS, MAX_PATTERN_PROGRAM, PATTERN_CHECK_BUDGET, estimatedProgramSize } from './_linear-patterns.js';
export {
  ArgumentChecker,
  MAX_SCHEMA_CHARS,
  MAX_SCHEMA_DEPTH,
  SchemaCache,
  argumentRefusalText,
  type ArgumentCheck,
  type ArgumentProblem,
  type UncheckedTool,
} from './_arguments.js';
