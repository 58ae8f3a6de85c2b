import { describe, expect, it } from 'vitest';
import { recordTurn, scriptedProvider, type ScriptedTurns } from '../../src/providers/index.js';
import { bm25Retriever, plannedCalls, runRouting, type RetrievalRow, type RoutingTool } from '../../src/routing/index.js';
import { loadRoutingTools } from '../../src/routing/config/index.js';
import { recallTable } from '../../src/routing/retrieval/index.js';
import { ToolIndex } from '../../src/toolsearch/index.js';
import { smallConfig } from './_fixtures.js';

let rowCount = 0;
function row(rank: number | null, expected: string | null = 'a', size = 8): RetrievalRow {
  rowCount += 1;
  return { retriever: 'bm25', kind: 'unrelated', size, requestId: `r${rowCount}`, expected, top: [], matched: 0, rank };
}

describe('recallTable', () => {
  it('counts a hit at k when the right tool ranks within the first k, leaving out requests that need none', () => {
    const rows = [row(1), row(2), row(3), row(6), row(null), row(null, null)];
    expect(recallTable(rows, [1, 3, 5])).toEqual([
      {
        retriever: 'bm25',
        kind: 'unrelated',
        size: 8,
        requests: 5,
        hits: [
          { k: 1, hits: 1, recall: 0.2 },
          { k: 3, hits: 3, recall: 0.6 },
          { k: 5, hits: 3, recall: 0.6 },
        ],
      },
    ]);
  });

  it('one cell per retriever, kind and size; recall is null with no request to score', () => {
    const cells = recallTable([row(1, 'a', 8), row(1, 'a', 16), row(null, null, 32)], [1]);
    expect(cells.map((cell) => [cell.size, cell.hits[0]!.recall])).toEqual([
      [8, 1],
      [16, 1],
      [32, null],
    ]);
  });
});

describe('bm25Retriever', () => {
  it("ranks with the gateway's ToolIndex: the same order as search_tools with the same options", async () => {
    const config = smallConfig();
    const tools = await loadRoutingTools(config);
    const catalog: RoutingTool[] = [...tools.domain, ...tools.confusable];
    const ranking = await bm25Retriever({ vocabulary: true, minScore: 0 }).rank('count the words of a text', catalog);
    const direct = new ToolIndex(catalog, { minScore: 0 }).search('count the words of a text', { limit: catalog.length }).map((match) => match.name);
    expect(ranking).toEqual(direct);
    expect(ranking[0]).toBe('word_count');
    expect(ranking).toContain('character_count');
  });

  it('splits names on _ and case and reads parameter names', async () => {
    const tools: RoutingTool[] = [
      { name: 'getInvoicePdf', description: 'Fetch a document.', inputSchema: { type: 'object' } },
      { name: 'list-shipments', description: 'List things.', inputSchema: { type: 'object' } },
      { name: 'lookup', description: 'Look something up.', inputSchema: { type: 'object', properties: { tracking_number: { type: 'string' } } } },
    ];
    const retriever = bm25Retriever({ vocabulary: false, minScore: 0 });
    expect((await retriever.rank('invoice pdf', tools))[0]).toBe('getInvoicePdf');
    expect((await retriever.rank('shipments', tools))[0]).toBe('list-shipments');
    expect((await retriever.rank('tracking number', tools))[0]).toBe('lookup');
  });
});

describe('runRouting (offline)', () => {
  it('reports recall@k per retriever, kind and size from its rows', async () => {
    const run = await runRouting({ config: smallConfig() });
    expect(run.retrieval).toHaveLength(6 * 4);
    expect(run.recall.map((cell) => `${cell.kind}:${cell.size}:${cell.requests}`)).toEqual([
      'unrelated:4:3',
      'unrelated:8:3',
      'unrelated:12:3',
      'confusable:4:3',
      'confusable:8:3',
      'confusable:12:3',
    ]);
    expect(run.recall).toEqual(recallTable(run.retrieval, [1, 3, 5]));
    const words = run.retrieval.find((entry) => entry.requestId === 'words' && entry.kind === 'confusable' && entry.size === 12)!;
    expect(words.rank).toBe(1);
    expect(words.top[0]).toBe('word_count');
    expect(run.retrieval.filter((entry) => entry.requestId === 'thanks').every((entry) => entry.rank === null && entry.expected === null)).toBe(true);
  });
});

describe('the retrieval protocol offers min(topK, catalog size) tools', () => {
  it('fills past the tools BM25 scores with the rest in the request\'s own seeded catalog order, and counts accuracy given the right tool was offered', async () => {
    const config = smallConfig({ protocols: ['retrieval'], retrieval: { topK: 5 } });
    const tools = await loadRoutingTools(config);
    const offline = await runRouting({ config, tools });
    const calls = plannedCalls({ ...offline, config, tools, model: 'm' });
    // "thank you!" shares no word with any tool: it is offered five tools all the same, not none.
    for (const call of calls) expect(call.offered.map((tool) => tool.name)).toHaveLength(Math.min(5, call.size));
    const thanks = offline.retrieval.find((row) => row.requestId === 'thanks' && row.kind === 'unrelated' && row.size === 12)!;
    expect(thanks.matched).toBe(0);
    const catalog = offline.catalogs.find((entry) => entry.requestId === 'thanks' && entry.kind === 'unrelated' && entry.size === 12)!;
    expect(thanks.top).toEqual(catalog.order.slice(0, 5));
    // Where BM25 found some tools, they come first, then the rest of the catalog in its order.
    const words = offline.retrieval.find((row) => row.requestId === 'words' && row.kind === 'confusable' && row.size === 12)!;
    const wordsOrder = offline.catalogs.find((entry) => entry.requestId === 'words' && entry.kind === 'confusable' && entry.size === 12)!.order;
    const found = words.top.slice(0, words.matched);
    expect(words.matched).toBeGreaterThan(0);
    expect(words.top.slice(words.matched)).toEqual(wordsOrder.filter((name) => !found.includes(name)).slice(0, words.top.length - words.matched));
    // A model that answers "thanks" in words is right, and every request with a right tool is counted given its tool was offered.
    let script: ScriptedTurns = { version: 1, turns: {} };
    for (const call of calls) {
      const offered = call.offered.map((tool) => tool.name);
      const pick = call.request.tool !== null && offered.includes(call.request.tool) ? call.request.tool : null;
      script = recordTurn(script, call.chat, { content: pick === null ? [{ type: 'text', text: 'In words.' }] : [{ type: 'tool_use', id: 'c1', name: pick, input: {} }] });
    }
    const run = await runRouting({ config, tools, provider: scriptedProvider(script), model: 'm' });
    for (const cell of run.accuracy) {
      const rows = run.answers.filter((row) => row.kind === cell.kind && row.size === cell.size && row.expected !== null);
      const offeredRight = rows.filter((row) => row.offered.includes(row.expected!));
      expect(cell.rightToolOffered).toBe(offeredRight.length);
      expect(cell.rightWhenOffered).toBe(offeredRight.length);
    }
  });
});
