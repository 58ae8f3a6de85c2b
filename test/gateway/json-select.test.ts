import { search } from '@jmespath-community/jmespath';
import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { QUERY_DEADLINE_MS, QUERY_RESULT_CHARS, QUERY_STEP_BUDGET, runQuery, selectPath } from '../../src/gateway/results/index.js';
import { parsePath } from '../../src/gateway/config/index.js';

const value = { items: [{ title: 'a', 'x.y': 1 }, { title: 'b' }], 'odd key': true };

describe('read_result paths', () => {
  it('reads dotted keys, bracketed indexes, quoted keys and a leading $', () => {
    expect(parsePath('items[1].title')).toEqual(['items', 1, 'title']);
    expect(parsePath('$.items[0]')).toEqual(['items', 0]);
    expect(parsePath('[2]')).toEqual([2]);
    expect(selectPath(value, 'items[0]["x.y"]')).toBe(1);
    expect(selectPath(value, '["odd key"]')).toBe(true);
    expect(selectPath(value, '$')).toBe(value);
  });

  it('refuses every other syntax, saying what to use instead', () => {
    const cases: Array<[string, RegExp]> = [
      ['items[*].title', /use query/],
      ['items[-1]', /use query/],
      ['items[0:2]', /use query/],
      ['$..title', /recursive descent/],
      ['/items/1/title', /the same place is "items\[1\]\.title"/],
      ['items title', /expected "\." or "\["/],
    ];
    for (const [path, message] of cases) expect(() => parsePath(path), path).toThrow(message);
  });

  it('names the first step that is not there', () => {
    expect(() => selectPath(value, 'items[5]')).toThrow(/\$\.items has 2 items/);
    expect(() => selectPath(value, 'items[0].nope')).toThrow(/\$\.items\[0\] has no key "nope" \(keys: "title", "x\.y"\)/);
    expect(() => selectPath(value, 'items.title')).toThrow(/\$\.items is an array, not an object/);
  });
});

describe('read_result queries', () => {
  it('runs JMESPath and reports a bad expression as INVALID_QUERY', () => {
    expect(runQuery(value, 'items[*].title')).toEqual(['a', 'b']);
    try {
      runQuery(value, 'items[?');
      expect.unreachable();
    } catch (error) {
      expect(isMcpctxError(error, 'INVALID_QUERY')).toBe(true);
    }
  });
});

// Issue 30, item 2: a query is metered (a step budget, a deadline behind it) and what it builds
// is weighed with shared references counted once, so no query holds the gateway's thread.
describe('read_result query budget', () => {
  const packages = { result: Array.from({ length: 261 }, (_, index) => ({ name: `pkg-${index}`, version: `1.0.${index}`, tags: ['a', 'b'] })) };
  const pipes = (count: number, step = '[@,@]') => Array.from({ length: count }, () => step).join('|');

  function refusal(run: () => unknown): string {
    try {
      run();
    } catch (error) {
      expect(isMcpctxError(error, 'INVALID_QUERY')).toBe(true);
      return (error as Error).message;
    }
    return expect.unreachable('the query was not refused') as never;
  }

  function timed<T>(run: () => T): { value: T; ms: number } {
    const started = performance.now();
    const value = run();
    return { value, ms: performance.now() - started };
  }

  it("refuses the issue's query (40 pipes of [@,@], 2^40 values written out) at once, naming the size a query may build", () => {
    const query = pipes(40);
    expect(query).toHaveLength(239);
    const { value: message, ms } = timed(() => refusal(() => runQuery(packages, query)));
    expect(message).toMatch(/its result would be about [\d.e]+ characters of JSON written out, over the 2,000,000 a query may build/);
    expect(ms).toBeLessThan(1000);
  });

  it('counts shared references once while weighing, and returns what the library returns when it is small enough', () => {
    const small = { a: [1, 2] };
    expect(runQuery(small, pipes(10))).toEqual(search(small, pipes(10)));
    // 2^20 copies of a 9-character value written out: over 2,000,000 characters, yet weighed in 20 walks.
    expect(refusal(() => runQuery(small, pipes(20)))).toMatch(/characters of JSON written out/);
  });

  it('stops cousins of the doubling query by the step budget: hashes, to_string, flattening, projections, equality', () => {
    const cases = [
      `${pipes(24, '{a:@,b:@}')} | to_string(@)`,
      `${pipes(20)} | [][][][][][][][][][][][][][][][][][][]`,
      `${pipes(20)} | [*][*][*][*][*][*][*][*][*][*][*][*][*][*][*][*][*][*][*][*].result[*].name`,
      `[${pipes(20)}, ${pipes(20)}] | [0] == [1]`,
      `${pipes(5, '[@,@,@,@]')} | [*][*][*][*][*].result[*].{n: name, v: version}`,
      `sort_by(${pipes(12)} | [][][][][][][][][][][], &to_string(@))`,
      `join(',', ${pipes(18, "[@,@]")} | [][][][][][][][][][][][][][][][][] | [*].result[0].name)`,
    ];
    for (const query of cases) {
      const { value: message, ms } = timed(() => refusal(() => runQuery(packages, query)));
      expect(message, query).toMatch(/step budget of a query|ms a query may take|characters of JSON written out/);
      expect(ms, query).toBeLessThan(1000);
    }
  });

  it('charges by steps: one per node per value, so a budget one short of a query refuses it', () => {
    const items = { items: Array.from({ length: 100 }, (_, index) => ({ a: index })) };
    // The projection, its left side, and its right side once per item.
    expect(runQuery(items, 'items[*].a', { steps: 102 })).toHaveLength(100);
    expect(refusal(() => runQuery(items, 'items[*].a', { steps: 101 }))).toMatch(/more than the 101-step budget of a query\. Ask for less work/);
    expect(QUERY_STEP_BUDGET).toBe(1_000_000);
  });

  it('charges what a function reads or writes before it runs: a huge pad, a repeated replace, long sort keys', () => {
    expect(refusal(() => runQuery({}, "pad_left('a', `100000000`)"))).toMatch(/step budget/);
    expect(refusal(() => runQuery({ s: 'x'.repeat(1000) }, "replace(s, 'x', 'y', `100000000`)"))).toMatch(/step budget/);
    const longKeys = Array.from({ length: 2000 }, (_, index) => ({ k: `${'k'.repeat(5000)}${index}` }));
    expect(refusal(() => runQuery(longKeys, 'sort_by(@, &k)[0].k'))).toMatch(/step budget/);
    expect(runQuery(longKeys.slice(0, 10), 'sort_by(@, &k)[0].k')).toBe(`${'k'.repeat(5000)}0`);
  });

  it('stops at the deadline behind the step budget', () => {
    const items = Array.from({ length: 5000 }, (_, index) => ({ a: index }));
    expect(refusal(() => runQuery(items, '[*].a', { deadlineMs: 0 }))).toMatch(/ran past the 0 ms a query may take/);
    expect(QUERY_DEADLINE_MS).toBeLessThanOrEqual(100);
  });

  it('allows a result as large as the stored value, and refuses one that builds past both', () => {
    const stored = { text: 'x'.repeat(100) };
    expect(runQuery(stored, '@', { resultChars: 10 })).toBe(stored);
    expect(refusal(() => runQuery(stored, '[@,@]', { resultChars: 10 }))).toMatch(/over the 10 a query may build \(and larger than the stored result/);
    expect(QUERY_RESULT_CHARS).toBe(2_000_000);
  });

  it('refuses a result nested deeper than MAX_JSON_DEPTH', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 400; level += 1) deep = [deep];
    expect(refusal(() => runQuery(deep, pipes(150, '[@]')))).toMatch(/its result nests deeper than 512 levels/);
    expect(runQuery(deep, pipes(100, '[@]'))).toBeDefined();
  });

  it('trims in linear time, as the library trims (its RegExp backtracks for seconds over a run of spaces before a newline)', () => {
    const { value, ms } = timed(() => runQuery({ text: `${' '.repeat(200_000)}\nx  ` }, 'trim_right(text)'));
    expect(value).toBe(`${' '.repeat(200_000)}\nx`);
    expect(ms).toBeLessThan(1000);
    const samples = ['  hi \n', '\u0085\t x \u00a0', 'xxaxx', 'ab ', '', '   ', 'a\nb  \n', '[]x[]'];
    for (const text of samples) {
      for (const query of ['trim(@)', 'trim_left(@)', 'trim_right(@)', "trim(@, 'x')", "trim_right(@, ' b')", "trim(@, '[]')", "trim_left(@, ' \n')"]) {
        expect(runQuery(text, query), `${query} of ${JSON.stringify(text)}`).toEqual(search(text, query));
      }
    }
  });

  it('answers what the library answers for ordinary queries', () => {
    const doc = { a: [1, 2, 3, { b: 'x' }], s: '  hi \n', o: { k: 1, l: [1, 2] }, items: [{ n: 'b', v: 2 }, { n: 'a', v: 1 }, { n: 'c', v: 3 }], e: {} };
    const queries = [
      'a[*]', 'a[1:3]', 'a[::-1]', 's[1:4]', 'o.*', 'o.l[]', 'a[?@ > `1`]', 'items[?v > `1`].n', 'sort_by(items, &n)[*].n', 'max_by(items, &v).n',
      'min_by(items, &n).v', 'group_by(items, &n)', 'map(&n, items)', 'to_string(o)', 'e || o', 'e && o', '!e', 'o ? a : s', 'a == a', 'o == `{"k":1,"l":[1,2]}`',
      'o != o', 'length(s)', 'reverse(s)', "join('-', ['a','b'])", 'keys(o)', 'values(o)', 'items(o)', 'merge(o, e)', 'let $v = o in $v.k', "split('a,b', ',')",
      "replace('aaa', 'a', 'bb')", "replace('aaa', 'a', 'bb', `2`)", "pad_left('a', `5`, '-')", 'contains(a, `2`)', 'sort(`[3,1,2]`)', "sort(['b','a'])",
      "items[?n == 'a']", '[?@]', 'not_null(e, o)', 'zip(a, a)', 'from_items(items(o))', 'a[-1].b', 'o.l | [0] + [1]', 'items[*].{n: n, twice: v * `2`}', 'length(items[?v > `1`])',
    ];
    for (const query of queries) expect(runQuery(doc, query), query).toEqual(search(doc as never, query));
  });
});
