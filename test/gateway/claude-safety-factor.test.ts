// A cap meant in Claude tokens: with claudeSafetyFactor set, an o200k count times the factor must
// stay within the cap, so a result just under the cap in o200k but over cap/factor is shaped.
import { describe, expect, it } from 'vitest';
import { McpctxError, ResultShaper, createMemoryStore, parseGatewayConfig, type ResultContext } from '../../src/gateway/index.js';
import { toolResultCost } from '../../src/shape/index.js';

const result = (): Record<string, unknown> => ({ content: [{ type: 'text', text: 'alpha beta gamma delta '.repeat(400) }] });
const size = toolResultCost(result()).textTokens;
const FACTOR = 1.3;
// Just over the result's o200k size, so without a factor it passes; size × 1.3 is far over it.
const CAP = size + 10;

function context(safetyFactor?: number): ResultContext {
  return { sessionId: 'session-1', tool: 'words', rules: undefined, capTokens: CAP, offload: false, ...(safetyFactor === undefined ? {} : { safetyFactor }) };
}

describe('the gateway with a Claude safety factor', () => {
  it('passes a result under the cap in o200k tokens when no factor is set', () => {
    expect(new ResultShaper({ store: createMemoryStore() }).shape(result(), {}, context()).action).toBe('passed');
  });

  it('refuses the same result when o200k × factor is over the cap, saying how the cap was derived', () => {
    const outcome = new ResultShaper({ store: createMemoryStore() }).shape(result(), {}, context(FACTOR));
    expect(outcome.action).toBe('refused');
    const text = (outcome.result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toContain(`${CAP.toLocaleString('en-US')} Claude tokens ÷ safety factor 1.3`);
    expect(text).toContain(`of ${Math.floor(CAP / FACTOR).toLocaleString('en-US')} tokens`);
  });

  it('reads claudeSafetyFactor from gateway.yaml and refuses a factor that is not a positive number', () => {
    const config = parseGatewayConfig('mcpServers:\n  a:\n    command: node\nclaudeSafetyFactor: 1.3\n');
    expect(config.claudeSafetyFactor).toBe(1.3);
    expect(parseGatewayConfig('mcpServers:\n  a:\n    command: node\n').claudeSafetyFactor).toBeUndefined();
    for (const bad of ['0', '-1', '"1.3"', '11']) {
      let problems: unknown;
      try {
        parseGatewayConfig(`mcpServers:\n  a:\n    command: node\nclaudeSafetyFactor: ${bad}\n`);
      } catch (error) {
        problems = error instanceof McpctxError ? error.data : undefined;
      }
      expect(JSON.stringify(problems), bad).toContain('claudeSafetyFactor');
    }
  });
});
