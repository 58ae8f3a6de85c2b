import { describe, expect, it } from 'vitest';
import { ResultCache, type ResultCacheKey } from '../../src/shape/index.js';

const key: ResultCacheKey = { query: { tool: 'find', field: 'state', value: 'open' }, fields: ['id'], cursor: null, revision: 'r1' };

function counting(): { compute: () => string; calls: () => number } {
  let calls = 0;
  return {
    compute: () => {
      calls += 1;
      return `result ${calls}`;
    },
    calls: () => calls,
  };
}

describe('ResultCache', () => {
  it('says miss, then hit for the exact same query, fields, cursor and revision', async () => {
    const cache = new ResultCache<string>({ ttlMs: 60_000 });
    const { compute, calls } = counting();
    expect(await cache.lookup(key, compute)).toEqual({ value: 'result 1', cache: 'miss' });
    expect(await cache.lookup({ ...key, query: { value: 'open', field: 'state', tool: 'find' } }, compute)).toEqual({ value: 'result 1', cache: 'hit' });
    expect(calls()).toBe(1);
  });

  it('keys on fields, cursor and query', async () => {
    const cache = new ResultCache<string>({ ttlMs: 60_000 });
    const { compute, calls } = counting();
    await cache.lookup(key, compute);
    for (const other of [{ ...key, fields: ['id', 'title'] }, { ...key, cursor: 'abc' }, { ...key, query: { tool: 'find', field: 'state', value: 'closed' } }]) {
      expect((await cache.lookup(other, compute)).cache).toBe('miss');
    }
    expect(calls()).toBe(4);
  });

  it('expires entries after the TTL', async () => {
    let now = 1_000;
    const cache = new ResultCache<string>({ ttlMs: 60_000, now: () => now });
    const { compute } = counting();
    await cache.lookup(key, compute);
    now += 59_999;
    expect((await cache.lookup(key, compute)).cache).toBe('hit');
    now += 1;
    expect(await cache.lookup(key, compute)).toEqual({ value: 'result 2', cache: 'miss' });
  });

  it('empties itself when the revision changes, so an old result is never served', async () => {
    const cache = new ResultCache<string>({ ttlMs: 60_000 });
    const { compute } = counting();
    await cache.lookup(key, compute);
    await cache.lookup({ ...key, cursor: 'c' }, compute);
    expect(cache.size).toBe(2);
    expect((await cache.lookup({ ...key, revision: 'r2' }, compute)).cache).toBe('miss');
    expect(cache.size).toBe(1);
    expect((await cache.lookup(key, compute)).cache).toBe('miss');
  });

  it('does not cache a failure, and keeps at most maxEntries', async () => {
    const cache = new ResultCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    await expect(cache.lookup(key, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(cache.size).toBe(0);
    const { compute } = counting();
    for (const cursor of ['a', 'b', 'c']) await cache.lookup({ ...key, cursor }, compute);
    expect(cache.size).toBe(2);
    expect((await cache.lookup({ ...key, cursor: 'a' }, compute)).cache).toBe('miss');
  });

  it('refuses a TTL that is not positive', () => {
    expect(() => new ResultCache({ ttlMs: 0 })).toThrow(/TTL/);
  });
});
