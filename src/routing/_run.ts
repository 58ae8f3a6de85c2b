import { distractorKinds } from './_catalogs.js';
import type { EmbeddingsRetrieverOptions } from './_embeddings.js';
import type { RecallCell, RetrievalRow, Retriever } from './_retrieval.js';
import { configuredRetrievers, routingCatalogs, runRetrieval } from './_retrieval-run.js';
import { loadRoutingTools } from './_tools.js';
import type { Condition, DistractorKind, RequestCatalog, RoutingConfig, RoutingTools } from './_types.js';

export interface RoutingRunOptions extends EmbeddingsRetrieverOptions {
  config: RoutingConfig;
  /** The tools, when already loaded; default: loaded from the config's sources. */
  tools?: RoutingTools;
  /** Default: the retrievers the config lists. */
  retrievers?: readonly Retriever[];
}

/** Everything an offline run decides and finds: the catalogs each request saw and where each retriever ranked its tool. */
export interface RoutingRun {
  readonly seed: number;
  readonly sizes: readonly number[];
  readonly kinds: readonly DistractorKind[];
  readonly recallAt: readonly number[];
  readonly tools: { readonly domain: readonly string[]; readonly unrelated: readonly string[]; readonly confusable: readonly string[] };
  readonly conditions: readonly Condition[];
  readonly catalogs: readonly RequestCatalog[];
  readonly retrieval: readonly RetrievalRow[];
  readonly recall: readonly RecallCell[];
}

/**
 * The offline part of a routing run: loads the tools, builds every condition's catalogs with the
 * config's seed, and ranks them with every retriever. The same config and seed give the same
 * catalogs and rankings, byte for byte (embeddings: as far as the endpoint's vectors repeat).
 */
export async function runRouting(options: RoutingRunOptions): Promise<RoutingRun> {
  const { config } = options;
  const tools = options.tools ?? (await loadRoutingTools(config));
  const { conditions, catalogs } = routingCatalogs(config, tools);
  const retrievers = options.retrievers ?? configuredRetrievers(config, options);
  const retrieval = await runRetrieval(config, tools, conditions, retrievers);
  const names = (list: RoutingTools[keyof RoutingTools]): string[] => list.map((tool) => tool.name);
  return {
    seed: config.seed,
    sizes: config.sizes,
    kinds: distractorKinds(config),
    recallAt: config.retrieval.recallAt,
    tools: { domain: names(tools.domain), unrelated: names(tools.unrelated), confusable: names(tools.confusable) },
    conditions,
    catalogs,
    retrieval: retrieval.rows,
    recall: retrieval.recall,
  };
}
