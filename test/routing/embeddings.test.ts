import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { embeddingsRetriever, routingReceipt, runRouting, verifyRoutingReceipt, type RoutingReceipt, type RoutingTool } from '../../src/routing/index.js';
import { recallTable } from '../../src/routing/retrieval/index.js';
import { cosine, toolText } from '../../src/routing/retrieval/index.js';
import { parseRoutingConfig } from '../../src/routing/config/index.js';

// A loopback stand-in for an OpenAI-compatible /embeddings endpoint: each text's vector counts
// a few marker words, so which tool is nearest a query is known in advance.
const MARKERS = ['stock', 'words', 'message', 'weather'];
function vectorOf(text: string): number[] {
  const lower = text.toLowerCase();
  return [...MARKERS.map((word) => (lower.includes(word) ? 1 : 0)), 0.01];
}

interface Seen {
  path: string;
  authorization: string | undefined;
  body: { model: string; input: string[] };
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let mode: 'ok' | 'error' | 'short' | 'hang' = 'ok';

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(raw) as Seen['body'];
      seen.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
      if (mode === 'hang') return;
      if (mode === 'error') {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model not loaded"}');
        return;
      }
      const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }));
      // Answered in reverse order: the retriever must place each vector by its index.
      const answer = mode === 'short' ? data.slice(1) : [...data].reverse();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: answer, model: body.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const TOOLS: RoutingTool[] = [
  { name: 'stock_level', description: 'Current stock of a product.', inputSchema: { type: 'object' } },
  { name: 'word_count', description: 'Count the words in a text.', inputSchema: { type: 'object' } },
  { name: 'send_message_to_lucy', description: 'Send a message to Lucy.', inputSchema: { type: 'object' } },
  { name: 'weather_forecast', description: 'Weather for a city.', inputSchema: { type: 'object' } },
];

describe('embeddingsRetriever against a loopback /embeddings', () => {
  it('ranks by cosine similarity, in batches, embedding each text once, with the key from the named variable', async () => {
    mode = 'ok';
    seen.length = 0;
    const retriever = embeddingsRetriever({ baseUrl, model: 'all-minilm', batchSize: 3, timeoutMs: 10_000, apiKeyEnv: 'EMBED_KEY' }, { env: { EMBED_KEY: 'secret-1' } });
    expect((await retriever.rank('how many words is this', TOOLS))[0]).toBe('word_count');
    expect((await retriever.rank('what is the weather', TOOLS))[0]).toBe('weather_forecast');
    // Four tool texts and a query in batches of 3, then only the new query.
    expect(seen.map((entry) => entry.body.input.length)).toEqual([3, 2, 1]);
    expect(seen.every((entry) => entry.path === '/v1/embeddings' && entry.body.model === 'all-minilm' && entry.authorization === 'Bearer secret-1')).toBe(true);
    expect(seen[0]!.body.input[0]).toBe(toolText(TOOLS[0]!));
    expect(toolText(TOOLS[2]!)).toBe('send message to lucy. Send a message to Lucy.');
  });

  it('a missing key, an HTTP error, a short answer and a hang are errors, never a ranking', async () => {
    const settings = { baseUrl, model: 'm', batchSize: 8, timeoutMs: 10_000 };
    const missing = await embeddingsRetriever({ ...settings, apiKeyEnv: 'EMBED_KEY' }, { env: {} }).rank('q', TOOLS).catch((error: unknown) => error);
    expect(isMcpctxError(missing, 'MISSING_KEY')).toBe(true);
    mode = 'error';
    const failed = await embeddingsRetriever(settings).rank('q', TOOLS).catch((error: unknown) => error);
    expect(isMcpctxError(failed, 'PROVIDER_ERROR') && (failed as Error).message).toMatch(/HTTP 500: \{"error":"model not loaded"\}/);
    mode = 'short';
    const short = await embeddingsRetriever(settings).rank('q', TOOLS).catch((error: unknown) => error);
    expect(isMcpctxError(short, 'PROVIDER_ERROR') && (short as Error).message).toMatch(/without a data list of 5 embeddings/);
    mode = 'hang';
    const hung = await embeddingsRetriever({ ...settings, timeoutMs: 300 }).rank('q', TOOLS).catch((error: unknown) => error);
    expect(isMcpctxError(hung, 'PROVIDER_ERROR') && (hung as Error).message).toMatch(/no answer within 300 ms/);
    mode = 'ok';
  });

  it('cosine', () => {
    expect(cosine([1, 0], [1, 0])).toBe(1);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([0, 0], [1, 1])).toBe(0);
    expect(cosine([1, 2], [1])).toBe(0);
  });

  it('a config listing both retrievers reports recall@k for each', async () => {
    mode = 'ok';
    const config = parseRoutingConfig(
      JSON.stringify({
        domain: { tools: TOOLS },
        sizes: [4],
        requests: [
          { text: 'how many words', tool: 'word_count' },
          { text: 'tell the owner a message', tool: 'send_message_to_lucy' },
        ],
        retrieval: { retrievers: ['embeddings', 'bm25'], recallAt: [1], embeddings: { baseUrl, model: 'all-minilm' } },
      }),
      { cwd: '/tmp' },
    );
    const run = await runRouting({ config, env: {} });
    expect(run.recall.map((cell) => [cell.retriever, cell.hits[0]!.hits])).toEqual([
      ['bm25', 2],
      ['embeddings', 2],
    ]);
  });

  it('routing verify ranks every embeddings row again from the recorded vectors: a rewritten ranking, a changed or missing vector fails', async () => {
    mode = 'ok';
    const config = parseRoutingConfig(
      JSON.stringify({
        domain: { tools: TOOLS },
        sizes: [4],
        requests: [
          { id: 'words', text: 'how many words', tool: 'word_count' },
          { id: 'lucy', text: 'tell the owner a message', tool: 'send_message_to_lucy' },
        ],
        retrieval: { retrievers: ['embeddings'], recallAt: [1, 2], embeddings: { baseUrl, model: 'all-minilm' } },
      }),
      { cwd: '/tmp' },
    );
    const receipt = JSON.parse(JSON.stringify(routingReceipt(await runRouting({ config, env: {} }), config))) as RoutingReceipt;
    // Every text the ranking read, with the endpoint's vector: 4 tools and 2 requests.
    expect(receipt.embeddings.map((entry) => entry.text)).toHaveLength(6);
    expect(receipt.embeddings.find((entry) => entry.text === 'how many words')?.vector).toEqual(vectorOf('how many words'));
    expect(verifyRoutingReceipt(receipt).differences).toEqual([]);
    const fields = (edit: (copy: RoutingReceipt) => void): Array<{ field: string; recorded: unknown; recomputed: unknown }> => {
      const copy = structuredClone(receipt);
      edit(copy);
      (copy as { recall: unknown }).recall = recallTable(copy.retrieval, copy.recallAt);
      return verifyRoutingReceipt(copy).differences.map(({ field, recorded, recomputed }) => ({ field, recorded, recomputed }));
    };
    const top = receipt.retrieval[0]!.top;
    expect(top[0]).toBe('word_count');
    const swapped = [top[1]!, top[0]!, ...top.slice(2)];
    const rewritten = fields((copy) => {
      const row = copy.retrieval[0] as unknown as { top: string[]; rank: number };
      row.top = swapped;
      row.rank = 2;
    });
    expect(rewritten).toContainEqual({ field: 'retrieval[0].top', recorded: swapped, recomputed: top });
    expect(rewritten).toContainEqual({ field: 'retrieval[0].rank', recorded: 2, recomputed: 1 });
    // The query's vector rewritten to point at the weather tool: the recorded ranking no longer follows from it.
    const moved = fields((copy) => {
      const entry = copy.embeddings.find((item) => item.text === 'how many words') as unknown as { vector: number[] };
      entry.vector = [0, 0, 0, 1, 0.01];
    });
    const movedTop = moved.find((difference) => difference.field === 'retrieval[0].top');
    expect(movedTop?.recorded).toEqual(top);
    expect((movedTop?.recomputed as string[])[0]).toBe('weather_forecast');
    const missing = fields((copy) => {
      (copy as unknown as { embeddings: unknown[] }).embeddings = copy.embeddings.filter((item) => item.text !== 'how many words');
    });
    expect(missing[0]).toEqual({ field: 'embeddings["how many words"]', recorded: null, recomputed: 'a vector, to rank this text again' });
  });
});
