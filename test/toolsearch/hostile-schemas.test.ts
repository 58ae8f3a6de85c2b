import { describe, expect, it } from 'vitest';
import { ToolIndex } from '../../src/toolsearch/index.js';
import { MAX_PARAMETER_NAMES, MAX_SCHEMA_DEPTH } from '../../src/toolsearch/_parameter-names.js';

const DEEP = 100_000;
const WIDE = 50_000;

/** `{ properties: { level1: { properties: { level2: ... } } } }`, `depth` levels, built without recursion. */
function deepProperties(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = { type: 'object' };
  let at = root;
  for (let level = 1; level <= depth; level++) {
    const child: Record<string, unknown> = { type: 'object' };
    at.properties = { [`level${level}`]: child };
    at = child;
  }
  return root;
}

/** The same depth through `items` and `anyOf` instead of `properties`. */
function deepItemsAndBranches(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = { type: 'object', properties: { first: { type: 'string' } } };
  let at = root;
  for (let level = 1; level <= depth; level++) {
    const child: Record<string, unknown> = { type: 'array', properties: { [`deep${level}`]: { type: 'string' } } };
    if (level % 2 === 0) at.items = child;
    else at.anyOf = [child];
    at = child;
  }
  return root;
}

function wideProperties(count: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) properties[`p${i}`] = { type: 'string', description: `Parameter ${i}`, enum: ['x', 'y'] };
  return { type: 'object', properties };
}

const filler = Array.from({ length: 8 }, (_, i) => ({ name: `filler_${i}`, description: 'Does nothing of note.' }));

describe('hostile input schemas are read within bounds', () => {
  it(`a schema nested ${DEEP.toLocaleString('en')} deep neither overflows the stack nor is read past MAX_SCHEMA_DEPTH`, () => {
    const index = new ToolIndex([...filler, { name: 'deep_tool', inputSchema: deepProperties(DEEP) }], { minScore: 0 });
    expect(index.search('level1')[0]?.name).toBe('deep_tool');
    expect(index.search(`level${MAX_SCHEMA_DEPTH}`)[0]?.name).toBe('deep_tool');
    // Below the depth bound nothing is read (and so nothing found).
    expect(index.search(`level${MAX_SCHEMA_DEPTH + 1}`)).toEqual([]);
    expect(index.search(`level${DEEP}`)).toEqual([]);
  });

  it('deep items and anyOf chains are bounded the same way', () => {
    const index = new ToolIndex([...filler, { name: 'branchy', inputSchema: deepItemsAndBranches(DEEP) }], { minScore: 0 });
    expect(index.search('first')[0]?.name).toBe('branchy');
    expect(index.search('deep1')[0]?.name).toBe('branchy');
    expect(index.search(`deep${DEEP}`)).toEqual([]);
  });

  it(`${WIDE.toLocaleString('en')} properties keep at most MAX_PARAMETER_NAMES names`, () => {
    const index = new ToolIndex([...filler, { name: 'wide_tool', inputSchema: wideProperties(WIDE) }], { minScore: 0 });
    expect(index.search('p0')[0]?.name).toBe('wide_tool');
    expect(index.search(`p${MAX_PARAMETER_NAMES - 1}`)[0]?.name).toBe('wide_tool');
    expect(index.search(`p${MAX_PARAMETER_NAMES}`)).toEqual([]);
    expect(index.search(`p${WIDE - 1}`)).toEqual([]);
  });

  it('non-schema values where a schema belongs are skipped', () => {
    const odd: unknown[] = [null, 42, 'text', [], { properties: 'not an object' }, { properties: { ok: null } }, { items: [1, 2], anyOf: 'x' }];
    const index = new ToolIndex(odd.map((inputSchema, i) => ({ name: `odd_${i}`, inputSchema })), { minScore: 0 });
    expect(index.size).toBe(odd.length);
    expect(index.search('ok')[0]?.name).toBe('odd_5');
  });

  it('an enormous description is indexed only up to MAX_FIELD_CHARS', () => {
    const huge = `needle ${'padding '.repeat(500_000)} haystackend`;
    const index = new ToolIndex([...filler, { name: 'huge', description: huge }], { minScore: 0 });
    expect(index.search('needle')[0]?.name).toBe('huge');
    expect(index.search('haystackend')).toEqual([]);
  });
});
