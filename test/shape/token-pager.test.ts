import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/optimizer/_generate.js';
import { isMcpctxError } from '../../src/errors/index.js';
import { CursorCodec, pageByTokens, type CursorBinding, type TokenPageResult } from '../../src/shape/index.js';
import { isPlainObject } from '../../src/json/index.js';
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
      expect(pages.map((page) => [page.start, page.end])).toEqual(pages.map((_, index) => [pages[index - 1]?.end ?? 0, pages[index]?.end]));
      expect(pages.at(-1)?.end).toBe(items.length);
      for (const page of pages) {
        expect(page.page.items.length).toBeGreaterThanOrEqual(1);
        if (page.cut === null) expect(page.page.items).toEqual(items.slice(page.start, page.end));
        else expect(page.page.items).toHaveLength(1);
        if (page.page.over_budget !== true) expect(page.tokens).toBeLessThanOrEqual(budget);
      }
    }
  });

  it('sends a record larger than the budget alone, cut to fit with its id whole, says how to fetch it, and moves on', () => {
    const items = [{ id: 1, body: 'word '.repeat(400), tags: Array.from({ length: 300 }, (_, index) => `tag${index}`) }, { id: 2 }, { id: 3 }];
    const codec = new CursorCodec();
    const first = pageByTokens({ items, budget: 250, codec, binding });
    expect(first.tokens).toBeLessThanOrEqual(250);
    expect(first.tokens).toBe(countTokens(first.text));
    expect(first.page.over_budget).toBeUndefined();
    expect(first.page.items).toHaveLength(1);
    const cut = first.page.items[0] as Record<string, unknown>;
    expect(cut.id).toBe(1);
    expect(cut._truncated).toEqual(['body', 'tags']);
    expect((items[0]?.body ?? '').startsWith(cut.body as string)).toBe(true);
    expect(first.cut).toEqual({ position: 0, id: 1, paths: ['body', 'tags'] });
    expect(first.page.note).toMatch(/^Record 1 of 3\. It is larger than the page budget of 250 tokens, so it is sent cut to fit \(shortened: body, tags, listed in _truncated\)\. Fetch the record with id 1 on its own/);
    expect(first.page.truncated).toBe(true);
    expect(first.end).toBe(1);
    const second = pageByTokens({ items, budget: 250, codec, binding, cursor: first.page.next_cursor ?? '' });
    expect(second.page.items).toEqual([{ id: 2 }, { id: 3 }]);
  });

  it('keeps the id named by idField and says what fetchHint says', () => {
    const items = [{ title: 'x'.repeat(20_000), number: 233 }];
    const hints: unknown[] = [];
    const page = pageByTokens({
      items,
      budget: 200,
      codec: new CursorCodec(),
      binding,
      idField: 'number',
      fetchHint: (cut) => {
        hints.push(cut);
        return `Call get_pull_request with number ${String(cut.id)} and field "${cut.paths[0]}", offset 0`;
      },
    });
    expect(page.page.items).toEqual([{ title: expect.stringMatching(/^x+$/), number: 233, _truncated: ['title'] }]);
    expect(page.page.note).toContain('Call get_pull_request with number 233 and field "title", offset 0.');
    expect(hints.at(-1)).toEqual({ position: 0, id: 233, paths: ['title'] });
    expect(page.page.note).toContain('This is the last page.');
  });

  it('cuts records that are not objects too: a long string, a long array', () => {
    for (const item of ['z'.repeat(50_000), Array.from({ length: 5_000 }, (_, index) => index)]) {
      const page = pageByTokens({ items: [item, 'next'], budget: 150, codec: new CursorCodec(), binding });
      expect(page.tokens).toBeLessThanOrEqual(150);
      expect(page.cut?.paths).toEqual(['(the item)']);
      expect(page.page.note).toContain('sent cut to fit (it is shortened)');
      expect(page.page.next_cursor).not.toBeNull();
    }
  });

  it('walks past a 150,000-character record in the middle of the list', () => {
    const items = Array.from({ length: 30 }, (_, id) => ({ id, title: id === 10 ? 'long title '.repeat(15_000) : `title ${id}` }));
    const pages = walk(items, 4000);
    expect(pages.at(-1)?.end).toBe(30);
    const cutPage = pages.find((page) => page.cut !== null);
    expect(cutPage?.start).toBe(10);
    for (const page of pages) expect(page.tokens).toBeLessThanOrEqual(4000);
    expect(pages.flatMap((page) => page.page.items).map((item) => (item as { id: number }).id)).toEqual(items.map((item) => item.id));
  });

  it('flags a page over the budget only when the record cut to its id does not fit, and states the page\'s real size', () => {
    const items = [{ id: 'i'.repeat(400), body: 'b'.repeat(1_000) }, { id: 'short' }];
    const page = pageByTokens({ items, budget: 60, codec: new CursorCodec(), binding });
    expect(page.page.over_budget).toBe(true);
    expect(page.tokens).toBe(countTokens(page.text));
    expect(page.tokens).toBeGreaterThan(60);
    expect(page.page.note).toContain(`this page is ${page.tokens} tokens`);
    expect(page.page.items).toEqual([{ id: 'i'.repeat(400), _truncated: ['(the item)'] }]);
    expect(page.page.next_cursor).not.toBeNull();
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

  it('refuses a budget that is not a positive integer, and a reserve that leaves no room', () => {
    for (const budget of [0, -1, 1.5, Number.NaN]) {
      expect(() => pageByTokens({ items: [1], budget, codec: new CursorCodec(), binding })).toThrow(/positive integer/);
    }
    for (const reserve of [-1, 0.5, Number.NaN, 100, 101]) {
      expect(() => pageByTokens({ items: [1], budget: 100, reserve, codec: new CursorCodec(), binding }), String(reserve)).toThrow(/reserve must be an integer.*less than the budget \(100\)/);
    }
  });
});

/** Records of every shape and size, with some far over any page: text, nesting, long arrays, many keys, non-objects. */
function mixedRecords(seed: number, count: number): unknown[] {
  const next = seededRandom(seed);
  const word = (): string => PIECES[Math.floor(next() * PIECES.length)] ?? '';
  const text = (length: number): string => Array.from({ length }, word).join('');
  return Array.from({ length: count }, (_, index) => {
    const size = next() < 0.15 ? 400 + Math.floor(next() * 3_000) : Math.floor(next() * 12);
    switch (Math.floor(next() * 6)) {
      case 0:
        return { id: index, text: text(size), flag: next() > 0.5 };
      case 1:
        return { id: `r${index}`, nested: { a: text(size), list: Array.from({ length: size }, () => Math.floor(next() * 1000)) } };
      case 2:
        return Object.fromEntries([['id', index], ...Array.from({ length: size }, (_, key) => [`k${key}`, text(2)])]);
      case 3:
        return text(size);
      case 4:
        return Array.from({ length: size }, () => text(1));
      default:
        return { noId: text(size) };
    }
  });
}

describe('pageByTokens, property: no page over its budget unless flagged', () => {
  it('holds for random records, budgets and reserves (seeded)', () => {
    for (let seed = 1; seed <= 60; seed += 1) {
      const next = seededRandom(seed * 7919);
      const items = mixedRecords(seed, 25);
      const budget = 20 + Math.floor(next() * 600);
      const reserve = next() < 0.3 ? undefined : Math.floor(next() * budget);
      const codec = new CursorCodec();
      const pages: Array<TokenPageResult<unknown>> = [];
      let cursor: string | undefined;
      for (let guard = 0; guard <= items.length; guard += 1) {
        const page = pageByTokens({ items, budget, reserve, cursor, codec, binding });
        pages.push(page);
        if (page.page.next_cursor === null) break;
        cursor = page.page.next_cursor;
      }
      const where = `seed ${seed}, budget ${budget}, reserve ${String(reserve)}`;
      expect(pages.at(-1)?.end, where).toBe(items.length);
      let position = 0;
      for (const page of pages) {
        expect(page.start, where).toBe(position);
        expect(page.end, where).toBeGreaterThan(page.start);
        position = page.end;
        expect(page.tokens, where).toBe(countTokens(page.text));
        expect(isDeepStrictEqual(JSON.parse(page.text), page.page), where).toBe(true);
        if (page.page.over_budget === true) expect(page.page.note, where).toContain(`this page is ${page.tokens} tokens`);
        else expect(page.tokens, where).toBeLessThanOrEqual(budget);
        if (page.cut === null) expect(page.page.items, where).toEqual(items.slice(page.start, page.end));
        else {
          expect(page.page.items, where).toHaveLength(1);
          const original = items[page.start];
          if (isPlainObject(original) && Object.hasOwn(original, 'id')) expect((page.page.items[0] as { id: unknown }).id, where).toEqual(original.id);
        }
      }
    }
  });
});
