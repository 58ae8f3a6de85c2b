// Host rules take the gateway's claudeSafetyFactor: a result under capTokens in o200k but over
// capTokens / factor is shaped (offloaded behind read_result) instead of passed.
import { describe, expect, it } from 'vitest';
import { HostShaper, defineHostRules } from '../../src/host/index.js';
import { toolResultCost } from '../../src/shape/index.js';

const RESULT = { content: [{ type: 'text', text: 'alpha beta gamma delta '.repeat(400) }] };
const CALL = { server: 'words', tool: 'list_words' };
const CAP = toolResultCost(RESULT).textTokens + 10;

describe('host rules with a Claude safety factor', () => {
  it('passes the result without the factor and offloads it with one', () => {
    expect(new HostShaper({ rules: { capTokens: CAP } }).shape(CALL, RESULT).action).toBe('passed');
    const shaped = new HostShaper({ rules: { capTokens: CAP, claudeSafetyFactor: 1.3 } }).shape(CALL, RESULT);
    expect(shaped.action).toBe('offloaded');
    expect(shaped.tokensAfter).toBeLessThanOrEqual(Math.floor(CAP / 1.3));
  });

  it('refuses a factor that is not a positive number, naming the key', () => {
    expect(() => defineHostRules({ claudeSafetyFactor: 0 })).toThrow(/claudeSafetyFactor/);
    expect(() => defineHostRules({ claudeSafetyFactor: Number.NaN })).toThrow(/claudeSafetyFactor/);
  });
});
