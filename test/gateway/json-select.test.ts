import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { parsePath, runQuery, selectPath } from '../../src/gateway/results/index.js';

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
