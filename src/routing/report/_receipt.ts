import type { RoutingRun } from '../_run.js';
import type { ModelSettings, RetrievalSettings, RoutingConfig } from '../_types.js';

export const RECEIPT_FORMAT = 'mcpctx-routing-receipt';
export const RECEIPT_VERSION = 2;

/** One figure `routing verify` recomputed differently from the receipt. */
export interface ReceiptDifference {
  /** Where: `tables.accuracy[3].counts`, `answers[17].outcome`, `catalogs[5].order`... */
  readonly field: string;
  readonly recorded: unknown;
  readonly recomputed: unknown;
}

/**
 * Everything a routing run used and found, enough to recompute every table without the config,
 * the catalogs' files, the retriever or the model: the tool definitions, the requests, the seed
 * (every catalog order re-derives from it), each retriever's ranking, each model answer with its
 * raw response, usage and score, and the tables computed from those rows.
 */
export interface RoutingReceipt extends RoutingRun {
  readonly format: typeof RECEIPT_FORMAT;
  readonly version: typeof RECEIPT_VERSION;
  /** When the run ended (the only time in the receipt). */
  readonly measuredAt: string;
  readonly configFile: string | null;
  /** The retrieval settings (the embeddings endpoint's key variable NAME at most, never a key). */
  readonly retrievalSettings: RetrievalSettings;
  readonly modelSettings: ModelSettings;
}

export function routingReceipt(run: RoutingRun, config: RoutingConfig, measuredAt: Date = new Date()): RoutingReceipt {
  return {
    format: RECEIPT_FORMAT,
    version: RECEIPT_VERSION,
    measuredAt: measuredAt.toISOString(),
    configFile: config.file ?? null,
    retrievalSettings: config.retrieval,
    modelSettings: config.model,
    ...run,
  };
}
