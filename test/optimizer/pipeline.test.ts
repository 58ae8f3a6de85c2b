// The stages of buildContext hand records to each other: the sources are the rendered blocks (never
// read back out of the text), and the rendered total is checked once, with a bounded repair when a
// counter does not add up over the parts.
import { describe, expect, it } from 'vitest';
import { ContextOptimizer, type TokenCounter } from '../../src/optimizer/index.js';
import { omissionLine, renderingReserve, OMISSION_REASONS } from '../../src/optimizer/_render.js';
import { CHARS4_COUNTER } from '../../src/optimizer/_counter.js';

const WORDS = ['cache', 'lockfile', 'watcher', 'encoding', 'stream', 'buffer', 'schema', 'default', 'fallback', 'reader', 'parser', 'loader', 'env', 'yaml', 'json', 'path'];
const messages = Array.from({ length: 12 }, (_, i) => ({
  id: `note-${i}`,
  role: 'assistant' as const,
  text: `Checked parseConfig in src/config/loader.ts, attempt ${i}: ${WORDS.slice(i, i + 4).join(' and ')} ruled out; ${WORDS[(i * 5) % WORDS.length]} next.`,
  timestamp: `2026-11-30T09:${String(10 + i).padStart(2, '0')}:00Z`,
}));

describe('buildContext pipeline', () => {
  it('lists each kept fragment once, even when a record quotes a source tag of another', () => {
    const result = new ContextOptimizer().buildContext({
      task: 'Fix the TypeError in parseConfig in src/config/loader.ts',
      messages: [
        ...messages.slice(0, 2),
        { id: 'quote', role: 'user', text: 'Earlier you showed this:\n[source: note-1#1 | note-1 | assistant]\nand parseConfig must keep its signature.' },
      ],
    });
    const ids = result.sources.map((source) => source.fragmentId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('note-1#1');
    expect(ids).toContain('quote#1');
  });

  it('stays within budget with a counter that does not add up over the parts, removing the weakest optional fragments', () => {
    // Every blank line costs 150 tokens more in the whole text than in its parts.
    const lumpy: TokenCounter = { name: 'lumpy', exact: false, count: (text) => CHARS4_COUNTER.count(text) + 150 * (text.split('\n\n').length - 1) };
    const input = { task: 'Fix the TypeError in parseConfig in src/config/loader.ts', tokenBudget: 600, messages, decisions: [{ id: 'rule', text: 'parseConfig must keep its signature.', status: 'accepted' as const }] };
    const result = new ContextOptimizer({ counter: lumpy }).buildContext(input);
    expect(result.stats.withinBudget).toBe(true);
    expect(result.stats.tokensOut).toBe(lumpy.count(result.context));
    expect(result.omitted.some((entry) => entry.detail === 'removed so that the rendered context fits the budget')).toBe(true);
    expect(result.sources.some((source) => source.recordId === 'rule')).toBe(true);
  });

  it('reserves at least what the longest omission line of the session costs', () => {
    const counts = new Map(OMISSION_REASONS.map((reason) => [reason, 1234] as const));
    expect(renderingReserve(CHARS4_COUNTER, 1234)).toBeGreaterThan(CHARS4_COUNTER.count(omissionLine(counts)));
  });
});
