// The bundled price table: every entry dated and sourced from the vendor's own page, every figure a
// price, every model id priced once; and the budget's worst case never below a call's real read.
import { describe, expect, it } from 'vitest';
import { PRICE_TABLE, REQUEST_OVERHEAD_TOKENS, checkBudget, findPrice, worstCaseUsd } from '../../src/pricing/index.js';
import { countTokens } from '../../src/tokens/index.js';

describe('the bundled price table', () => {
  it('dates and sources every entry on the vendor\'s own page, and prices each model id once', () => {
    const seen = new Set<string>();
    for (const entry of PRICE_TABLE) {
      expect(entry.readOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(new URL(entry.source).hostname).toMatch(/(^|\.)(anthropic\.com|claude\.com)$/);
      for (const figure of [entry.inputPerMTok, entry.outputPerMTok, entry.cacheReadPerMTok, entry.cacheWritePerMTok]) expect(figure).toBeGreaterThanOrEqual(0);
      // A cache hit costs less than reading the tokens afresh, a write more: a swapped column shows here.
      expect(entry.cacheReadPerMTok).toBeLessThan(entry.inputPerMTok);
      expect(entry.cacheWritePerMTok).toBeGreaterThan(entry.inputPerMTok);
      for (const model of entry.models) {
        expect(seen.has(`${entry.provider} ${model}`), model).toBe(false);
        seen.add(`${entry.provider} ${model}`);
      }
    }
  });

  it('prices the current models by exact id and leaves an unlisted dated id unknown', () => {
    expect(findPrice('anthropic', 'claude-sonnet-5-5')).toMatchObject({ inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0.1, cacheWritePerMTok: 2.5, from: 'table' });
    expect(findPrice('anthropic', 'claude-opus-5-5')).toMatchObject({ inputPerMTok: 4, outputPerMTok: 20 });
    expect(findPrice('anthropic', 'claude-sonnet-5-5-20991231')).toBeNull();
    expect(findPrice('openai-compatible', 'claude-sonnet-5-5')).toBeNull();
  });
});

describe('the worst case a budget allows for', () => {
  const price = findPrice('anthropic', 'claude-sonnet-5-5')!;

  it('reads at least as many tokens as the body has bytes, past what o200k counts, at the dearer of input and cache write', () => {
    // CJK and emoji: few bytes per o200k token would be many tokens for a finer tokenizer.
    const body = JSON.stringify({ messages: [{ role: 'user', content: '上下文窗口的令牌 🙂'.repeat(200) }] });
    const worst = worstCaseUsd(body, 100, price);
    expect(worst.readTokens).toBe(Buffer.byteLength(body) + REQUEST_OVERHEAD_TOKENS);
    expect(worst.readTokens).toBeGreaterThan(countTokens(body) + REQUEST_OVERHEAD_TOKENS);
    expect(worst.usd).toBeCloseTo((worst.readTokens * 2.5 + 100 * 10) / 1_000_000, 12);
  });

  it('stops the call that could pass the cap, and lets through the one that cannot', () => {
    const body = '{"messages":[]}';
    const worst = worstCaseUsd(body, 100, price).usd;
    expect(() => checkBudget(body, 100, price, 1, 1 + worst)).not.toThrow();
    expect(() => checkBudget(body, 100, price, 1, 1 + worst - 1e-9)).toThrow(expect.objectContaining({ code: 'BUDGET_STOP' }));
  });
});
