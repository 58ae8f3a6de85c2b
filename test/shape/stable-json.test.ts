import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { isMcpctxError } from '../../src/errors/index.js';
import { CursorCodec, ResultCache, stableJson } from '../../src/shape/index.js';
import { MAX_JSON_DEPTH } from '../../src/tokens/index.js';

function refusal(action: () => unknown): { code: string; message: string } {
  try {
    action();
  } catch (error) {
    if (isMcpctxError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

// Values a zod-parsed argument can hold, and look-alikes that must never share their encoding.
const DISTINCT: Array<[string, unknown]> = [
  ['null', null],
  ['true', true],
  ['0', 0],
  ['1', 1],
  ['"x"', 'x'],
  ['{}', {}],
  ['[]', []],
  ['Date 2020', new Date('2020-01-01T00:00:00.000Z')],
  ['Date 2030', new Date('2030-01-01T00:00:00.000Z')],
  ['invalid Date', new Date(Number.NaN)],
  ['the ISO string of Date 2020', '2020-01-01T00:00:00.000Z'],
  ['the epoch of Date 2020', Date.parse('2020-01-01T00:00:00.000Z')],
  ['empty Map', new Map()],
  ['Map a=1', new Map([['a', 1]])],
  ['Map a=2', new Map([['a', 2]])],
  ['Map with a number key', new Map([[1, 1]])],
  ['object a=1', { a: 1 }],
  ['entries array', [['a', 1]]],
  ['empty Set', new Set()],
  ['Set 1,2', new Set([1, 2])],
  ['Set "1","2"', new Set(['1', '2'])],
  ['array 1,2', [1, 2]],
  ['bigint 1', 1n],
  ['string "1n"', '1n'],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
  ['string "NaN"', 'NaN'],
  ['[undefined]', [undefined]],
  ['[null]', [null]],
  ['undefined', undefined],
  ['nested Date in Map in Set', new Set([new Map([['at', new Date(0)]])])],
  ['nested Date in Map in Set, other time', new Set([new Map([['at', new Date(1)]])])],
];

describe('stableJson', () => {
  it('writes JSON values as JSON with keys sorted at every depth', () => {
    expect(stableJson({ b: [1, { d: 'x', c: null }], a: true })).toBe('{"a":true,"b":[1,{"c":null,"d":"x"}]}');
    expect(stableJson({ a: 1, skipped: undefined })).toBe('{"a":1}');
  });

  it('gives every value a zod-parsed argument can hold its own encoding, never shared with another value', () => {
    const seen = new Map<string, string>();
    for (const [name, value] of DISTINCT) {
      const encoded = stableJson(value);
      expect(seen.get(encoded), `${name} collides`).toBeUndefined();
      seen.set(encoded, name);
    }
  });

  it('reads a hole in an array as undefined, never as a shorter array', () => {
    expect(stableJson(new Array(1))).toBe(stableJson([undefined]));
    expect(stableJson(new Array(1))).not.toBe(stableJson([]));
  });

  it('encodes the same value the same way, whatever the order of keys, Map entries or Set members', () => {
    const one = { since: new Date(5), tags: new Set(['b', 'a']), weights: new Map<unknown, unknown>([['y', 2], ['x', 1]]) };
    const two = { weights: new Map<unknown, unknown>([['x', 1], ['y', 2]]), tags: new Set(['a', 'b']), since: new Date(5) };
    expect(stableJson(one)).toBe(stableJson(two));
  });

  it('canonicalises what a zod schema hands a tool: dates, maps, sets, bigints', () => {
    const schema = z.object({ since: z.coerce.date(), ids: z.set(z.number()), limits: z.map(z.string(), z.bigint()) });
    const parse = (since: string): unknown => schema.parse({ since, ids: new Set([2, 1]), limits: new Map([['a', 5n]]) });
    expect(stableJson(parse('2020-01-01'))).not.toBe(stableJson(parse('2030-01-01')));
    expect(stableJson(parse('2020-01-01'))).toBe(stableJson(parse('2020-01-01T00:00:00Z')));
  });

  it('refuses what it cannot encode with an McpctxError, never a TypeError or a stack overflow', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const cyclicArray: unknown[] = [];
    cyclicArray.push(cyclicArray);
    let deep: unknown = 'bottom';
    for (let depth = 0; depth < 100_000; depth += 1) deep = { deep };
    const cases: Array<[string, unknown, RegExp]> = [
      ['a function', { f: () => 1 }, /function/],
      ['a symbol', [Symbol('s')], /symbol/],
      ['a class instance', { at: new Point(1) }, /Point/],
      ['a RegExp', /x/, /RegExp/],
      ['a cycle through an object', cyclic, /cycle/],
      ['a cycle through an array', cyclicArray, /cycle/],
      ['a cycle through a Map', (() => { const map = new Map<string, unknown>(); map.set('m', map); return map; })(), /cycle/],
      ['nesting 100,000 deep', deep, new RegExp(`${MAX_JSON_DEPTH}`)],
    ];
    for (const [name, value, message] of cases) {
      const refused = refusal(() => stableJson(value));
      expect(refused.code, name).toBe('INVALID_ARGUMENT');
      expect(refused.message, name).toMatch(message);
    }
  });

  it('accepts the same value twice in one argument (a repeat is not a cycle)', () => {
    const shared = { a: 1 };
    expect(stableJson([shared, shared])).toBe('[{"a":1},{"a":1}]');
  });
});

describe('queries with dates, maps and sets', () => {
  const binding = (since: Date) => ({ query: { tool: 'list', since }, revision: 'r1' });

  it('a cursor issued for one date is foreign to another', () => {
    const codec = new CursorCodec();
    const cursor = codec.issue(binding(new Date('2020-01-01')), 3);
    expect(codec.open(cursor, binding(new Date('2020-01-01')))).toBe(3);
    expect(refusal(() => codec.open(cursor, binding(new Date('2030-01-01')))).code).toBe('FOREIGN_CURSOR');
    const setCursor = codec.issue({ query: { labels: new Set(['bug']) }, revision: 'r1' }, 1);
    expect(refusal(() => codec.open(setCursor, { query: { labels: new Set(['docs']) }, revision: 'r1' })).code).toBe('FOREIGN_CURSOR');
  });

  it('the cache never serves the rows of one date for another', async () => {
    const cache = new ResultCache<string>({ ttlMs: 60_000 });
    const key = (since: Date) => ({ query: { tool: 'list', since }, fields: ['id'], cursor: null, revision: 'r1' });
    expect(await cache.lookup(key(new Date('2020-01-01')), () => 'rows since 2020')).toEqual({ value: 'rows since 2020', cache: 'miss' });
    expect(await cache.lookup(key(new Date('2030-01-01')), () => 'rows since 2030')).toEqual({ value: 'rows since 2030', cache: 'miss' });
    expect(await cache.lookup(key(new Date('2020-01-01')), () => 'recomputed')).toEqual({ value: 'rows since 2020', cache: 'hit' });
  });

  it('a query the codec or the cache cannot encode is an McpctxError', async () => {
    const codec = new CursorCodec();
    expect(refusal(() => codec.issue({ query: { filter: () => true }, revision: 'r1' }, 0)).code).toBe('INVALID_ARGUMENT');
    const cache = new ResultCache<string>({ ttlMs: 60_000 });
    await expect(cache.lookup({ query: { n: Symbol('x') }, fields: [], cursor: null, revision: 'r1' }, () => 'x')).rejects.toSatisfy((error) =>
      isMcpctxError(error, 'INVALID_ARGUMENT'),
    );
  });
});

describe('CursorCodec.issue', () => {
  it('refuses a position outside 0 to 2^32-1 with an McpctxError', () => {
    const codec = new CursorCodec();
    for (const position of [-1, 1.5, 2 ** 32, Number.NaN]) {
      expect(refusal(() => codec.issue({ query: {}, revision: 'r' }, position)).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('refuses a key that is neither a string nor bytes with an McpctxError', () => {
    expect(refusal(() => new CursorCodec({ key: 42 as unknown as string })).code).toBe('INVALID_ARGUMENT');
  });
});
