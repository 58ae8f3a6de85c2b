// The guard with a cap in Claude tokens: o200k counts times the calibrated factor meet the cap.
import { describe, expect, it } from 'vitest';
import { guardToolResult, type ResultRefusal } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';

const text = 'alpha beta gamma delta '.repeat(400);
const size = countTokens(text);
const CAP = size + 10;
const handler = (): { content: Array<{ type: 'text'; text: string }>; isError?: boolean } => ({ content: [{ type: 'text', text }] });

describe('guardToolResult with a safety factor', () => {
  it('passes a result under the cap in o200k tokens without a factor', async () => {
    const result = await guardToolResult('words', handler, { maxTokens: CAP })();
    expect(result.isError).toBeUndefined();
  });

  it('refuses it when o200k × factor is over the cap, reporting the estimate', async () => {
    const refusals: ResultRefusal[] = [];
    const result = await guardToolResult('words', handler, { maxTokens: CAP, safetyFactor: 1.3, onRefusal: (refusal) => refusals.push(refusal) })();
    expect(result.isError).toBe(true);
    expect(refusals[0]).toMatchObject({ tokens: Math.ceil(size * 1.3), exact: true, safetyFactor: 1.3, maxTokens: CAP });
    const message = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(message).toContain(`${Math.ceil(size * 1.3).toLocaleString('en-US')} tokens (o200k count × 1.3, an estimate of Claude tokens)`);
  });

  it('refuses a factor that is not a positive number up to 10', () => {
    for (const safetyFactor of [0, -1, Number.NaN, 11]) expect(() => guardToolResult('words', handler, { maxTokens: CAP, safetyFactor })).toThrow(/safety factor/);
  });
});
