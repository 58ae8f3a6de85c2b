import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { createMemoryStore, createSqliteStore, type OffloadStore, type OffloadStoreOptions } from '../../src/gateway/index.js';
import { createFileStore } from '../../src/host/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpctx-offload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const KINDS: Array<[string, (options?: OffloadStoreOptions) => OffloadStore]> = [
  ['memory', (options) => createMemoryStore(options)],
  ['sqlite', (options) => createSqliteStore(join(dir, `store-${(files += 1)}.db`), options)],
  ['folder', (options) => createFileStore(join(dir, `folder-${(files += 1)}`), options)],
];

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe.each(KINDS)('%s offload store', (_name, make) => {
  it('returns what was put, replaces by id, and deletes', () => {
    const store = make();
    expect(store.put('a', '{"x":1}')).toMatchObject({ stored: true, bytes: 7 });
    expect(store.get('a')).toBe('{"x":1}');
    store.put('a', 'é');
    expect(store.get('a')).toBe('é');
    store.delete('a');
    expect(store.get('a')).toBeUndefined();
    expect(store.get('never')).toBeUndefined();
    store.close();
  });

  it('forgets an entry once its TTL has passed, and not before', () => {
    const time = clock();
    const store = make({ ttlMs: 1000, now: time.now });
    store.put('a', 'value');
    time.advance(999);
    expect(store.get('a')).toBe('value');
    time.advance(1);
    expect(store.get('a')).toBeUndefined();
    store.close();
  });

  it('evicts the oldest entries first to stay under its byte cap', () => {
    const time = clock();
    const store = make({ maxBytes: 30, now: time.now });
    for (const id of ['a', 'b', 'c']) {
      store.put(id, id.repeat(10));
      time.advance(1);
    }
    store.put('d', 'd'.repeat(15)); // 45 bytes: the two oldest go
    expect([store.get('a'), store.get('b'), store.get('c'), store.get('d')]).toEqual([undefined, undefined, 'c'.repeat(10), 'd'.repeat(15)]);
    // Exactly at the cap is within it: c (10) + d (15) + e (5) = 30.
    store.put('e', 'eeeee');
    expect(store.get('c')).toBe('c'.repeat(10));
    store.close();
  });

  it('refuses an entry larger than the whole store and evicts nothing for it', () => {
    const store = make({ maxBytes: 10 });
    store.put('small', '12345');
    expect(store.put('huge', 'x'.repeat(11))).toEqual({ stored: false, bytes: 11, maxBytes: 10 });
    expect(store.get('huge')).toBeUndefined();
    expect(store.get('small')).toBe('12345');
    store.close();
  });

  it('counts bytes, not characters', () => {
    const store = make({ maxBytes: 10 });
    expect(store.put('a', 'éééééé')).toEqual({ stored: false, bytes: 12, maxBytes: 10 });
    store.close();
  });

  it('refuses bad bounds and use after close', () => {
    expect(() => make({ ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => make({ maxBytes: 1.5 })).toThrow(/maxBytes/);
    const store = make();
    store.close();
    expect(() => store.get('a')).toThrow(/closed/);
  });
});

describe('sqlite offload store', () => {
  it('keeps entries across a reopen of the same file', () => {
    const file = join(dir, 'reopen.db');
    const first = createSqliteStore(file);
    first.put('a', 'kept');
    first.close();
    const second = createSqliteStore(file);
    expect(second.get('a')).toBe('kept');
    second.close();
  });

  it('says which file it cannot open', () => {
    try {
      createSqliteStore(join(dir, 'no-such-dir', 'x.db'));
      expect.unreachable();
    } catch (error) {
      expect(isMcpctxError(error, 'IO')).toBe(true);
      expect((error as Error).message).toMatch(/no-such-dir/);
    }
  });
});
