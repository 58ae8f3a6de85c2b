import { describe, expect, it } from 'vitest';
import { recordTurn, scriptedProvider, type ScriptedTurns } from '../../src/providers/index.js';
import { plannedCalls, runRouting } from '../../src/routing/index.js';
import { loadRoutingTools } from '../../src/routing/config/index.js';
import { smallConfig } from './_fixtures.js';

describe('the whole pipeline with the scripted provider', () => {
  it('every protocol, kind and size is asked and scored; retrieval is capped by the retriever', async () => {
    const config = smallConfig({ retrieval: { topK: 1, recallAt: [1, 3] } });
    const tools = await loadRoutingTools(config);
    const offline = await runRouting({ config, tools });
    const calls = plannedCalls({ ...offline, config, tools, model: 'scripted-model' });
    // 3 protocols x (2 kinds x 3 sizes) x 4 requests, one retriever.
    expect(calls).toHaveLength(3 * 6 * 4);
    // A model that calls the right tool whenever it is offered, and otherwise answers in text.
    let script: ScriptedTurns = { version: 1, turns: {} };
    for (const call of calls) {
      const offered = call.offered.some((tool) => tool.name === call.request.tool);
      const content =
        call.protocol === 'constrained'
          ? [{ type: 'text' as const, text: JSON.stringify({ tool: offered ? call.request.tool : 'none_of_these' }) }]
          : offered
            ? [{ type: 'tool_use' as const, id: 'call_1', name: call.request.tool!, input: {} }]
            : [{ type: 'text' as const, text: 'No tool for that.' }];
      script = recordTurn(script, call.chat, { content });
    }
    const run = await runRouting({ config, tools, provider: scriptedProvider(script), model: 'scripted-model' });
    expect(run.model).toEqual({ provider: 'scripted', baseUrl: null, name: 'scripted-model' });
    expect(run.answers).toHaveLength(calls.length);
    for (const cell of run.accuracy.filter((entry) => entry.protocol !== 'retrieval')) expect(cell.accuracy).toBe(1);
    // Retrieval offers the top 1: the model is right exactly where BM25's first tool was the right one (and for the request that needs none).
    for (const cell of run.accuracy.filter((entry) => entry.protocol === 'retrieval')) {
      const recall = run.recall.find((entry) => entry.kind === cell.kind && entry.size === cell.size)!;
      expect(cell.tools).toBeLessThanOrEqual(1);
      expect(cell.counts.right).toBe(recall.hits[0]!.hits + 1);
      expect(cell.counts.wrong_tool + cell.counts.wrong_call).toBe(0);
    }
  });
});
