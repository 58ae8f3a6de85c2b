// The offload store in Redis keeps the memory store's contract (replace, TTL, oldest evicted
// first to stay under maxBytes, a too-large value refused with nothing evicted), and two gateway
// instances on two connections share ONE store: each sees the other's puts, under one total.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisOffloadStore, type RedisConnection } from '../../../src/gateway/state/index.js';
import { createMemoryStore } from '../../../src/gateway/results/index.js';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { REDIS_SKIP_MESSAGE, redisServerPath, startRedisPair, stopRedisPair, type RedisServer } from '../../support/redis-server.js';

describe.skipIf(!redisServerPath())(`the offload store in Redis (${redisServerPath() === undefined ? REDIS_SKIP_MESSAGE : 'redis-server installed'})`, () => {
  let server: RedisServer;
  let first: RedisConnection;
  let second: RedisConnection;
  let tests = 0;
  /** A fresh prefix per test: the tests share one server. */
  const prefix = (): string => `store${(tests += 1)}:`;

  beforeAll(async () => {
    ({ server, first, second } = await startRedisPair());
  });
  afterAll(async () => {
    await stopRedisPair({ server, first, second });
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it('round trip: unicode, an empty string and a 1 MB value come back byte for byte; bytes are UTF-8 bytes', async () => {
    const store = createRedisOffloadStore(first, { prefix: prefix() });
    expect(store.shared).toBe(true);
    const unicode = 'héllo wörld ✓ 日本語 🙂 \u0000 "quotes" \\ \n';
    expect(await store.put('u', unicode)).toMatchObject({ stored: true, bytes: Buffer.byteLength(unicode, 'utf8') });
    expect(await store.get('u')).toBe(unicode);
    const big = `${'{"k":"v🙂"},'.repeat(80_000)}`;
    expect(Buffer.byteLength(big)).toBeGreaterThan(1_000_000);
    expect(await store.put('big', big)).toMatchObject({ stored: true });
    expect(await store.get('big')).toBe(big);
    expect(await store.put('empty', '')).toMatchObject({ stored: true, bytes: 0 });
    expect(await store.get('empty')).toBe('');
    expect(await store.get('never')).toBeUndefined();
    expect(Number(await first.client.get(`store${tests}:offload:total`))).toBe(Buffer.byteLength(unicode) + Buffer.byteLength(big));
    await store.delete('big');
    expect(await store.get('big')).toBeUndefined();
    expect(Number(await first.client.get(`store${tests}:offload:total`))).toBe(Buffer.byteLength(unicode));
  });

  it('put replaces an entry with the same id, its bytes counted once', async () => {
    const shared = prefix();
    const store = createRedisOffloadStore(first, { prefix: shared, maxBytes: 20 });
    await store.put('a', '12345');
    await store.put('b', '12345');
    await store.put('a', '1234567');
    expect(Number(await first.client.get(`${shared}offload:total`))).toBe(12);
    expect(await first.client.zrange(`${shared}offload:index`, 0, -1)).toEqual(['b', 'a']); // a replaced is the youngest
    await store.put('c', '12345678'); // 12 + 8 = 20 fit: the old 5 bytes of a are not counted
    expect(await store.get('a')).toBe('1234567');
    expect(await store.get('b')).toBe('12345');
    expect(await store.get('c')).toBe('12345678');
  });

  it('TTL on the caller clock: gone at ttlMs, dropped at the next put (the memory store agrees)', async () => {
    let clock = 1_000_000;
    const now = (): number => clock;
    const options = { ttlMs: 60_000, maxBytes: 100, now };
    const store = createRedisOffloadStore(first, { ...options, prefix: prefix() });
    const memory = createMemoryStore(options);
    for (const each of [store, memory]) expect(await each.put('old', 'x'.repeat(40))).toEqual({ stored: true, at: 1_000_000, bytes: 40 });
    clock += 30_000;
    for (const each of [store, memory]) await each.put('young', 'y'.repeat(40));
    clock += 29_999;
    expect(await store.get('old')).toBe('x'.repeat(40));
    clock += 1; // 60,000 ms after its put
    expect(await store.get('old')).toBeUndefined();
    expect(memory.get('old')).toBeUndefined();
    expect(await store.get('young')).toBe('y'.repeat(40));
    for (const each of [store, memory]) expect(await each.put('new', 'z'.repeat(20))).toMatchObject({ stored: true });
    expect(await store.get('young')).toBe('y'.repeat(40));
    // The expired entry was dropped at that put: its 40 bytes no longer count.
    expect(Number(await first.client.get(`store${tests}:offload:total`))).toBe(60);
    expect(await first.client.zrange(`store${tests}:offload:index`, 0, -1)).toEqual(['young', 'new']);
    expect(memory.get('young')).toBe('y'.repeat(40));
  });

  it('evicts the oldest entries first, and only as many as the new one needs, to stay under maxBytes', async () => {
    const store = createRedisOffloadStore(first, { prefix: prefix(), maxBytes: 100 });
    for (const id of ['a', 'b', 'c', 'd']) await store.put(id, id.repeat(25)); // 100 bytes: full
    await store.put('e', 'e'.repeat(30)); // needs 30: a and b go (oldest), c and d stay
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('c')).toBe('c'.repeat(25));
    expect(await store.get('d')).toBe('d'.repeat(25));
    expect(await store.get('e')).toBe('e'.repeat(30));
    // A replaced entry is the youngest: c re-put, then 'f' needs room: d goes before c.
    await store.put('c', 'C'.repeat(25));
    await store.put('f', 'f'.repeat(40));
    expect(await store.get('d')).toBeUndefined();
    expect(await store.get('c')).toBe('C'.repeat(25));
    expect(await store.get('e')).toBe('e'.repeat(30)); // 30 + 25 + 40 fit: d alone went
    expect(await store.get('f')).toBe('f'.repeat(40));
    expect(Number(await first.client.get(`store${tests}:offload:total`))).toBe(95);
  });

  it('a value larger than maxBytes is refused, and nothing is evicted for it', async () => {
    const store = createRedisOffloadStore(first, { prefix: prefix(), maxBytes: 50 });
    await store.put('keep', 'k'.repeat(50));
    expect(await store.put('huge', '🙂'.repeat(13))).toEqual({ stored: false, bytes: 52, maxBytes: 50 });
    expect(await store.get('keep')).toBe('k'.repeat(50));
    expect(await store.get('huge')).toBeUndefined();
  });

  it('two instances on two connections share one store: each sees the other\'s puts, under one total', async () => {
    const shared = prefix();
    const one = createRedisOffloadStore(first, { prefix: shared, maxBytes: 100 });
    const two = createRedisOffloadStore(second, { prefix: shared, maxBytes: 100 });
    await one.put('from-one', '1'.repeat(60));
    expect(await two.get('from-one')).toBe('1'.repeat(60));
    await two.put('from-two', '2'.repeat(60)); // 120 > 100: one's entry, the oldest, is evicted
    expect(await one.get('from-one')).toBeUndefined();
    expect(await one.get('from-two')).toBe('2'.repeat(60));
    // Many puts at once from both: the shared total never passes the cap.
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? one : two).put(`many-${i}`, String(i % 10).repeat(30))));
    const total = Number(await first.client.get(`${shared}offload:total`));
    expect(total).toBeLessThanOrEqual(100);
    const sizes = await first.client.hvals(`${shared}offload:bytes`);
    expect(sizes.reduce((sum, size) => sum + Number(size), 0)).toBe(total);
    expect(await first.client.zcard(`${shared}offload:index`)).toBe(sizes.length);
  });

  it('close() leaves the shared connection open; the closed store rejects later calls', async () => {
    const store = createRedisOffloadStore(first, { prefix: prefix() });
    await store.close();
    await expect(store.put('a', 'b')).rejects.toThrow(/closed/);
    await expect(store.get('a')).rejects.toThrow(/closed/);
    expect(await first.client.ping()).toBe('PONG');
  });
});
