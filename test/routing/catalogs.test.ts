import { describe, expect, it } from 'vitest';
import { runRouting } from '../../src/routing/index.js';
import { catalogCosts } from '../../src/routing/_catalog-cost.js';
import { choiceListing, providerTool } from '../../src/routing/_protocols.js';
import { conditionTools } from '../../src/routing/_catalogs.js';
import { loadRoutingTools } from '../../src/routing/config/index.js';
import { routingCatalogs } from '../../src/routing/_retrieval-run.js';
import { countTokens } from '../../src/tokens/index.js';
import { smallConfig } from './_fixtures.js';

describe('catalog conditions', () => {
  it('pads confusable first then unrelated, unrelated only for the unrelated kind', async () => {
    const config = smallConfig();
    const { conditions } = routingCatalogs(config, await loadRoutingTools(config));
    const at = (kind: string, size: number): readonly string[] => conditions.find((entry) => entry.kind === kind && entry.size === size)!.distractors;
    expect(conditions.map((entry) => `${entry.kind}:${entry.size}`)).toEqual(['unrelated:4', 'unrelated:8', 'unrelated:12', 'confusable:4', 'confusable:8', 'confusable:12']);
    expect(at('unrelated', 4)).toEqual([]);
    expect(at('unrelated', 8)).toHaveLength(4);
    expect(at('unrelated', 8).every((name) => name.startsWith('weather_tool_'))).toBe(true);
    const confusable8 = at('confusable', 8);
    expect(confusable8.slice(0, 3).sort()).toEqual(['character_count', 'send_email_to_customer', 'warehouse_inventory_count']);
    expect(confusable8[3]).toMatch(/^weather_tool_/);
    // A larger catalog holds every tool of a smaller one of its kind.
    expect(at('unrelated', 12).slice(0, 4)).toEqual(at('unrelated', 8));
    expect(at('confusable', 12).slice(0, 4)).toEqual(confusable8);
    // The unrelated fill of the confusable kind comes from the same seeded order.
    expect(at('confusable', 12).slice(3)).toEqual(at('unrelated', 12).slice(0, 5));
  });

  it("gives each request its own order of its condition's tools", async () => {
    const config = smallConfig();
    const tools = await loadRoutingTools(config);
    const { conditions, catalogs } = routingCatalogs(config, tools);
    expect(catalogs).toHaveLength(conditions.length * config.requests.length);
    for (const condition of conditions) {
      const expected = [...tools.domain.map((entry) => entry.name), ...condition.distractors].sort();
      const orders = catalogs.filter((catalog) => catalog.kind === condition.kind && catalog.size === condition.size).map((catalog) => catalog.order);
      for (const order of orders) expect([...order].sort()).toEqual(expected);
      if (condition.size >= 8) expect(new Set(orders.map((order) => order.join())).size).toBeGreaterThan(1);
    }
  });

  it('with no pools, the one condition is the domain alone', async () => {
    const config = smallConfig({ distractors: undefined, sizes: [4] });
    const { conditions } = routingCatalogs(config, await loadRoutingTools(config));
    expect(conditions).toEqual([{ kind: 'none', size: 4, distractors: [] }]);
  });
});

describe('catalogCosts', () => {
  it('counts o200k tokens of the tools field JSON and of the constrained listing, per condition', async () => {
    const config = smallConfig();
    const tools = await loadRoutingTools(config);
    const { conditions } = routingCatalogs(config, tools);
    const costs = catalogCosts(conditions, tools);
    const last = conditions.at(-1)!;
    const offered = conditionTools(last, tools);
    expect(costs.at(-1)).toEqual({
      kind: 'confusable',
      size: 12,
      nativeTokens: countTokens(JSON.stringify(offered.map(providerTool))),
      constrainedTokens: countTokens(choiceListing(offered)),
      nativeTokensPerTool: Math.round((countTokens(JSON.stringify(offered.map(providerTool))) / 12) * 10) / 10,
      constrainedTokensPerTool: Math.round((countTokens(choiceListing(offered)) / 12) * 10) / 10,
    });
    expect(choiceListing(offered).split('\n')[0]).toBe('- stock_level: Current stock of one product at the shop, in tubs.');
  });
});

describe('determinism', () => {
  it('the same seed gives byte-identical catalogs and retrieval results; another seed other orders', async () => {
    const first = JSON.stringify(await runRouting({ config: smallConfig() }));
    const again = JSON.stringify(await runRouting({ config: smallConfig() }));
    expect(again).toBe(first);
    const other = await runRouting({ config: smallConfig({ seed: 15 }) });
    const orders = (run: { catalogs: ReadonlyArray<{ order: readonly string[] }> }): string => JSON.stringify(run.catalogs.map((catalog) => catalog.order));
    expect(orders(other)).not.toBe(orders(JSON.parse(first) as { catalogs: Array<{ order: string[] }> }));
    // Retrieval does not depend on the order a request sees its catalog in.
    expect(JSON.stringify(other.recall)).toBe(JSON.stringify((JSON.parse(first) as { recall: unknown }).recall));
  });
});
