/**
 * What a routing receipt's rows must be, derived again from what cannot be edited into agreement:
 * the seed and tool definitions (catalogs), BM25 itself (rankings), the plan of calls (which
 * answer comes where, offered what), and each answer's raw response bytes (the choice).
 */
import { McpctxError } from '../../errors/index.js';
import { replayResponse, sentRequestBody, type ProviderName, type ReplayedTurn } from '../../providers/index.js';
import { ToolIndex } from '../../toolsearch/index.js';
import { conditionTools, requestCatalog } from '../_catalogs.js';
import { plannedCalls, type PlannedCall } from '../_model-run.js';
import { bm25Ranking, completeRanking, cosineRanking, toolText, type RetrievalRow } from '../retrieval/index.js';
import type { Condition, RequestCatalog, RoutingConfig, RoutingTool } from '../_types.js';
import type { RoutingReceipt } from './_receipt.js';

/**
 * Every retrieval row in run order (retriever, condition, request). BM25 rows are ranked again
 * with the recorded settings; embeddings rows by cosine from the recorded vectors (ties by name,
 * as the run breaks them; a text without a vector goes into `missingVectors` and ranks nothing).
 * Another retriever (given through the API) cannot be re-run, so its recorded ranking is taken
 * for what it matched and only the rest re-derives.
 */
export function rederivedRetrieval(receipt: RoutingReceipt, conditions: readonly Condition[], missingVectors: Set<string> = new Set()): RetrievalRow[] {
  const keep = Math.max(receipt.topK, ...receipt.recallAt);
  // A custom retriever given through the API is not in the settings; it keeps its place after them.
  const retrievers = [...new Set([...receipt.retrievalSettings.retrievers, ...receipt.retrieval.map((row) => row.retriever)])];
  const rows: RetrievalRow[] = [];
  const vectors = new Map((receipt.embeddings ?? []).map((entry) => [entry.text, entry.vector]));
  for (const retriever of retrievers) {
    for (const condition of conditions) {
      const tools = conditionTools(condition, receipt.tools);
      const index = retriever === 'bm25' ? new ToolIndex(tools, receipt.retrievalSettings.bm25) : null;
      const rerun = index !== null || retriever === 'embeddings';
      for (const request of receipt.requests) {
        const recorded = receipt.retrieval[rows.length];
        const catalog = requestCatalog(receipt.seed, condition, receipt.tools.domain, request);
        const ranked =
          index !== null
            ? bm25Ranking(index, request.text)
            : retriever === 'embeddings'
              ? embeddingsRanking(vectors, request.text, tools, missingVectors)
              : recorded?.retriever === retriever
                ? recorded.top.slice(0, recorded.matched)
                : [];
        const { ranking, matched } = completeRanking(ranked, catalog.order);
        const top = ranking.slice(0, keep);
        rows.push({
          retriever,
          kind: condition.kind,
          size: condition.size,
          requestId: request.id,
          expected: request.tool,
          top,
          matched: rerun ? matched : (recorded?.matched ?? matched),
          rank: rankOf(request.tool, rerun ? ranking : top, recorded?.rank ?? null),
        });
      }
    }
  }
  return rows;
}

/** The cosine ranking from the recorded vectors; none when a text has no vector (it is noted in `missing`). */
function embeddingsRanking(vectors: ReadonlyMap<string, readonly number[]>, query: string, tools: readonly RoutingTool[], missing: Set<string>): string[] {
  const needed = [query, ...tools.map(toolText)].filter((text) => !vectors.has(text));
  if (needed.length > 0) {
    for (const text of needed) missing.add(text);
    return [];
  }
  return cosineRanking(vectors.get(query)!, tools, (text) => vectors.get(text)!);
}

/** 1-based rank of the right tool; past a ranking known only in part, the recorded one if it lies past it. */
function rankOf(tool: string | null, ranking: readonly string[], recorded: number | null): number | null {
  if (tool === null) return null;
  const position = ranking.indexOf(tool);
  if (position !== -1) return position + 1;
  return recorded !== null && recorded > ranking.length ? recorded : null;
}

/** The calls the receipt's run must have made, in order, offered what the re-derived catalogs and rankings give. */
export function rederivedCalls(receipt: RoutingReceipt, conditions: readonly Condition[], catalogs: readonly RequestCatalog[], retrieval: readonly RetrievalRow[], repeat: number): PlannedCall[] {
  const config = {
    repeat,
    protocols: receipt.protocols,
    requests: receipt.requests,
    retrieval: { ...receipt.retrievalSettings, topK: receipt.topK },
    model: receipt.modelSettings,
  } as unknown as RoutingConfig;
  return plannedCalls({ config, tools: receipt.tools, conditions, catalogs, retrieval, model: receipt.model?.name ?? '' });
}

/**
 * An answer as its provider's own assembly reads the recorded response bytes, or why they cannot
 * be read. The replay is given only the model's name as its request, which is all it reads of a
 * request for the content (the recorded body is checked apart, by `rebuiltRequestBody`).
 */
export function replayedAnswer(receipt: RoutingReceipt, rawResponse: string): ReplayedTurn | { unreadable: string } {
  if (receipt.model === null) return { unreadable: 'the receipt names no model, so no answer can be replayed' };
  try {
    const request = JSON.stringify({ model: receipt.model.name });
    return replayResponse(receipt.model.provider as ProviderName, { url: '', request, response: rawResponse, status: 200 });
  } catch (error) {
    if (error instanceof McpctxError) return { unreadable: error.message };
    throw error;
  }
}

/**
 * The request body the answer's provider must have sent for a planned call (its system prompt,
 * offered tools or choice schema, the request's text, max_tokens, model), built by the provider's
 * own request code, as parsed JSON; or why it cannot be.
 */
export function rebuiltRequestBody(receipt: RoutingReceipt, call: PlannedCall): unknown {
  if (receipt.model === null) return { unreadable: 'the receipt names no model' };
  try {
    return sentRequestBody(receipt.model.provider as ProviderName, call.chat);
  } catch (error) {
    if (error instanceof McpctxError) return { unreadable: error.message };
    throw error;
  }
}

/** The recorded request body parsed, or a marker that it is not JSON (so it differs from any rebuilt body). */
export function recordedRequestBody(body: unknown): unknown {
  if (typeof body !== 'string') return { absent: 'no request body recorded' };
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return { unreadable: 'the recorded request body is not JSON' };
  }
}
