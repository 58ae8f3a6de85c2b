import { describe, expect, it } from 'vitest';
import { CursorCodec, compareIds, pageByCount, pageByTokens } from '../../src/shape/index.js';

describe('compareIds and pageByCount', () => {
  it('orders digit ids as numbers and others by code point', () => {
    expect(['10', '2', '1', 'b', 'a', '02'].sort(compareIds)).toEqual(['1', '02', '2', '10', 'a', 'b']);
  });

  it('pages a fixed number of records with bound cursors', () => {
    const codec = new CursorCodec();
    const binding = { query: { tool: 'count' }, revision: 'r' };
    const items = ['1', '2', '3', '4', '5', '6'];
    const first = pageByCount({ items, pageSize: 5, codec, binding });
    expect(first).toMatchObject({ items: ['1', '2', '3', '4', '5'], total_matching: 6, truncated: true });
    const second = pageByCount({ items, pageSize: 5, codec, binding, cursor: first.next_cursor ?? '' });
    expect(second).toMatchObject({ items: ['6'], total_matching: 6, truncated: false, next_cursor: null });
    expect(() => pageByCount({ items, pageSize: 5, codec, binding: { ...binding, revision: 'r2' }, cursor: first.next_cursor ?? '' })).toThrow(/Stale/);
  });
});

describe('one wire envelope for both pagers', () => {
  it('pageByCount and pageByTokens send the same keys in the same order', () => {
    const codec = new CursorCodec();
    const binding = { query: { tool: 'list' }, revision: 'r' };
    const items = Array.from({ length: 60 }, (_, id) => ({ id }));
    const byCount = pageByCount({ items, pageSize: 5, codec, binding });
    const byTokens = pageByTokens({ items, budget: 150, codec, binding });
    expect(Object.keys(byCount)).toEqual(['items', 'total_matching', 'truncated', 'next_cursor', 'note']);
    expect(Object.keys(byCount)).toEqual(Object.keys(JSON.parse(byTokens.text) as object));
    expect(byTokens.page.truncated).toBe(true);
    expect(byCount).toMatchObject({ total_matching: 60, truncated: true });
  });
});
