// `mcpctx audit`: what the MCP servers configured on a machine cost each client session, and who
// defers them. Discovery (`_places.ts`, `_read-config.ts`), measuring once per launch
// (`_measure-entries.ts`), sessions and totals (`_sessions.ts`), Claude Code's deferral posture
// (`_claude-settings.ts`, `_deferral.ts`, exact Claude counts in `_claude-counts.ts`), vendor records (`_vendor-records.ts`), and the joins to
// published results (`_changed.ts`, `_suggest.ts`). Public: `audit` and the types of its options
// and report; the steps stay in their files.
export {
  audit,
  type AuditEntry,
  type AuditOptions,
  type AuditPlace,
  type AuditReport,
  type AuditSession,
  type AuditSettingsFile,
  type MeasurementSummary,
  type SessionDeferral,
  type StartLoad,
  type ThresholdConversion,
  resolveRoots,
} from './_audit.js';
// For `gateway wrap`: one client's session read as audit reads it, the rules audit proposes, and
// the manifest a wrapped file carries.
export { measureEntryTokens, readClientSession, type ClientSession } from './_client-session.js';
export { DEFAULT_SEARCH_ABOVE, proposeGatewayRules, type GatewayRuleOptions, type ProposedGateway, type RuleInput } from './_gateway-rules.js';
export { WRAP_BACKUP_SUFFIX, WRAP_METHOD, readWrapManifest, wrapManifestPath, type SessionWrapped, type WrapManifest } from './_wrapped.js';
export { whyNotLaunched } from './_measure-entries.js';
export type { AuditBudget, BudgetVerdict, SessionBudget } from './_budget.js';
export type { ChangeRow, ChangeState } from './_changed.js';
export type { AuditServer, ServerTotal } from './_servers.js';
export type { Unmeasured } from './_measure-entries.js';
export type { AllowVerdict, SessionComposition, SessionTotals, Totals } from './_sessions.js';
export type { DescriptionSuggestion, SuggestReport } from './_suggest.js';
export type {
  AuditPlatform,
  AuditRoots,
  ClientId,
  ConfigEntry,
  ConfigFormat,
  ConfigPlace,
  PlaceReport,
  DeferralPosture,
  PlaceState,
  PostureEvidence,
  PostureRefusal,
  SettingsSource,
} from './_types.js';
export type { DeferralRecord, NoRecord, RecordSource } from './_vendor-records.js';
