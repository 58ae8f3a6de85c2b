import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { calibrateClaudeFactor, claudeSafetyFactor, countTokens, parseClaudeFactorTable, safetyFactorOf, withClaudeFactor } from '../../src/tokens/index.js';

const SHIPPED = fileURLToPath(new URL('../../examples/claude-calibration/claude-safety-factors.json', import.meta.url));

describe('the Claude safety factor table', () => {
  it('ships with no entries: no factor here is invented, a user measures their own', () => {
    expect(parseClaudeFactorTable(JSON.parse(readFileSync(SHIPPED, 'utf8')) as unknown)).toEqual({ version: 1, entries: [] });
  });

  it('rounds the largest ratio up to 2 decimals', () => {
    expect(safetyFactorOf([1.02, 1.151, 0.97])).toBe(1.16);
    expect(safetyFactorOf([1.15])).toBe(1.15);
    expect(safetyFactorOf([0.9])).toBe(0.9);
    expect(() => safetyFactorOf([])).toThrow(McpctxError);
  });

  it('names the models it has when asked for one it lacks', () => {
    const table = withClaudeFactor(withClaudeFactor({ version: 1, entries: [] }, entry('model-b', 1.2)), entry('model-a', 1.1));
    expect(table.entries.map((e) => e.model)).toEqual(['model-a', 'model-b']);
    expect(claudeSafetyFactor(table, 'model-b')).toBe(1.2);
    expect(() => claudeSafetyFactor(table, 'model-c')).toThrow('No calibrated Claude safety factor for model model-c: the table has model-a, model-b.');
    expect(() => claudeSafetyFactor({ version: 1, entries: [] }, 'model-c')).toThrow(/the table is empty\. Run mcpctx calibrate --claude-model model-c/);
  });

  it('refuses a table with a bad or inherited entry', () => {
    const inherited = Object.assign(Object.create({ factor: 1.2 }) as object, { model: 'm', measuredOn: '2026-12-05', method: 'x', samples: 3 });
    for (const bad of [{ version: 2, entries: [] }, { version: 1, entries: [inherited] }, { version: 1, entries: [entry('m', 0)] }, { version: 1, entries: [entry('m', 1.1), entry('m', 1.2)] }]) {
      expect(() => parseClaudeFactorTable(bad)).toThrow(McpctxError);
    }
  });

  it('calibrates from a counter: ratio per sample, factor, date and method', async () => {
    const samples = [
      { name: 'a.json', text: '{"id":1,"title":"one"}' },
      { name: 'b.txt', text: 'plain prose of a few words' },
    ];
    const claude = new Map([[samples[0]!.text, 20], [samples[1]!.text, 7]]);
    const result = await calibrateClaudeFactor({ model: 'm', samples, countClaude: async (text) => claude.get(text) ?? 0, now: new Date('2026-12-05T10:00:00Z') });
    const ratios = samples.map((sample) => claude.get(sample.text)! / countTokens(sample.text));
    expect(result.samples.map((sample) => sample.ratio)).toEqual(ratios);
    expect(result.entry).toEqual({ model: 'm', factor: Math.ceil(Math.max(...ratios) * 100 - 1e-9) / 100, measuredOn: '2026-12-05', method: 'count-tokens-message-delta/v1', samples: 2 });
  });
});

function entry(model: string, factor: number) {
  return { model, factor, measuredOn: '2026-12-05', method: 'count-tokens-message-delta/v1', samples: 4 };
}
