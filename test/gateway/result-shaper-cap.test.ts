import { describe, expect, it } from 'vitest';
import { ResultShaper, createMemoryStore, type ResultContext } from '../../src/gateway/index.js';
import { toolResultCost } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';

// The cap on a result passed as is, at its exact edge: the shaper compares the count it already
// made of the whole result (text blocks, structuredContent, binary fields) with the cap.
const result = (): Record<string, unknown> => ({
  content: [
    { type: 'text', text: 'alpha beta gamma delta '.repeat(500) },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  ],
  structuredContent: { words: ['alpha', 'beta', 'gamma', 'delta'], count: 2000 },
});
const size = ((cost) => cost.textTokens + cost.binaryFieldTokens)(toolResultCost(result()));

function context(capTokens: number): ResultContext {
  return { sessionId: 'session-1', tool: 'words', rules: undefined, capTokens, offload: true };
}

describe('an unshaped result at the cap', () => {
  it('counts every part: text blocks, structuredContent and the fields of binary blocks', () => {
    const parts = countTokens('alpha beta gamma delta '.repeat(500)) + countTokens(JSON.stringify(result().structuredContent));
    expect(size).toBeGreaterThan(parts); // the image's fields count too
  });

  it('passes a result of exactly capTokens tokens, with that size as upstream and delivered tokens', () => {
    const outcome = new ResultShaper({ store: createMemoryStore() }).shape(result(), {}, context(size));
    expect(outcome.action).toBe('passed');
    expect(outcome.upstreamTokens).toBe(size);
    expect(outcome.deliveredTokens).toBe(size);
  });

  it('offloads the same result under a cap one token lower, naming its full size', () => {
    const outcome = new ResultShaper({ store: createMemoryStore() }).shape(result(), {}, context(size - 1));
    expect(outcome.action).toBe('offloaded');
    expect(outcome.upstreamTokens).toBe(size);
    const preview = JSON.parse((outcome.result.content as Array<{ text: string }>)[0]?.text ?? '{}') as { tokens?: number };
    expect(preview.tokens).toBe(size);
  });
});

describe('a small result passed without counting', () => {
  it('is the same object, and its receipt figures are the exact counts when read', () => {
    const small = result();
    // Under the cap by bytes (a token covers at least one byte): no count is needed to pass it.
    const bytes = Buffer.byteLength(JSON.stringify(small));
    const outcome = new ResultShaper({ store: createMemoryStore() }).shape(small, {}, context(bytes));
    expect(outcome.result).toBe(small);
    expect(outcome.action).toBe('passed');
    expect(outcome.upstreamTokens).toBe(size);
    expect(outcome.deliveredTokens).toBe(size);
  });
});
