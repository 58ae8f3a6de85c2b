// The receipt counters in Redis: two instances' receipts sum into one report, the same report
// (rows, order, totals) that readGatewayReport makes of the same receipts in a file, and past the
// row cap new rows go to OTHER_TOOLS_ROW as the file report does. write() never throws or waits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_TOOLS_ROW, RECEIPT_ACTIONS, ReceiptWriter, readGatewayReport, type Receipt } from '../../../src/gateway/receipts/index.js';
import { RedisReceiptCounters, connectRedis, parseStateUrl, readRedisReport, type RedisConnection } from '../../../src/gateway/state/index.js';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { REDIS_SKIP_MESSAGE, redisServerPath, startRedisPair, startRedisServer, stopRedisPair, type RedisServer } from '../../support/redis-server.js';
import { seededRandom } from '../../support/seeded-random.js';

function receipt(fields: Partial<Receipt> & Pick<Receipt, 'tool' | 'action'>): Receipt {
  return { time: '2026-12-06T00:00:00.000Z', kind: 'call', upstream: 'up', upstreamTokens: 100, deliveredTokens: 40, elapsedMs: 3, ...fields };
}

describe.skipIf(!redisServerPath())(`the receipt counters in Redis (${redisServerPath() === undefined ? REDIS_SKIP_MESSAGE : 'redis-server installed'})`, () => {
  let server: RedisServer;
  let first: RedisConnection;
  let second: RedisConnection;
  let tests = 0;
  const prefix = (): string => `receipts${(tests += 1)}:`;
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-redis-receipts-'));

  beforeAll(async () => {
    ({ server, first, second } = await startRedisPair());
  });
  afterAll(async () => {
    await stopRedisPair({ server, first, second });
    rmSync(dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it("two instances' counters sum into one report", async () => {
    const shared = prefix();
    const one = new RedisReceiptCounters(first, { prefix: shared });
    const two = new RedisReceiptCounters(second, { prefix: shared });
    one.write(receipt({ tool: 'search', action: 'passed', upstreamTokens: 10, deliveredTokens: 10 }));
    one.write(receipt({ tool: 'search', action: 'passed', upstreamTokens: 30, deliveredTokens: 20 }));
    two.write(receipt({ tool: 'search', action: 'passed', upstreamTokens: 5, deliveredTokens: 1 }));
    two.write(receipt({ kind: 'list', tool: null, upstream: null, action: 'listed', upstreamTokens: 500, deliveredTokens: 200 }));
    const hostile = Object.defineProperty(receipt({ tool: 'x', action: 'passed' }), 'kind', { get: () => { throw new Error('no'); }, enumerable: true });
    expect(() => two.write(hostile)).not.toThrow();
    expect(await one.close()).toEqual({ written: 2, dropped: 0 });
    expect(await two.close()).toEqual({ written: 2, dropped: 1 });
    one.write(receipt({ tool: 'late', action: 'passed' })); // after close: dropped, not thrown
    expect(await one.close()).toEqual({ written: 2, dropped: 0 }); // the summary of the close, as ReceiptWriter's
    const report = await readRedisReport(first, shared);
    expect(report).toEqual({
      rows: [
        { tool: '(tools/list)', upstream: null, action: 'listed', calls: 1, upstreamTokens: 500, deliveredTokens: 200 },
        { tool: 'search', upstream: 'up', action: 'passed', calls: 3, upstreamTokens: 45, deliveredTokens: 31 },
      ],
      totals: { calls: 3, lists: 1, upstreamTokens: 545, deliveredTokens: 231, savedTokens: 314 },
      badLines: 0,
      file: server.url,
    });
  });

  it('the report equals readGatewayReport of the same receipts written to a file by ReceiptWriter', async () => {
    const shared = prefix();
    const random = seededRandom(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const receipts: Receipt[] = Array.from({ length: 300 }, () => {
      const list = random() < 0.15;
      return receipt({
        kind: list ? 'list' : 'call',
        tool: list ? null : pick(['search', 'fetch', 'b', 'B', 'é', 'z_tool', '(odd)', '__proto__']),
        upstream: pick([null, 'alpha', 'beta', '']),
        action: list ? 'listed' : pick(RECEIPT_ACTIONS.filter((action) => action !== 'listed')),
        upstreamTokens: Math.floor(random() * 5_000),
        deliveredTokens: Math.floor(random() * 2_000),
      });
    });
    // Receipts the file report counts as bad lines are dropped here: not in either report.
    const bad = [{ ...receipt({ tool: 'x', action: 'passed' }), upstreamTokens: -1 }, { ...receipt({ tool: 'x', action: 'passed' }), tool: null }];
    const file = join(dir, 'receipts.jsonl');
    const writer = await ReceiptWriter.open(file);
    const one = new RedisReceiptCounters(first, { prefix: shared });
    const two = new RedisReceiptCounters(second, { prefix: shared });
    receipts.forEach((each, i) => {
      writer.write(each);
      (i % 2 === 0 ? one : two).write(each);
    });
    for (const each of bad) one.write(each);
    expect(await writer.close()).toEqual({ written: 300, dropped: 0 });
    expect(await one.close()).toEqual({ written: 150, dropped: 2 });
    expect(await two.close()).toEqual({ written: 150, dropped: 0 });
    const fromFile = await readGatewayReport(file);
    const fromRedis = await readRedisReport(second, shared);
    expect(fromRedis.rows.length).toBeGreaterThan(20);
    expect(fromRedis.rows).toEqual(fromFile.rows); // same rows, same order
    expect(fromRedis.totals).toEqual(fromFile.totals);
    expect(fromRedis).toEqual({ ...fromFile, file: server.url, badLines: 0 });
  });

  it('past the row cap, a new row goes to OTHER_TOOLS_ROW with upstream null; known rows keep counting', async () => {
    const shared = prefix();
    const counters = new RedisReceiptCounters(first, { prefix: shared, maxRows: 3 });
    // Sequential, so the rows arrive in a known order (each write is sent in order on one connection).
    for (const tool of ['a', 'b', 'c', 'd', 'e']) counters.write(receipt({ tool, action: 'passed' }));
    counters.write(receipt({ tool: 'a', action: 'passed' }));
    counters.write(receipt({ tool: 'f', action: 'failed' }));
    expect(await counters.close()).toEqual({ written: 7, dropped: 0 });
    const report = await readRedisReport(first, shared);
    expect(report.rows).toEqual([
      { tool: OTHER_TOOLS_ROW, upstream: null, action: 'failed', calls: 1, upstreamTokens: 100, deliveredTokens: 40 },
      { tool: OTHER_TOOLS_ROW, upstream: null, action: 'passed', calls: 2, upstreamTokens: 200, deliveredTokens: 80 },
      { tool: 'a', upstream: 'up', action: 'passed', calls: 2, upstreamTokens: 200, deliveredTokens: 80 },
      { tool: 'b', upstream: 'up', action: 'passed', calls: 1, upstreamTokens: 100, deliveredTokens: 40 },
      { tool: 'c', upstream: 'up', action: 'passed', calls: 1, upstreamTokens: 100, deliveredTokens: 40 },
    ]);
    expect(report.totals).toEqual({ calls: 7, lists: 0, upstreamTokens: 700, deliveredTokens: 280, savedTokens: 420 });
  });

  it('Redis gone: write() neither throws nor waits; the receipts are counted as dropped with the first error', async () => {
    const own = await startRedisServer();
    const connection = await connectRedis(parseStateUrl(own.url), { commandTimeoutMs: 500 });
    try {
      const counters = new RedisReceiptCounters(connection, { prefix: prefix(), closeWaitMs: 3_000 });
      counters.write(receipt({ tool: 'before', action: 'passed' }));
      await own.stop();
      for (let i = 0; i < 5; i += 1) expect(counters.write(receipt({ tool: 'after', action: 'passed' }))).toBeUndefined();
      const closed = await counters.close();
      expect(closed.written + closed.dropped).toBe(6);
      expect(closed.dropped).toBeGreaterThanOrEqual(5);
      expect(closed.error).toMatch(/Redis/);
      expect(closed.error).toContain(own.url);
    } finally {
      await connection.close();
      await own.stop();
    }
  });
});
