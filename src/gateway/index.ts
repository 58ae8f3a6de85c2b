// `mcpctx/gateway`: run the gateway in a process of your own (`startGateway`), and its parts a
// program may use alone: the config, the effective rules, the report, the result shaper with its
// stores, the HTTP front and the pins. Everything else is reached through the subfolder indexes
// (catalog/, config/, front/, receipts/, results/, trust/, upstream/), which are the internal surface.
export { McpctxError, isMcpctxError, type McpctxErrorCode } from '../errors/index.js';
export { readGatewayReport, type GatewayReport, type GatewayReportRow, type GatewayReportTotals } from './receipts/index.js';
export { prepareUpstreams, type PreparedUpstreams } from './upstream/index.js';
export { startGateway, type GatewayFront, type GatewayOptions, type RunningGateway } from './_gateway.js';
export {
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
  loadGatewayConfig,
  parseGatewayConfig,
  describeEffectiveRules,
  type EffectiveRules,
  type EffectiveToolRules,
  type EffectiveUpstream,
} from './config/index.js';
export {
  type FrontConnection,
  type FrontSendOptions,
  type JsonRpcMessage,
  startHttpFront,
  type HttpFront,
  type HttpFrontOptions,
} from './front/index.js';
export {
  ResultShaper,
  type ResultAction,
  type ResultContext,
  type ResultRules,
  type ShapeOutcome,
  createMemoryStore,
  type OffloadStore,
  type OffloadStoreOptions,
  type StorePut,
  createSqliteStore,
} from './results/index.js';
export {
  checkCatalog,
  managePins,
  readPinFile,
  toolFingerprint,
  writePinFile,
  type CatalogCheck,
  type FieldChange,
  type HeldTool,
  type PinFile,
  type PinListing,
  type PinMode,
} from './trust/index.js';
