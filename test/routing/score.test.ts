import { describe, expect, it } from 'vitest';
import { wilsonInterval, type ModelRow } from '../../src/routing/index.js';
import { accuracyTable, outcomeOf } from '../../src/routing/_score.js';

// 95% Wilson intervals worked out separately (Python's decimal module at 40 digits, z = 1.95996398454005423552),
// rounded to 6 places.
const KNOWN: ReadonlyArray<[number, number, number, number]> = [
  [18, 24, 0.551006, 0.880006],
  [23, 24, 0.797582, 0.992607],
  [14, 24, 0.388347, 0.755324],
  [22, 24, 0.741512, 0.976841],
  [24, 24, 0.862024, 1],
  [0, 24, 0, 0.137976],
  [0, 1, 0, 0.793451],
  [1, 1, 0.206549, 1],
  [5, 10, 0.236593, 0.763407],
  [1, 3, 0.061492, 0.79234],
  [50, 100, 0.403832, 0.596168],
  [85, 100, 0.767164, 0.90694],
];

describe('wilsonInterval', () => {
  it.each(KNOWN)('%i of %i: %f to %f', (successes, n, low, high) => {
    const interval = wilsonInterval(successes, n)!;
    expect(interval.low).toBeCloseTo(low, 6);
    expect(interval.high).toBeCloseTo(high, 6);
  });

  it('is null for no requests', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe('outcomeOf', () => {
  it('tells a wrong tool from no tool, and a wrong call when none was needed', () => {
    expect(outcomeOf('stock_level', 'stock_level')).toBe('right');
    expect(outcomeOf('stock_level', 'word_count')).toBe('wrong_tool');
    expect(outcomeOf('stock_level', null)).toBe('no_tool');
    expect(outcomeOf(null, null)).toBe('right');
    expect(outcomeOf(null, 'word_count')).toBe('wrong_call');
  });
});

function answer(outcome: ModelRow['outcome'], promptTokens: number, firstTokenMs: number | null = null): ModelRow {
  return {
    protocol: 'native',
    retriever: null,
    kind: 'unrelated',
    size: 8,
    requestId: 'r',
    expected: 'a',
    offered: ['a', 'b', 'c', 'd'],
    requestSha256: '0'.repeat(64),
    requestBody: '',
    content: [],
    rawResponse: '',
    stopReason: 'end_turn',
    usage: { inputTokens: promptTokens, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    promptTokens,
    catalogTokens: 100,
    firstTokenMs,
    chosen: null,
    invalid: false,
    outcome,
  };
}

describe('accuracyTable', () => {
  it('counts each outcome apart and gives the accuracy with its interval and token means', () => {
    const rows = [answer('right', 100, 40), answer('right', 110), answer('right', 120, 60), answer('no_tool', 130), answer('wrong_tool', 140)];
    const [cell] = accuracyTable(rows);
    expect(cell).toMatchObject({
      requests: 5,
      counts: { right: 3, wrong_tool: 1, no_tool: 1, wrong_call: 0 },
      accuracy: 0.6,
      meanPromptTokens: 120,
      meanCatalogTokens: 100,
      tools: 4,
      tokensPerTool: 25,
      meanFirstTokenMs: 50,
    });
    const interval = wilsonInterval(3, 5)!;
    expect(cell!.low).toBeCloseTo(interval.low, 4);
    expect(cell!.high).toBeCloseTo(interval.high, 4);
  });
});
