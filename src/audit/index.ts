// `mcpctx audit`: what the MCP servers configured on a machine cost each client session, and who
// defers them. Discovery (`_places.ts`, `_read-config.ts`), measuring once per launch
// (`_measure-entries.ts`), sessions and totals (`_sessions.ts`), Claude Code's deferral posture
// (`_claude-settings.ts`, `_deferral.ts`), vendor records (`_vendor-records.ts`), and the joins to
// published results (`_changed.ts`, `_suggest.ts`).
export {
  AUDIT_METHOD,
  audit,
  resolveRoots,
  type AuditEntry,
  type AuditOptions,
  type AuditPlace,
  type AuditReport,
  type AuditSession,
  type AuditSettingsFile,
  type MeasurementSummary,
  type SessionDeferral,
} from './_audit.js';
export type { ChangeRow, ChangeState } from './_changed.js';
export { CLAUDE_DIVERGENCE_BAND, DEFAULT_CONTEXT_WINDOW, deferralPosture, thresholdVerdict } from './_deferral.js';
export type { Unmeasured } from './_measure-entries.js';
export type { AllowVerdict, SessionTotals, Totals } from './_sessions.js';
export { SUGGEST_AT_PERCENTILE, type DescriptionSuggestion, type SuggestReport } from './_suggest.js';
export {
  CLIENT_IDS,
  type AuditPlatform,
  type AuditRoots,
  type ClientId,
  type ConfigEntry,
  type DeferralPosture,
  type PlaceState,
  type PostureEvidence,
  type PostureRefusal,
  type SettingsSource,
} from './_types.js';
export { DEFERRAL_RECORDS, NO_RECORD, type DeferralRecord, type NoRecord, type RecordSource } from './_vendor-records.js';
