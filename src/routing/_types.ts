import type { LaunchSpec } from '../mcp/index.js';
import type { ModelPrice } from '../pricing/index.js';

/** One tool as routing offers, ranks and renders it: the MCP `Tool` fields that reach a model. */
export interface RoutingTool {
  readonly name: string;
  readonly description?: string;
  readonly title?: string;
  /** JSON Schema of the arguments (MCP's `inputSchema`); `{type: "object"}` when a tool gave none. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/**
 * How a catalog is padded: `unrelated` with tools from other domains only; `confusable` with the
 * tools that resemble a domain tool first, then unrelated ones; `none` when the config names no
 * pool (every size must then be the domain's own size).
 */
export type DistractorKind = 'unrelated' | 'confusable' | 'none';
export const DISTRACTOR_KINDS: readonly DistractorKind[] = ['unrelated', 'confusable', 'none'];

/** Native: the tools field. Constrained: names and descriptions in the prompt, the answer a schema enum. Retrieval: the top k natively. */
export type ProtocolName = 'native' | 'constrained' | 'retrieval';
export const PROTOCOL_NAMES: readonly ProtocolName[] = ['native', 'constrained', 'retrieval'];

export type RetrieverName = 'bm25' | 'embeddings';
export const RETRIEVER_NAMES: readonly RetrieverName[] = ['bm25', 'embeddings'];

/** Where a set of tools comes from. Paths are resolved against the config file's folder. */
export type ToolSource =
  | { readonly kind: 'catalog'; readonly file: string }
  | { readonly kind: 'server'; readonly launch: LaunchSpec; readonly timeoutMs: number }
  | { readonly kind: 'inline'; readonly tools: readonly unknown[] };

export interface RoutingRequest {
  readonly id: string;
  readonly text: string;
  /** The tool that answers it, or null for a request that needs no tool (`tool: none`). */
  readonly tool: string | null;
}

export interface EmbeddingsSettings {
  /** OpenAI-compatible API base, e.g. http://127.0.0.1:11434/v1 for Ollama; `/embeddings` is appended. */
  readonly baseUrl: string;
  readonly model: string;
  /** NAME of the env variable holding the API key, if the endpoint wants one (never the key). */
  readonly apiKeyEnv?: string;
  /** Texts per request to the endpoint. */
  readonly batchSize: number;
  /** Deadline of one request to the endpoint, in ms. */
  readonly timeoutMs: number;
}

export interface RetrievalSettings {
  readonly retrievers: readonly RetrieverName[];
  /** The k of each recall@k reported. */
  readonly recallAt: readonly number[];
  /** Tools the retrieval protocol offers. */
  readonly topK: number;
  /** BM25 (the gateway's ToolIndex): everyday-word bridge on or off, and its score floor. */
  readonly bm25: { readonly vocabulary: boolean; readonly minScore: number };
  readonly embeddings?: EmbeddingsSettings;
}

export interface ModelSettings {
  readonly maxTokens: number;
  readonly temperature?: number;
  /** Per call to the provider, retries included. */
  readonly timeoutMs: number;
}

export interface RoutingConfig {
  /** The config file, absolute, when it was read from one. */
  readonly file?: string;
  readonly seed: number;
  readonly domain: ToolSource;
  readonly distractors: { readonly unrelated?: ToolSource; readonly confusable?: ToolSource };
  readonly requests: readonly RoutingRequest[];
  readonly sizes: readonly number[];
  readonly protocols: readonly ProtocolName[];
  readonly retrieval: RetrievalSettings;
  readonly model: ModelSettings;
  /** Times the model is asked each request per protocol and condition (default 1); retrieval is deterministic and ranks once. */
  readonly repeat?: number;
  /** Model prices over the bundled table's (`prices:`); empty when the config gives none. */
  readonly prices: readonly ModelPrice[];
}

/** The tools a config names, loaded and checked. */
export interface RoutingTools {
  readonly domain: readonly RoutingTool[];
  readonly unrelated: readonly RoutingTool[];
  readonly confusable: readonly RoutingTool[];
}

/** One catalog condition: a kind of padding at one size, the same tool set for every request. */
export interface Condition {
  readonly kind: DistractorKind;
  readonly size: number;
  /** The distractors added to the domain tools, in the order they were taken from the pools. */
  readonly distractors: readonly string[];
}

/** What one request is offered in one condition: the catalog in its own seeded order. */
export interface RequestCatalog {
  readonly requestId: string;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly order: readonly string[];
}
