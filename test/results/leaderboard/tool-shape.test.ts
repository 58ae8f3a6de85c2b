// tool-shape/v1: nearest-rank quantiles by hand, and which tools the baseline is made of.
import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../../src/errors/index.js';
import type { Measurement } from '../../../src/measure/index.js';
import { TOOL_SHAPE_METHOD, nearestRankQuantiles, toolShape, toolShapeJson } from '../../../src/results/leaderboard/index.js';
import { server, state } from './_state.js';

const oneToTen = [7, 3, 10, 1, 5, 9, 2, 8, 4, 6];

describe('nearestRankQuantiles', () => {
  it('gives 101 points by default: p0 the minimum, p50 of 1..10 is 5, p100 the maximum', () => {
    const q = nearestRankQuantiles(oneToTen);
    expect(q).toHaveLength(101);
    expect(q[0]).toBe(1);
    expect(q[50]).toBe(5);
    expect(q[100]).toBe(10);
    // rank = ceil(p/100 · 10): p10 -> 1, p11 -> 2, p90 -> 9, p91 -> 10
    expect([q[10], q[11], q[90], q[91]]).toEqual([1, 2, 9, 10]);
  });

  it('picks values of the input at the nearest rank, for other point counts too', () => {
    expect(nearestRankQuantiles([15, 20, 35, 40, 50], 5)).toEqual([15, 20, 35, 40, 50]);
    expect(nearestRankQuantiles([40, 15], 3)).toEqual([15, 15, 40]);
    expect(nearestRankQuantiles([42])).toEqual(Array(101).fill(42));
  });

  it('ranks exactly where a level times n is whole (p7 of 100 values is the 7th)', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(nearestRankQuantiles(hundred)).toEqual(hundred.map((_, i) => Math.max(1, i)).concat([100]).slice(0, 101));
  });

  it('gives [] for no values, and refuses bad input with a clear error', () => {
    expect(nearestRankQuantiles([])).toEqual([]);
    for (const points of [1, 0, 2.5, Number.NaN]) {
      let error: unknown;
      try {
        nearestRankQuantiles(oneToTen, points);
      } catch (caught) {
        error = caught;
      }
      expect(isMcpctxError(error, 'USAGE')).toBe(true);
    }
    expect(() => nearestRankQuantiles([1, Number.NaN])).toThrow(/finite numbers/);
  });
});

describe('toolShape', () => {
  const tool = (name: string, tokens: number, descriptionTokens: number, inputSchemaTokens: number) => ({ name, tokens, descriptionTokens, inputSchemaTokens });

  it('spans every tool of every current measured or dynamic record, and no other', () => {
    const shape = toolShape(
      state([
        server('a', { perTool: [tool('x', 10, 1, 5), tool('y', 30, 3, 20)] }),
        server('b', { status: 'dynamic', perTool: [tool('z', 20, 2, 10)] }),
        server('failed', { status: 'timeout', perTool: [tool('never', 9_999, 9_999, 9_999)] }),
        server('later', { published: 'not-yet-run' }),
        server('empty', { tokens: 2, tools: 0, perTool: [] }),
      ]),
    );
    expect(shape.method).toBe(TOOL_SHAPE_METHOD);
    expect(shape.servers).toBe(2);
    expect(shape.tools).toBe(3);
    expect(shape.quantiles.whole[0]).toBe(10);
    expect(shape.quantiles.whole[50]).toBe(20);
    expect(shape.quantiles.whole[100]).toBe(30);
    expect(shape.quantiles.description[100]).toBe(3);
    expect(shape.quantiles.inputSchema[0]).toBe(5);
    expect(shape.quantiles.inputSchema[100]).toBe(20);
  });

  it('leaves out an incomplete per-tool entry rather than reading it as zero', () => {
    const broken = [tool('ok', 10, 1, 5), { name: 'partial', tokens: 4 }, null] as unknown as Measurement['perTool'];
    const shape = toolShape(state([server('a', { perTool: broken })]));
    expect(shape.tools).toBe(1);
    expect(shape.quantiles.whole).toEqual(Array(101).fill(10));
  });

  it('has empty quantiles with nothing measured, and writes stable JSON', () => {
    expect(toolShape(state([]))).toEqual({ method: TOOL_SHAPE_METHOD, servers: 0, tools: 0, quantiles: { whole: [], description: [], inputSchema: [] } });
    const servers = [server('a', { perTool: [tool('x', 10, 1, 5)] }), server('b', { perTool: [tool('y', 7, 2, 3)] })];
    const json = toolShapeJson(state(servers));
    expect(json.endsWith('}\n')).toBe(true);
    expect(toolShapeJson(state([...servers].reverse()))).toBe(json);
  });
});
