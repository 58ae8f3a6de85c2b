// Routing --repeat: each request asked N times per protocol and condition (a scripted model's
// turns are keyed by request, so every repetition gets the recorded answer), the accuracy and its
// Wilson interval over every answer, and verify re-deriving the repetitions from the plan.
import { describe, expect, it } from 'vitest';
import { recordTurn, scriptedProvider, type ScriptedTurns } from '../../src/providers/index.js';
import { plannedCalls, routingReceipt, runRouting, verifyRoutingReceipt, type RoutingReceipt } from '../../src/routing/index.js';
import { loadRoutingTools } from '../../src/routing/config/index.js';
import { wilsonInterval } from '../../src/stats/index.js';
import { smallConfig } from './_fixtures.js';

async function repeatedReceipt(): Promise<RoutingReceipt> {
  const config = smallConfig({ protocols: ['native'], sizes: [4, 8] });
  const tools = await loadRoutingTools(config);
  const offline = await runRouting({ config, tools });
  let script: ScriptedTurns = { version: 1, turns: {} };
  // Right for "stock" and "thanks" (no tool), a wrong tool otherwise: 2 of 4 right per condition.
  for (const call of plannedCalls({ ...offline, config, tools, model: 'm' })) {
    const pick = call.request.id === 'thanks' ? null : call.request.id === 'stock' ? 'stock_level' : 'sales_today';
    const content = pick === null ? [{ type: 'text' as const, text: 'You are welcome.' }] : [{ type: 'tool_use' as const, id: 'c1', name: pick, input: {} }];
    script = recordTurn(script, call.chat, { content });
  }
  const run = await runRouting({ config, tools, provider: scriptedProvider(script), model: 'm', repeat: 3 });
  return JSON.parse(JSON.stringify(routingReceipt(run, config, new Date('2026-12-05T00:00:00Z')))) as RoutingReceipt;
}

describe('routing --repeat 3', () => {
  it('asks each request 3 times in a row per condition, and scores accuracy over every answer', async () => {
    const receipt = await repeatedReceipt();
    expect(receipt.repeat).toBe(3);
    // Two kinds (unrelated, confusable) × two sizes, four requests, three times each.
    expect(receipt.answers).toHaveLength(4 * 4 * 3);
    expect(receipt.answers.slice(0, 6).map((row) => `${row.requestId}#${row.repetition}`)).toEqual(['stock#1', 'stock#2', 'stock#3', 'words#1', 'words#2', 'words#3']);
    const interval = wilsonInterval(6, 12)!;
    for (const cell of receipt.accuracy) {
      expect(cell).toMatchObject({ requests: 12, accuracy: 0.5 });
      expect([cell.low, cell.high]).toEqual([Math.round(interval.low * 1e4) / 1e4, Math.round(interval.high * 1e4) / 1e4]);
    }
    expect(verifyRoutingReceipt(receipt).differences).toEqual([]);
  });

  it('fails verify when a repetition is relabelled, dropped, or the recorded repeat is not the answers\'', async () => {
    const receipt = await repeatedReceipt();
    const fields = (edit: (copy: RoutingReceipt) => void): string[] => {
      const copy = structuredClone(receipt);
      edit(copy);
      return verifyRoutingReceipt(copy).differences.map((difference) => difference.field);
    };
    expect(fields((copy) => ((copy.answers[1] as { repetition: number }).repetition = 1))).toEqual(['answers[1].repetition']);
    // Two answers fewer in a condition: the plan wants 48, and that condition's accuracy drops out.
    expect(fields((copy) => (copy.answers as unknown[]).splice(1, 2))).toContain('answers.length');
    const lowered = verifyRoutingReceipt(structuredClone({ ...receipt, repeat: 1 }));
    expect(lowered.differences).toContainEqual({ field: 'answers.length', recorded: 48, recomputed: 16 });
    expect(fields((copy) => ((copy as { repeat: number }).repeat = 0))).toContain('repeat');
  });

  it('refuses a repeat that is not a count (USAGE)', async () => {
    await expect(runRouting({ config: smallConfig(), repeat: 0 })).rejects.toMatchObject({ code: 'USAGE', message: 'repeat must be an integer from 1 to 1000, got 0' });
  });

  it('reads repeat from the config (1 to 1000, default 1)', () => {
    expect(smallConfig().repeat).toBe(1);
    expect(smallConfig({ repeat: 5 }).repeat).toBe(5);
    for (const bad of [0, 1001, 1.5]) expect(() => smallConfig({ repeat: bad })).toThrow(/repeat/);
  });
});
