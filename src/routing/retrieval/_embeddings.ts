import { McpctxError } from '../../errors/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';
import { toolText, type Retriever } from './_retrieval.js';
import type { EmbeddingsSettings, RoutingTool } from '../_types.js';
import { redactUrl, redactUrlIn } from '../../mcp/index.js';

export interface EmbeddingsRetrieverOptions {
  /** Where the API key variable named by `apiKeyEnv` is read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** fetch to use (tests); default globalThis.fetch. */
  fetch?: typeof fetch;
}

/** Longest error body quoted in a message. */
const QUOTED_BODY_CHARS = 300;

/**
 * Ranks tools by the cosine similarity of their embedding to the request's, from an
 * OpenAI-compatible `POST {baseUrl}/embeddings` (`{model, input: [texts]}` → `data[].embedding`),
 * as Ollama, vLLM and OpenAI serve it. Each distinct text is embedded once per retriever (tools
 * repeat across every condition), in batches of `batchSize`, each request under `timeoutMs`.
 * Ties are broken by name, so a ranking is as deterministic as the vectors it is given.
 */
export function embeddingsRetriever(settings: EmbeddingsSettings, options: EmbeddingsRetrieverOptions = {}): Retriever {
  const doFetch = options.fetch ?? globalThis.fetch;
  const env = options.env ?? process.env;
  const vectors = new Map<string, readonly number[]>();
  const url = `${settings.baseUrl}/embeddings`;
  // What messages and error data name: no user, password or credential query value of the base URL.
  const shownUrl = redactUrl(url).url;

  async function embed(texts: readonly string[]): Promise<void> {
    const missing = [...new Set(texts)].filter((text) => !vectors.has(text));
    for (let start = 0; start < missing.length; start += settings.batchSize) {
      const batch = missing.slice(start, start + settings.batchSize);
      const embedded = await post(batch);
      batch.forEach((text, index) => vectors.set(text, embedded[index]!));
    }
  }

  async function post(input: readonly string[]): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (settings.apiKeyEnv !== undefined) {
      const key = ownValue(env, settings.apiKeyEnv);
      if (key === undefined || key === '') throw new McpctxError('MISSING_KEY', `The embeddings endpoint needs an API key in ${settings.apiKeyEnv}, which is not set`, { env: settings.apiKeyEnv });
      headers.authorization = `Bearer ${key}`;
    }
    let response: Response;
    let body: string;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: settings.model, input }),
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
      body = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const why = timedOut ? `no answer within ${settings.timeoutMs} ms` : redactUrlIn((error as Error).message, url);
      throw new McpctxError('PROVIDER_ERROR', `Embeddings request to ${shownUrl} failed: ${why}`, { url: shownUrl });
    }
    if (!response.ok) throw new McpctxError('PROVIDER_ERROR', `Embeddings endpoint ${shownUrl} answered HTTP ${response.status}: ${body.slice(0, QUOTED_BODY_CHARS)}`, { url: shownUrl, status: response.status });
    return vectorsOf(body, input.length, shownUrl);
  }

  return {
    name: 'embeddings',
    async rank(query, tools) {
      await embed([...tools.map(toolText), query]);
      return cosineRanking(vectors.get(query)!, tools, (text) => vectors.get(text)!);
    },
    embedded: () => [...vectors].map(([text, vector]) => ({ text, vector })),
  };
}

/**
 * Tools by the cosine similarity of their text's vector to the query's, best first, ties broken by
 * name: what the retriever returns, and what verify ranks again from the recorded vectors.
 */
export function cosineRanking(queryVector: readonly number[], tools: readonly RoutingTool[], vectorOf: (text: string) => readonly number[]): string[] {
  const scored = tools.map((tool) => ({ name: tool.name, score: cosine(queryVector, vectorOf(toolText(tool))) }));
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.map((entry) => entry.name);
}



/** The vectors of an embeddings response, in input order (by `index` when given), all of one length. */
function vectorsOf(body: string, count: number, url: string): number[][] {
  const fail = (why: string): McpctxError => new McpctxError('PROVIDER_ERROR', `Embeddings endpoint ${url} answered ${why}`, { url });
  let document: unknown;
  try {
    document = JSON.parse(body) as unknown;
  } catch {
    throw fail('something that is not JSON');
  }
  if (!isPlainObject(document) || !Array.isArray(document.data) || document.data.length !== count) throw fail(`without a data list of ${count} embeddings`);
  const vectors: number[][] = new Array<number[]>(count);
  document.data.forEach((item: unknown, position) => {
    if (!isPlainObject(item) || !Array.isArray(item.embedding) || item.embedding.length === 0 || !item.embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      throw fail(`an embedding at data[${position}] that is not a list of numbers`);
    }
    const index = item.index === undefined ? position : item.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) throw fail(`a bad or repeated index at data[${position}]`);
    vectors[index] = item.embedding as number[];
  });
  if (vectors.some((vector) => vector.length !== vectors[0]!.length)) throw fail('embeddings of different lengths');
  return vectors;
}

/** Cosine similarity; 0 for a zero vector or vectors of different lengths. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index]! * b[index]!;
    normA += a[index]! * a[index]!;
    normB += b[index]! * b[index]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
