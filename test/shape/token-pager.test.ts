import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/optimizer/_generate.js';
import { isMcpctxError } from '../../src/errors/index.js';
import { CursorCodec, pageByTokens, type CursorBinding, type TokenPageResult } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';

const binding: CursorBinding = { query: { tool: 'list', state: 'all' }, revision: 'r1' };

const PIECES = ['a', 'Z', ' ', '  ', '7', '42', 'é', '😀', '中文', '<|endoftext|>', '\n', '\t', '"', '\\', '}', '{', ',', "'s", '//', 'http://x.y/z', '\uFEFF', '-', '\r\n'];

function randomRecords(seed: number, count: number): Array<Record<string, unknown>> {
  // Deterministic, so a failure names a reproducible seed.
  const next = seededRandom(seed);
  const text = (): string => {
    const parts: string[] = [];
    const length = Math.floor(next() * 12);
    for (let index = 0; index < length; index += 1) parts.push(PIECES[Math.floor(next() * PIECES.length)] ?? '');
    return parts.join('');
  };
  return Array.from({ length: count }, (_, index) => {
    const shape = Math.floor(next() * 4);
    if (shape === 0) return { id: index, text: text(), flag: next() > 0.5, empty: null };
    if (shape === 1) return { id: index, nested: { a: text(), b: [text(), Math.floor(next() * 1000)] }, tail: text() };
    if (shape === 2) return { id: index, n: next() * 1e6 };
    return { id: index, [text() || 'k']: text(), last: ` ${text()} ` };
  });
}

function walk(items: readonly unknown[], budget: number, codec = new CursorCodec()): Array<TokenPageResult<unknown>> {
  const pages: Array<TokenPageResult<unknown>> = [];
  let cursor: string | undefined;
  for (let guard = 0; guard <= items.length + 1; guard += 1) {
    const page = pageByTokens({ items, budget, cursor, codec, binding });
    pages.push(page);
    if (page.page.next_cursor === null) return pages;
    cursor = page.page.next_cursor;
  }
  throw new Error('the walk did not end');
}

describe('pageByTokens', () => {
  it('reports the exact o200k count of the text it sends, and the text is the page', () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const items = randomRecords(seed, 60);
      for (const page of walk(items, 40 + seed * 25)) {
        expect(page.tokens, `seed ${seed}`).toBe(countTokens(page.text));
        expect(isDeepStrictEqual(JSON.parse(page.text), page.page), `seed ${seed}`).toBe(true);
      }
    }
  });

  it('keeps every page within budget, sends every record once and in order, and always advances', () => {
    for (let seed = 100; seed < 120; seed += 1) {
      const items = randomRecords(seed, 80);
      const budget = 60 + (seed % 7) * 90;
      const pages = walk(items, budget);
      const sent = pages.flatMap((page) => page.page.items);
      expect(sent).toEqual(items);
      for (const page of pages) {
        expect(page.page.items.length).toBeGreaterThanOrEqual(1);
        if (page.page.over_budget === true) expect(page.page.items).toHaveLength(1);
        else expect(page.tokens).toBeLessThanOrEqual(budget);
      }
    }
  });

  it('ships a record larger than the budget alone, flagged, and moves on', () => {
    const items = [{ id: 1, body: 'word '.repeat(400) }, { id: 2 }, { id: 3 }];
    const first = pageByTokens({ items, budget: 50, codec: new CursorCodec(), binding });
    expect(first.page.items).toEqual([items[0]]);
    expect(first.page.over_budget).toBe(true);
    expect(first.page.note).toMatch(/does not fit the page budget of 50 tokens \(a page with it alone takes \d+\); it is sent whole/);
    expect(first.page.truncated).toBe(true);
    expect(first.tokens).toBe(countTokens(first.text));
    expect(first.end).toBe(1);
  });

  it('says in band whether more remain and how to continue', () => {
    const items = Array.from({ length: 50 }, (_, id) => ({ id, title: `record number ${id}` }));
    const pages = walk(items, 200);
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages.slice(0, -1)) {
      expect(page.page.truncated).toBe(true);
      expect(page.page.next_cursor).toEqual(expect.any(String));
      expect(page.page.note).toMatch(/cursor set to next_cursor/);
      expect(page.page.total_matching).toBe(50);
    }
    const last = pages.at(-1);
    expect(last?.page.truncated).toBe(false);
    expect(last?.page.next_cursor).toBeNull();
    expect(last?.page.note).toMatch(/last page/);
  });

  it('holds the budget with the default reserve and with a reserve too small for the envelope', () => {
    const items = Array.from({ length: 200 }, (_, id) => ({ id, title: `item ${id}` }));
    for (const reserve of [undefined, 0, 1]) {
      for (const page of walk(items, 120)) expect(page.tokens).toBeLessThanOrEqual(120);
      const pages = (() => {
        const out: Array<TokenPageResult<unknown>> = [];
        let cursor: string | undefined;
        const codec = new CursorCodec();
        for (let guard = 0; guard < 500; guard += 1) {
          const page = pageByTokens({ items, budget: 120, reserve, cursor, codec, binding });
          out.push(page);
          if (page.page.next_cursor === null) break;
          cursor = page.page.next_cursor;
        }
        return out;
      })();
      expect(pages.flatMap((page) => page.page.items)).toEqual(items);
      for (const page of pages) expect(page.tokens).toBeLessThanOrEqual(120);
    }
  });

  it('reads each record at most twice over a whole walk, and none before the cursor or past the page', () => {
    const reads = new Array<number>(1_000).fill(0);
    const items = reads.map((_, id) => ({
      toJSON: () => {
        reads[id] = (reads[id] ?? 0) + 1;
        return { id, title: `record ${id}` };
      },
    }));
    const pages = walk(items, 300);
    expect(pages.length).toBeGreaterThan(10);
    // Once when added; the record that did not fit (or was given back to make room for the
    // envelope) is read again as the next page's first.
    expect(Math.max(...reads)).toBeLessThanOrEqual(2);
    expect(reads.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(items.length + 2 * pages.length);
  });

  it('answers an empty list with an empty page', () => {
    const page = pageByTokens({ items: [], budget: 100, codec: new CursorCodec(), binding });
    expect(page.page).toEqual({ items: [], total_matching: 0, truncated: false, next_cursor: null, note: 'No records match. This is the last page.' });
    expect(JSON.parse(page.text)).toEqual(page.page);
    expect(page.tokens).toBe(countTokens(page.text));
  });

  it('rejects a cursor of another query or revision rather than restarting', () => {
    const codec = new CursorCodec();
    const items = Array.from({ length: 30 }, (_, id) => ({ id }));
    const first = pageByTokens({ items, budget: 40, codec, binding });
    const cursor = first.page.next_cursor ?? '';
    const reject = (other: CursorBinding): string => {
      try {
        pageByTokens({ items, budget: 40, codec, binding: other, cursor });
      } catch (error) {
        if (isMcpctxError(error)) return error.code;
      }
      return 'accepted';
    };
    expect(reject({ ...binding, query: { tool: 'list', state: 'open' } })).toBe('FOREIGN_CURSOR');
    expect(reject({ ...binding, revision: 'r2' })).toBe('STALE_CURSOR');
    expect(reject(binding)).toBe('accepted');
  });

  it('refuses a budget that is not a positive integer', () => {
    for (const budget of [0, -1, 1.5, Number.NaN]) {
      expect(() => pageByTokens({ items: [1], budget, codec: new CursorCodec(), binding })).toThrow(/positive integer/);
    }
  });
});
