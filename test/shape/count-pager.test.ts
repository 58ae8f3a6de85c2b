import { describe, expect, it } from 'vitest';
import { CursorCodec, compareIds, pageByCount } from '../../src/shape/index.js';

describe('compareIds and pageByCount', () => {
  it('orders digit ids as numbers and others by code point', () => {
    expect(['10', '2', '1', 'b', 'a', '02'].sort(compareIds)).toEqual(['1', '02', '2', '10', 'a', 'b']);
  });

  it('pages a fixed number of records with bound cursors', () => {
    const codec = new CursorCodec();
    const binding = { query: { tool: 'count' }, revision: 'r' };
    const items = ['1', '2', '3', '4', '5', '6'];
    const first = pageByCount({ items, pageSize: 5, codec, binding });
    expect(first).toMatchObject({ items: ['1', '2', '3', '4', '5'], total: 6, moreAvailable: true });
    const second = pageByCount({ items, pageSize: 5, codec, binding, cursor: first.next_cursor ?? '' });
    expect(second).toMatchObject({ items: ['6'], total: 6, moreAvailable: false, next_cursor: null });
    expect(() => pageByCount({ items, pageSize: 5, codec, binding: { ...binding, revision: 'r2' }, cursor: first.next_cursor ?? '' })).toThrow(/Stale/);
  });
});
