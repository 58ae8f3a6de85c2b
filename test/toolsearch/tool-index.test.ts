import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { MAX_QUERY_CHARS, ToolIndex, type SearchableTool } from '../../src/toolsearch/index.js';
import { DEFAULT_MIN_SCORE } from '../../src/toolsearch/_tool-index.js';
import { githubCatalog } from './_catalogs.js';

/** A seeded shuffle (mulberry32), so a failure names an order that reproduces. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed;
  const random = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function expectInvalidArgument(run: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(isMcpctxError(caught, 'INVALID_ARGUMENT'), String(caught)).toBe(true);
  expect((caught as Error).message).toMatch(message);
}

const GITHUB = githubCatalog();

describe('ToolIndex on the github-mcp-server catalog', () => {
  const index = new ToolIndex(GITHUB);

  it('indexes every tool', () => {
    expect(GITHUB).toHaveLength(117);
    expect(index.size).toBe(117);
  });

  it('ranks best first and stops at the limit', () => {
    const matches = index.search('list the pull requests of a repository', { limit: 5 });
    expect(matches).toHaveLength(5);
    expect(matches[0]!.name).toBe('list_pull_requests');
    const scores = matches.map((match) => match.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(index.search('pull request', { limit: 3 })).toHaveLength(3);
  });

  it('gives the same matches and scores whatever order the catalog comes in', () => {
    const queries = ['merge a pull request', 'show me the job logs of a failed workflow run', 'star a repo', 'issue', 'update'];
    const expected = queries.map((query) => index.search(query, { limit: 20 }));
    for (const seed of [1, 2, 3, 42, 1234]) {
      const other = new ToolIndex(shuffled(GITHUB, seed));
      expect(queries.map((query) => other.search(query, { limit: 20 })), `seed ${seed}`).toEqual(expected);
    }
    expect(new ToolIndex([...GITHUB].reverse()).search('update', { limit: 50 })).toEqual(index.search('update', { limit: 50 }));
  });

  it('finds no tool for a query about something else', () => {
    expect(index.search('bake a chocolate cake')).toEqual([]);
    expect(index.search('book a flight to Tokyo')).toEqual([]);
    expect(index.search('thank you!')).toEqual([]);
    expect(index.search('')).toEqual([]);
  });

  it('drops weak matches below the threshold, and keeps them when it is lowered', () => {
    // "translate this sentence into French" touches the catalog only through parameter notes and prefixes.
    const weak = 'translate this sentence into French';
    expect(index.search(weak)).toEqual([]);
    const everything = new ToolIndex(GITHUB, { minScore: 0 }).search(weak);
    expect(everything.length).toBeGreaterThan(0);
    expect(everything.every((match) => match.score < DEFAULT_MIN_SCORE)).toBe(true);
  });

  it('applies a raised threshold to every match', () => {
    const loose = index.search('create an issue', { limit: 50 });
    expect(loose.length).toBeGreaterThan(4);
    const floor = loose[Math.floor(loose.length / 2)]!.score;
    const kept = new ToolIndex(GITHUB, { minScore: floor }).search('create an issue', { limit: 50 });
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(loose.length);
    expect(kept).toEqual(loose.filter((match) => match.score >= floor));
  });
});

describe('ToolIndex fields and ties', () => {
  it('breaks equal scores by name, whatever the input order', () => {
    const twin = (name: string): SearchableTool => ({ name, description: 'Frobnicate a gadget.' });
    const tools = [twin('zeta'), twin('alpha'), twin('mid'), { name: 'other', description: 'Something else.' }];
    const matches = new ToolIndex(tools).search('frobnicate gadget');
    expect(matches.map((match) => match.name)).toEqual(['alpha', 'mid', 'zeta']);
    expect(new Set(matches.map((match) => match.score)).size).toBe(1);
    expect(new ToolIndex([...tools].reverse()).search('frobnicate gadget')).toEqual(matches);
  });

  it('searches the split name, the title (or annotations.title), the description, parameter names and notes', () => {
    const filler = Array.from({ length: 8 }, (_, i) => ({ name: `filler_${i}`, description: 'Does nothing of note.' }));
    const index = new ToolIndex([
      ...filler,
      { name: 'fetchInvoicePdf' },
      { name: 'tool_b', title: 'Quarterly ledger' },
      { name: 'tool_c', annotations: { title: 'Shipment tracker' } },
      { name: 'tool_d', description: 'Reconcile accounts.' },
      { name: 'tool_e', inputSchema: { type: 'object', properties: { warehouseCode: { type: 'string' } } } },
      { name: 'tool_g', inputSchema: { type: 'object', properties: { method: { type: 'string', enum: ['get_diff'] }, mode: { description: 'Widget flavour.' } } } },
      { name: 'tool_f', inputSchema: { type: 'object', properties: { outer: { type: 'object', properties: { nestedCarrier: { type: 'string' } } } } } },
      // Parameter names are hints: one found only there scores under the default floor.
    ], { minScore: 0 });
    const top = (query: string): string | undefined => index.search(query, { limit: 1 })[0]?.name;
    expect(top('invoice pdf')).toBe('fetchInvoicePdf');
    expect(top('ledger')).toBe('tool_b');
    expect(top('shipment')).toBe('tool_c');
    expect(top('reconcile')).toBe('tool_d');
    expect(top('warehouse code')).toBe('tool_e');
    expect(top('carrier')).toBe('tool_f');
    // A parameter's enum values and description (a consolidated tool's methods) are read too.
    expect(top('diff')).toBe('tool_g');
    expect(top('flavour')).toBe('tool_g');
  });

  it('ranks a word in the name above the same word in a description', () => {
    const index = new ToolIndex([
      { name: 'archive_project', description: 'Move a project out of sight.' },
      { name: 'hide_project', description: 'Archive.' },
    ]);
    expect(index.search('archive')[0]?.name).toBe('archive_project');
  });

  it('an empty catalog finds nothing', () => {
    const index = new ToolIndex([]);
    expect(index.size).toBe(0);
    expect(index.search('anything')).toEqual([]);
  });
});

describe('ToolIndex refuses what it cannot rank', () => {
  it('refuses duplicate and missing names', () => {
    expectInvalidArgument(() => new ToolIndex([{ name: 'a' }, { name: 'b' }, { name: 'a' }]), /two tools are named "a"/);
    expectInvalidArgument(() => new ToolIndex([{ name: '' }]), /position 0 has no name/);
    expectInvalidArgument(() => new ToolIndex([{ name: 'a' }, { description: 'x' } as unknown as SearchableTool]), /position 1 has no name/);
  });

  it('refuses a bad limit or minScore', () => {
    const index = new ToolIndex([{ name: 'a' }]);
    expectInvalidArgument(() => index.search('a', { limit: 0 }), /limit must be a positive integer/);
    expectInvalidArgument(() => index.search('a', { limit: 1.5 }), /limit must be a positive integer/);
    expectInvalidArgument(() => new ToolIndex([], { minScore: Number.NaN }), /minScore must be a finite number/);
  });

  it('refuses an overlong query with a remedy instead of searching part of it', () => {
    const index = new ToolIndex(GITHUB);
    expectInvalidArgument(() => index.search('x'.repeat(MAX_QUERY_CHARS + 1)), /at most 4096; describe the task in a sentence/);
    const manyWords = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    expectInvalidArgument(() => index.search(manyWords), /100 distinct words, at most 64/);
  });
});
