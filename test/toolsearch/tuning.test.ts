import { describe, expect, it } from 'vitest';
import { ToolIndex, type ToolMatch } from '../../src/toolsearch/index.js';
import { catalog } from './_catalogs.js';
import { EVERYDAY_TUNING_QUERIES, TUNING_QUERIES, type TuningQuery } from './tuning-queries.js';

interface Outcome {
  query: TuningQuery;
  rank: number;
  found: ToolMatch[];
}

function rankAll(queries: readonly TuningQuery[]): Outcome[] {
  const indexes = new Map<string, ToolIndex>();
  return queries.map((query) => {
    let index = indexes.get(query.catalog);
    if (index === undefined) {
      index = new ToolIndex(catalog(query.catalog));
      indexes.set(query.catalog, index);
    }
    const expected: readonly string[] = typeof query.expected === 'string' ? [query.expected] : query.expected;
    const found = index.search(query.query, { limit: 5 });
    return { query, rank: found.findIndex((match) => expected.includes(match.name)), found };
  });
}

function misses(outcomes: readonly Outcome[]): string[] {
  return outcomes
    .filter((outcome) => outcome.rank === -1)
    .map((outcome) => `${outcome.query.catalog}: "${outcome.query.query}" → ${outcome.found.map((match) => match.name).join(', ') || 'nothing'}`);
}

describe('tuning queries', () => {
  it('has at least 20 queries on the github catalog and every expected tool exists', () => {
    expect(TUNING_QUERIES.filter((query) => query.catalog === 'github').length).toBeGreaterThanOrEqual(20);
    expect(EVERYDAY_TUNING_QUERIES.length).toBeGreaterThanOrEqual(20);
    for (const query of [...TUNING_QUERIES, ...EVERYDAY_TUNING_QUERIES]) {
      const names = new Set(catalog(query.catalog).map((tool) => tool.name));
      for (const name of typeof query.expected === 'string' ? [query.expected] : query.expected) expect(names.has(name), `${query.catalog}/${name}`).toBe(true);
    }
  });

  const cases: Array<[string, readonly TuningQuery[]]> = [
    ['the github catalog', TUNING_QUERIES.filter((query) => query.catalog === 'github')],
    ['all catalogs', TUNING_QUERIES],
    ['the everyday-words queries', EVERYDAY_TUNING_QUERIES],
  ];
  for (const [label, queries] of cases) {
    it(`put the right tool in the top 5 for at least 90% of ${label}`, () => {
      const outcomes = rankAll(queries);
      const top5 = outcomes.filter((outcome) => outcome.rank >= 0).length;
      const top1 = outcomes.filter((outcome) => outcome.rank === 0).length;
      const figure = `top 5: ${top5}/${outcomes.length}, top 1: ${top1}/${outcomes.length}`;
      expect(top5 / outcomes.length, `${figure}; misses:\n${misses(outcomes).join('\n')}`).toBeGreaterThanOrEqual(0.9);
    });
  }
});
