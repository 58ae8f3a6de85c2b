export { McpctxError, isMcpctxError, type McpctxErrorCode } from '../errors/index.js';
export {
  DEFAULT_CAP_TOKENS,
  DEFAULT_SEARCH_TOP_K,
  DEFAULT_SEPARATOR,
  DROPPABLE_TOOL_KEYS,
  type ConfigProblem,
  type DroppableToolKey,
  type GatewayConfig,
  type HttpUpstream,
  type NamePatterns,
  type ResolvedUpstream,
  type SearchSettings,
  type StdioUpstream,
  type ToolRules,
  type UpstreamSpec,
} from './_config-types.js';
export { MAX_CONFIG_BYTES, configForCommand, loadGatewayConfig, parseGatewayConfig } from './_config.js';
export { resolveUpstream } from './_env-templates.js';
export { isNamespaced, isToolAllowed, matchesGlob, splitVisibleName, toolRulesFor, visibleToolName } from './_name-patterns.js';
export { describeEffectiveRules, type EffectiveRules, type EffectiveToolRules, type EffectiveUpstream } from './_effective-rules.js';
export { applyToolRules, capTextTokens, type ToolChange } from './_tool-rules.js';
export {
  MAX_RECEIPT_ARGS_CHARS,
  RECEIPT_ACTIONS,
  ReceiptWriter,
  type Receipt,
  type ReceiptAction,
  type ReceiptWriterOptions,
  type ReceiptsClosed,
} from './_receipts.js';
export { LIST_ROW_TOOL, OTHER_TOOLS_ROW, readGatewayReport, type GatewayReport, type GatewayReportRow, type GatewayReportTotals } from './_report.js';
export { type FrontConnection, type FrontSendOptions, type JsonRpcMessage } from './_front.js';
export { startHttpFront, type HttpFront, type HttpFrontOptions } from './_http-front.js';
export { ResultShaper, DEFAULT_MAX_BINARY_BYTES } from './_result-shaper.js';
export type { ResultAction, ResultContext, ResultRules, ShapeOutcome } from './_result-types.js';
export { createMemoryStore, DEFAULT_MAX_BYTES, DEFAULT_TTL_MS, type OffloadStore, type OffloadStoreOptions, type StorePut } from './_offload-store.js';
export { createSqliteStore } from './_sqlite-store.js';
export { READ_PAGE_TOKENS, READ_RESULT_TOOL } from './_read-result.js';
export { PATH_SYNTAX } from './_json-select.js';
export { DEFAULT_TIMEOUTS, startGateway, type GatewayFront, type GatewayOptions, type RunningGateway } from './_gateway.js';
export { StdioFront, type StdioFrontOptions } from './_stdio-front.js';
export { TOOLS_PAGE_SIZE } from './_session-tools.js';
