// mcpctx/routing: the tool-selection experiment. A domain's tools padded with unrelated or
// confusable distractors to several catalog sizes, a seeded order per request, and retrieval
// (BM25 through toolsearch's ToolIndex, or embeddings) with recall@k per size and kind.
// Public: loading a config, running it, the receipt (write, verify), the retrievers and the
// `Retriever` interface, the planned requests and the interval; the steps (seeded order,
// catalogs, protocols, scoring, tables) stay in their files and the subfolder indexes.
export { loadRoutingConfig, type ConfigProblem } from './config/index.js';
export {
  bm25Retriever,
  embeddingsRetriever,
  type EmbeddingsRetrieverOptions,
  type RecallCell,
  type RetrievalRow,
  type Retriever,
} from './retrieval/index.js';
export type { RetrievalResults, RoutingCatalogs } from './_retrieval-run.js';
export { runRouting, type RoutingRun, type RoutingRunOptions } from './_run.js';
export type {
  Condition,
  DistractorKind,
  EmbeddingsSettings,
  ModelSettings,
  ProtocolName,
  RequestCatalog,
  RetrievalSettings,
  RetrieverName,
  RoutingConfig,
  RoutingRequest,
  RoutingTool,
  RoutingTools,
  ToolSource,
} from './_types.js';
export { wilsonInterval } from '../stats/index.js';
export type { AccuracyCell, ModelRow, Outcome } from './_score.js';
export { plannedCalls, type ModelRunFailure, type ModelRunResult, type PlanInput, type PlannedCall } from './_model-run.js';
export type { CatalogCost } from './_catalog-cost.js';
export {
  RECEIPT_FILE,
  readVerifiedRoutingReceipt,
  routingReceipt,
  verifyRoutingReceipt,
  verifyRoutingReceiptFile,
  writeRoutingOutput,
  type ReceiptDifference,
  type ReceiptVerification,
  type RoutingReceipt,
} from './report/index.js';
