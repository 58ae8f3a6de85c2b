import { buildConditions, conditionTools, requestCatalog } from './_catalogs.js';
import { embeddingsRetriever, type EmbeddingsRetrieverOptions } from './retrieval/index.js';
import { bm25Retriever, completeRanking, recallTable, type EmbeddedText, type RecallCell, type RetrievalRow, type Retriever } from './retrieval/index.js';
import type { Condition, RequestCatalog, RoutingConfig, RoutingTools } from './_types.js';

/** The retrievers a config lists, built from its settings. */
export function configuredRetrievers(config: RoutingConfig, options: EmbeddingsRetrieverOptions = {}): Retriever[] {
  return config.retrieval.retrievers.map((name) =>
    name === 'bm25' ? bm25Retriever(config.retrieval.bm25) : embeddingsRetriever(config.retrieval.embeddings!, options),
  );
}

/** The catalogs of a run: every condition, and every request's own order in each. */
export interface RoutingCatalogs {
  readonly conditions: readonly Condition[];
  readonly catalogs: readonly RequestCatalog[];
}

export function routingCatalogs(config: RoutingConfig, tools: RoutingTools): RoutingCatalogs {
  const conditions = buildConditions(config, tools);
  const catalogs = conditions.flatMap((condition) => config.requests.map((request) => requestCatalog(config.seed, condition, tools.domain, request)));
  return { conditions, catalogs };
}

export interface RetrievalResults {
  readonly rows: readonly RetrievalRow[];
  readonly recall: readonly RecallCell[];
  /** The vectors the embeddings retriever ranked with (empty without one). */
  readonly embeddings: readonly EmbeddedText[];
}

/**
 * Ranks every condition's catalog for every request with each retriever, completed past what the
 * retriever found with the request's own catalog order (so the top k is always k tools, or the
 * whole catalog), and reports recall@k per retriever, kind and size. Needs no model: this is what
 * an offline run prints.
 */
export async function runRetrieval(config: RoutingConfig, tools: RoutingTools, conditions: readonly Condition[], retrievers: readonly Retriever[]): Promise<RetrievalResults> {
  const keep = Math.max(config.retrieval.topK, ...config.retrieval.recallAt);
  const rows: RetrievalRow[] = [];
  for (const retriever of retrievers) {
    for (const condition of conditions) {
      const offered = conditionTools(condition, tools);
      for (const request of config.requests) {
        const catalog = requestCatalog(config.seed, condition, tools.domain, request);
        const { ranking, matched } = completeRanking(await retriever.rank(request.text, offered), catalog.order);
        const position = request.tool === null ? -1 : ranking.indexOf(request.tool);
        rows.push({
          retriever: retriever.name,
          kind: condition.kind,
          size: condition.size,
          requestId: request.id,
          expected: request.tool,
          top: ranking.slice(0, keep),
          matched,
          rank: position === -1 ? null : position + 1,
        });
      }
    }
  }
  const embeddings = retrievers.flatMap((retriever) => (retriever.name === 'embeddings' ? (retriever.embedded?.() ?? []) : []));
  return { rows, recall: recallTable(rows, config.retrieval.recallAt), embeddings };
}
