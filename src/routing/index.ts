// mcpctx/routing: the tool-selection experiment. A domain's tools padded with unrelated or
// confusable distractors to several catalog sizes, a seeded order per request, and retrieval
// (BM25 through toolsearch's ToolIndex, or embeddings) with recall@k per size and kind.
export {
  DEFAULT_BM25_MIN_SCORE,
  DEFAULT_RECALL_AT,
  DEFAULT_SIZES,
  DEFAULT_TOP_K,
  MAX_CATALOG_SIZE,
  MAX_CONFIG_BYTES,
  MAX_REQUESTS,
  NO_TOOL,
  loadRoutingConfig,
  parseRoutingConfig,
  type ConfigProblem,
} from './_config.js';
export { MAX_CATALOG_FILE_BYTES, MAX_SOURCE_TOOLS, loadRoutingTools, toolsOfCatalog } from './_tools.js';
export { Xorshift32, seededShuffle, streamFor } from './_prng.js';
export { buildConditions, conditionTools, distractorKinds, requestCatalog } from './_catalogs.js';
export { bm25Retriever, recallTable, toolText, type RecallCell, type RetrievalRow, type Retriever } from './_retrieval.js';
export { cosine, embeddingsRetriever, type EmbeddingsRetrieverOptions } from './_embeddings.js';
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
export { plannedCalls, runModel, type ModelRunOptions, type PlanInput, type PlannedCall } from './_model-run.js';
export { catalogCosts, type CatalogCost } from './_catalog-cost.js';
export { RECEIPT_FORMAT, RECEIPT_VERSION, routingReceipt, type RoutingReceipt } from './_receipt.js';
export { MAX_RECEIPT_BYTES, verifyRoutingReceipt, verifyRoutingReceiptFile, type ReceiptDifference, type ReceiptVerification } from './_verify.js';
export { routingChart } from './_chart.js';
export { CHART_FILE, RECEIPT_FILE, REPORT_FILE, routingMarkdown, writeRoutingOutput } from './_report.js';
