// mcpctx/routing: the tool-selection experiment. A domain's tools padded with unrelated or
// confusable distractors to several catalog sizes, a seeded order per request, and retrieval
// (BM25 through toolsearch's ToolIndex, or embeddings) with recall@k per size and kind.
export {
  DEFAULT_BM25_MIN_SCORE,
  DEFAULT_RECALL_AT,
  DEFAULT_SIZES,
  DEFAULT_TOP_K,
  MAX_CATALOG_FILE_BYTES,
  MAX_CATALOG_SIZE,
  MAX_CONFIG_BYTES,
  MAX_REQUESTS,
  MAX_SOURCE_TOOLS,
  NO_TOOL,
  loadRoutingConfig,
  loadRoutingTools,
  parseRoutingConfig,
  toolsOfCatalog,
  type ConfigProblem,
} from './config/index.js';
export { Xorshift32, seededShuffle, streamFor } from './_prng.js';
export { buildConditions, conditionTools, distractorKinds, requestCatalog } from './_catalogs.js';
export {
  bm25Retriever,
  cosine,
  embeddingsRetriever,
  recallTable,
  toolText,
  type EmbeddingsRetrieverOptions,
  type RecallCell,
  type RetrievalRow,
  type Retriever,
} from './retrieval/index.js';
export { configuredRetrievers, routingCatalogs, runRetrieval, type RetrievalResults, type RoutingCatalogs } from './_retrieval-run.js';
export { runRouting, type RoutingRun, type RoutingRunOptions } from './_run.js';
export {
  DISTRACTOR_KINDS,
  PROTOCOL_NAMES,
  RETRIEVER_NAMES,
  type Condition,
  type DistractorKind,
  type EmbeddingsSettings,
  type ModelSettings,
  type ProtocolName,
  type RequestCatalog,
  type RetrievalSettings,
  type RetrieverName,
  type RoutingConfig,
  type RoutingRequest,
  type RoutingTool,
  type RoutingTools,
  type ToolSource,
} from './_types.js';
export {
  CHOICE_SCHEMA_NAME,
  NONE_OF_THESE,
  chatRequestFor,
  choiceListing,
  choiceSchema,
  providerTool,
  readChoice,
  renderedCatalog,
  reportedFirstTokenMs,
  type Choice,
} from './_protocols.js';
export { OUTCOMES, Z_95, accuracyTable, outcomeOf, wilsonInterval, type AccuracyCell, type ModelRow, type Outcome } from './_score.js';
export { plannedCalls, runModel, type ModelRunFailure, type ModelRunOptions, type ModelRunResult, type PlanInput, type PlannedCall } from './_model-run.js';
export { catalogCosts, type CatalogCost } from './_catalog-cost.js';
export {
  ACCURACY_HEADERS,
  ACCURACY_NUMERIC_COLUMNS,
  CHART_FILE,
  accuracyRow,
  MAX_RECEIPT_BYTES,
  RECEIPT_FILE,
  RECEIPT_FORMAT,
  RECEIPT_VERSION,
  REPORT_FILE,
  routingChart,
  routingMarkdown,
  routingReceipt,
  verifyRoutingReceipt,
  verifyRoutingReceiptFile,
  writeRoutingOutput,
  type ReceiptDifference,
  type ReceiptVerification,
  type RoutingReceipt,
} from './report/index.js';
