import { describe, expect, it } from 'vitest';
import { structuredCopyOf, toolResultParts } from '../../src/shape/index.js';
import { sameJsonInAnyLayout } from '../../src/shape/_structured-copy.js';
import { ResultShaper, createMemoryStore } from '../../src/gateway/index.js';
import { countTokens } from '../../src/tokens/index.js';

const graph = { entities: [{ name: 'Ada', type: 'person', observations: ['wrote "notes"', 'a\\b  c'] }], relations: [] };

function copyOf(result: Record<string, unknown>): number | null {
  return structuredCopyOf(result, toolResultParts(result));
}

describe('structuredCopyOf: the content block a structuredContent repeats', () => {
  it('finds the text block holding the same JSON in any layout', () => {
    for (const text of [JSON.stringify(graph), JSON.stringify(graph, null, 2), JSON.stringify(graph, null, '\t'), `\n ${JSON.stringify(graph, null, 4)}\r\n`]) {
      expect(copyOf({ content: [{ type: 'text', text: 'intro' }, { type: 'text', text }], structuredContent: graph })).toBe(1);
    }
  });

  it('finds a text held under one key, as a string (filesystem) or as JSON', () => {
    const file = 'line one\n  line two "quoted"\n';
    expect(copyOf({ content: [{ type: 'text', text: file }], structuredContent: { content: file } })).toBe(0);
    expect(copyOf({ content: [{ type: 'text', text: JSON.stringify(graph, null, 2) }], structuredContent: { result: graph } })).toBe(0);
  });

  it('finds nothing when the data differs, even by whitespace inside a string or one character', () => {
    expect(copyOf({ content: [{ type: 'text', text: JSON.stringify({ a: 'x y' }) }], structuredContent: { a: 'x  y' } })).toBeNull();
    expect(copyOf({ content: [{ type: 'text', text: JSON.stringify({ a: 1 }) }], structuredContent: { a: 2 } })).toBeNull();
    expect(copyOf({ content: [{ type: 'text', text: `${JSON.stringify({ a: 1 })}x` }], structuredContent: { a: 1 } })).toBeNull();
    expect(copyOf({ content: [{ type: 'text', text: 'abc' }], structuredContent: { content: 'abd' } })).toBeNull();
    expect(copyOf({ content: [{ type: 'text', text: 'abc' }], structuredContent: { content: 'abc', more: 1 } })).toBeNull();
    expect(copyOf({ content: [{ type: 'text', text: 'abc' }] })).toBeNull();
  });

  it('compares without being fooled by quotes and escapes', () => {
    expect(sameJsonInAnyLayout('{"a":"\\" ,b"}', '{ "a" : "\\" ,b" }')).toBe(true);
    expect(sameJsonInAnyLayout('{"a":"\\" ,b"}', '{ "a" : "\\",b" }')).toBe(false);
    expect(sameJsonInAnyLayout('["\\\\"," "]', '[ "\\\\" , " " ]')).toBe(true);
  });
});

describe('the gateway counts each delivered token once', () => {
  it('a result whose structuredContent repeats its text costs the text, passed or offloaded', () => {
    const shaper = new ResultShaper({ store: createMemoryStore() });
    const ctx = { sessionId: 's', tool: 'read', rules: undefined, capTokens: 25_000, offload: true };
    const small = 'a small file\n';
    const passed = shaper.shape({ content: [{ type: 'text', text: small }], structuredContent: { content: small } }, {}, ctx);
    expect(passed.action).toBe('passed');
    expect(passed.upstreamTokens).toBe(countTokens(small));
    const big = 'the quick brown fox jumps over the lazy dog. '.repeat(8_000);
    const offloaded = shaper.shape({ content: [{ type: 'text', text: big }], structuredContent: { content: big } }, {}, ctx);
    expect(offloaded.action).toBe('offloaded');
    expect(offloaded.upstreamTokens).toBe(countTokens(big));
    const distinct = shaper.shape({ content: [{ type: 'text', text: small }], structuredContent: { size: 13 } }, {}, ctx);
    expect(distinct.upstreamTokens).toBe(countTokens(small) + countTokens('{"size":13}'));
  });
});
