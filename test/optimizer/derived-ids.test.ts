// Derived ids (`<kind>-<12 hex>`) come from what a record is, never from where it sits: records equal
// in everything are interchangeable and get the same set of tags in any order, and records that
// differ in any field the optimizer reads get tags of their own.
import { describe, expect, it } from 'vitest';
import { ContextOptimizer } from '../../src/optimizer/index.js';
import { normalizeRecords } from '../../src/optimizer/_normalize.js';
import type { OptimizerInput, ToolOutputRecord } from '../../src/optimizer/_types.js';

const failingRun: ToolOutputRecord = {
  command: 'npm test',
  output: 'FAIL test/cart.test.ts\n  ● cart › applies the coupon once\n    expected 90, got 80\n    at applyCoupon (src/cart/coupon.ts:41:9)',
  exitCode: 1,
  timestamp: '2026-11-30T09:00:00Z',
};

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/** The result with input positions (`toolOutputs[3]`) blanked: equal records may trade places. */
function withoutPositions(value: unknown): string {
  return JSON.stringify(value).replace(/\b(toolOutputs|messages)\[\d+\]/g, '$1[*]');
}

describe('derived ids do not depend on input order', () => {
  it('gives two identical records the same tags and the context the same bytes in every order', () => {
    const others: ToolOutputRecord[] = [
      { command: 'git diff --stat', output: ' src/cart/coupon.ts | 4 ++--', exitCode: 0, timestamp: '2026-11-30T08:50:00Z' },
      { command: 'npm run lint', output: 'src/cart/coupon.ts:12:3 warning prefer-const', exitCode: 0, timestamp: '2026-11-30T09:05:00Z' },
    ];
    const records = [failingRun, { ...failingRun }, ...others];
    const results = permutations(records).map((toolOutputs) => {
      const input: OptimizerInput = { task: 'Fix applyCoupon in src/cart/coupon.ts so the coupon applies once', tokenBudget: 2000, toolOutputs };
      const normalized = normalizeRecords({ toolOutputs });
      return { ids: normalized.records.map((record) => record.id).sort(), result: withoutPositions(new ContextOptimizer().buildContext(input)) };
    });
    const first = results[0]!;
    expect(first.ids.filter((id) => id.startsWith('tool-'))).toHaveLength(4);
    expect(first.ids.some((id) => id.endsWith('~2'))).toBe(true);
    for (const { ids, result } of results) {
      expect(ids).toEqual(first.ids);
      expect(result).toBe(first.result);
    }
  });

  it('gives the same text with different priorities a tag of its own, the same in either order', () => {
    const urgent = { role: 'user' as const, text: 'The coupon must apply once per cart.', priority: 0.9 };
    const casual = { role: 'user' as const, text: 'The coupon must apply once per cart.', priority: 0.1 };
    const idOf = (messages: (typeof urgent)[], priority: number): string =>
      normalizeRecords({ messages }).records.find((record) => record.priority === priority)!.id;
    expect(idOf([urgent, casual], 0.9)).toBe(idOf([casual, urgent], 0.9));
    expect(idOf([urgent, casual], 0.1)).toBe(idOf([casual, urgent], 0.1));
    expect(idOf([urgent, casual], 0.9)).not.toBe(idOf([urgent, casual], 0.1));
    expect(idOf([urgent, casual], 0.9)).toMatch(/^msg-[0-9a-f]{12}$/);
  });

  it('keeps the id a record without timestamp or priority always had: sha256 of its content', () => {
    const [record] = normalizeRecords({ messages: [{ role: 'user', text: 'hello' }] }).records;
    expect(record!.id).toBe(`msg-${record!.contentHash.slice(0, 12)}`);
  });
});
