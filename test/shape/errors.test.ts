import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import {
  CursorCodec,
  ResultCache,
  buildToolResult,
  capText,
  defineProjection,
  formatText,
  guardToolResult,
  pageByCount,
  pageByTokens,
  stableJson,
  toCompactJson,
  toCsv,
  toToon,
  type FieldSpec,
} from '../../src/shape/index.js';

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
let deep: unknown = 0;
for (let depth = 0; depth < 200_000; depth += 1) deep = [deep];
const binding = { query: { tool: 't' }, revision: 'r' };

// Every public function of mcpctx/shape, fed what a careless or hostile caller might pass.
const CASES: Array<[string, () => unknown]> = [
  ['CursorCodec.issue with a negative position', () => new CursorCodec().issue(binding, -1)],
  ['CursorCodec.issue with a function in the query', () => new CursorCodec().issue({ query: { f: () => 1 }, revision: 'r' }, 0)],
  ['CursorCodec with a numeric key', () => new CursorCodec({ key: 7 as unknown as string })],
  ['stableJson of a cycle', () => stableJson(cyclic)],
  ['stableJson of a symbol', () => stableJson(Symbol('s'))],
  ['stableJson of 200,000 levels', () => stableJson(deep)],
  ['toCompactJson of a cycle', () => toCompactJson(cyclic)],
  ['toCompactJson of a bigint', () => toCompactJson({ n: 1n })],
  ['toCompactJson of 200,000 levels', () => toCompactJson(deep)],
  ['toToon of a cycle', () => toToon(cyclic)],
  ['toCsv of rows that are not objects', () => toCsv([1])],
  ['formatText of a bigint', () => formatText(5n, 'json')],
  ['buildToolResult of a cycle', () => buildToolResult(cyclic)],
  ['pageByTokens of a record with a bigint', () => pageByTokens({ items: [{ n: 1n }], budget: 100, codec: new CursorCodec(), binding })],
  ['pageByTokens of a cyclic record', () => pageByTokens({ items: [cyclic], budget: 100, codec: new CursorCodec(), binding })],
  ['pageByTokens of 200,000 levels', () => pageByTokens({ items: [deep], budget: 100, codec: new CursorCodec(), binding })],
  ['pageByTokens with a fractional reserve', () => pageByTokens({ items: [1], budget: 100, reserve: 0.5, codec: new CursorCodec(), binding })],
  ['pageByCount with a page size of 0', () => pageByCount({ items: [1], pageSize: 0, codec: new CursorCodec(), binding })],
  ['capText with a cap of -1', () => capText('abc', -1)],
  ['defineProjection with a null field', () => defineProjection([null as unknown as FieldSpec], { knownPaths: ['a'] })],
  ['defineProjection with a numeric path', () => defineProjection([{ path: 5 as unknown as string }], { knownPaths: ['a'] })],
  ['ResultCache with a NaN TTL', () => new ResultCache({ ttlMs: Number.NaN })],
  ['guardToolResult with a fractional cap', () => guardToolResult('t', () => ({}), { maxTokens: 1.5 })],
];

describe('every error mcpctx/shape throws is an McpctxError with a code', () => {
  it.each(CASES)('%s', (_name, action) => {
    let thrown: unknown;
    try {
      action();
    } catch (error) {
      thrown = error;
    }
    expect(thrown, 'expected a refusal').toBeDefined();
    expect(isMcpctxError(thrown), String(thrown)).toBe(true);
    expect((thrown as { code: string }).code).toMatch(/^[A-Z_]+$/);
  });
});
