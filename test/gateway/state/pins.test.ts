// The pins in Redis keep the pin file's guarantees: read-modify-writes under the lock lose nothing
// across instances, a second holder waits, a wait past its budget is IO (the caller fails closed),
// a holder whose lease ended writes nothing (the write is fenced) and does not release the new
// holder's lock, and a document that is not a pin file is unreadable.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpctxError } from '../../../src/errors/index.js';
import { redisPinDocument, type RedisConnection } from '../../../src/gateway/state/index.js';
import { checkCatalog, emptyPinFile, pinText, seedSharedPins, writePinFile, type PinDocument } from '../../../src/gateway/trust/index.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { REDIS_SKIP_MESSAGE, redisServerPath, startRedisPair, stopRedisPair, type RedisServer } from '../../support/redis-server.js';

const tool = (name: string) => ({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' } });

/** One read-modify-write: pins `upstream`'s one tool on first contact. */
function addUpstream(document: PinDocument, upstream: string, waitMs?: number): Promise<void> {
  return document.withLock(async (locked) => {
    const read = await locked.read();
    if (read.status === 'unreadable') throw new Error(read.reason);
    await sleep(1); // let the others run between the read and the write
    await locked.write(checkCatalog(read.pins, upstream, [tool(`${upstream}_tool`)], 'tofu', 'now').next);
  }, waitMs);
}

async function upstreamsIn(document: PinDocument): Promise<string[]> {
  const read = await document.withLock((locked) => locked.read());
  if (read.status === 'unreadable') throw new Error(read.reason);
  return Object.keys(read.pins.upstreams).sort();
}

describe.skipIf(!redisServerPath())(`the pins in Redis (${redisServerPath() === undefined ? REDIS_SKIP_MESSAGE : 'redis-server installed'})`, () => {
  let server: RedisServer;
  let first: RedisConnection;
  let second: RedisConnection;
  let tests = 0;
  const prefix = (): string => `pins${(tests += 1)}:`;

  beforeAll(async () => {
    ({ server, first, second } = await startRedisPair());
  });
  afterAll(async () => {
    await stopRedisPair({ server, first, second });
    expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
  });

  it('empty shared pins are filled from the config\'s pin file once; filled ones are left alone; an unreadable file is IO', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpctx-seed-'));
    const file = join(dir, 'pins.json');
    const document = redisPinDocument(first, { prefix: prefix() });
    expect(await seedSharedPins(document, file)).toBe(false); // no file: nothing to copy
    await writePinFile(file, checkCatalog(emptyPinFile(), 'gh', [tool('one')], 'tofu', 'day 1').next);
    const twice = await Promise.all([seedSharedPins(document, file), seedSharedPins(redisPinDocument(second, { prefix: `pins${tests}:` }), file)]);
    expect(twice.sort()).toEqual([false, true]);
    expect(await upstreamsIn(document)).toEqual(['gh']);
    await writePinFile(file, checkCatalog(emptyPinFile(), 'other', [tool('two')], 'tofu', 'day 2').next);
    expect(await seedSharedPins(document, file)).toBe(false);
    expect(await upstreamsIn(document)).toEqual(['gh']);
    writeFileSync(file, 'not json');
    await expect(seedSharedPins(redisPinDocument(first, { prefix: prefix() }), file)).rejects.toMatchObject({ code: 'IO' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('absent is an empty pin document; label and target name the URL and the key', async () => {
    const shared = prefix();
    const document = redisPinDocument(first, { prefix: shared });
    expect(document.label).toBe(`the shared pins at ${server.url} (key ${shared}pins)`);
    expect(document.target).toBe(server.url);
    expect(await document.withLock((locked) => locked.read())).toEqual({ status: 'absent', pins: emptyPinFile() });
  });

  it('two documents on two connections, 20 concurrent read-modify-writes each: nothing is lost', async () => {
    const shared = prefix();
    const documents = [redisPinDocument(first, { prefix: shared }), redisPinDocument(second, { prefix: shared })];
    const names = documents.flatMap((_, d) => Array.from({ length: 20 }, (_unused, i) => `u${d}-${i}`));
    await Promise.all(names.map((name, n) => addUpstream(documents[n < 20 ? 0 : 1]!, name, 30_000)));
    expect(await upstreamsIn(documents[0]!)).toEqual([...names].sort());
    // The text is the pin file's: the same bytes in a file and in Redis.
    const read = await documents[1]!.withLock((locked) => locked.read());
    expect(read.status).toBe('read');
    if (read.status === 'read') expect(await first.client.get(`${shared}pins`)).toBe(pinText(read.pins));
    expect(await first.client.exists(`${shared}pins:lock`)).toBe(0); // released
  });

  it('a second holder waits for the first; past its waitMs it is IO, naming the shared pins', async () => {
    const shared = prefix();
    const one = redisPinDocument(first, { prefix: shared });
    const two = redisPinDocument(second, { prefix: shared });
    let release!: () => void;
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    const events: string[] = [];
    const held = one.withLock(async () => {
      events.push('one in');
      await holding;
      events.push('one out');
    });
    await sleep(100);
    const waiter = two.withLock(async () => {
      events.push('two in');
    }, 10_000);
    const error = await two.withLock(async () => 'never', 300).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpctxError);
    expect((error as McpctxError).code).toBe('IO');
    expect((error as McpctxError).message).toContain(`Cannot lock the shared pins at ${server.url} (key ${shared}pins) within 300 ms`);
    expect((error as McpctxError).message).toContain('another gateway or mcpctx gateway pins holds it');
    expect(events).toEqual(['one in']);
    release();
    await Promise.all([held, waiter]);
    expect(events).toEqual(['one in', 'one out', 'two in']);
  });

  it('a holder working past its lease keeps the lock (renewed while it works) and its write lands', async () => {
    const shared = prefix();
    const slow = redisPinDocument(first, { prefix: shared, leaseMs: 1_000 });
    const other = redisPinDocument(second, { prefix: shared });
    const working = slow.withLock(async (locked) => {
      const read = await locked.read();
      if (read.status === 'unreadable') throw new Error(read.reason);
      await sleep(3_000); // three leases
      await locked.write(checkCatalog(read.pins, 'slow', [tool('s')], 'tofu', 'now').next);
    });
    await sleep(1_200);
    await expect(other.withLock(async () => 'taken', 1_500)).rejects.toMatchObject({ code: 'IO' });
    await working;
    expect(await upstreamsIn(other)).toEqual(['slow']);
    expect(await first.client.exists(`${shared}pins:lock`)).toBe(0);
  });

  it("work's own rejection passes through, and the lock is released", async () => {
    const document = redisPinDocument(first, { prefix: prefix() });
    await expect(document.withLock(async () => Promise.reject(new Error('the work failed')))).rejects.toThrow('the work failed');
    expect(await document.withLock(async () => 'again', 200)).toBe('again');
  });

  it("a holder whose lease ended writes nothing (fenced), and its release leaves the new holder's lock", async () => {
    const shared = prefix();
    // A holder that stalls: its lease is not renewed (a blocked process, or one cut off from Redis).
    const stalled = redisPinDocument(first, { prefix: shared, leaseMs: 200, renewMs: 0 });
    const next = redisPinDocument(second, { prefix: shared });
    const third = redisPinDocument(second, { prefix: shared });
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const stalledWrite = stalled.withLock(async (locked) => {
      const read = await locked.read();
      if (read.status === 'unreadable') throw new Error(read.reason);
      await woken; // stalls past its 200 ms lease
      await locked.write(checkCatalog(read.pins, 'stalled', [tool('s')], 'tofu', 'now').next);
    });
    const stalledDone = stalledWrite.then(
      () => undefined,
      (error: unknown) => error,
    );
    await sleep(400);
    await next.withLock(async (locked) => {
      // The crashed-or-stalled holder's lease ended: this one has the lock.
      wake();
      const error = await stalledDone;
      expect(error).toBeInstanceOf(McpctxError);
      expect((error as McpctxError).code).toBe('IO');
      expect((error as McpctxError).message).toMatch(/lost the lock/);
      expect((error as McpctxError).message).toMatch(/nothing was written/);
      // The stalled holder released with compare-and-delete: this holder's lock is still there.
      await expect(third.withLock(async () => 'x', 150)).rejects.toMatchObject({ code: 'IO' });
      const read = await locked.read();
      expect(read.status).toBe('absent'); // the stalled write wrote nothing
      if (read.status === 'unreadable') throw new Error(read.reason);
      await locked.write(checkCatalog(read.pins, 'next', [tool('n')], 'tofu', 'now').next);
    }, 5_000);
    expect(await upstreamsIn(next)).toEqual(['next']);
  });

  it('a document that is not a pin file is unreadable, with the reason', async () => {
    const shared = prefix();
    const document = redisPinDocument(first, { prefix: shared });
    await first.client.set(`${shared}pins`, '{"format": garbage');
    const garbage = await document.withLock((locked) => locked.read());
    expect(garbage.status).toBe('unreadable');
    if (garbage.status === 'unreadable') expect(garbage.reason).toMatch(/not JSON/);
    await first.client.set(`${shared}pins`, JSON.stringify({ format: 'something else', upstreams: {} }));
    expect(await document.withLock((locked) => locked.read())).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/format/) as unknown });
    await first.client.set(`${shared}pins`, JSON.stringify({ ...emptyPinFile(), upstreams: JSON.parse('{"__proto__": {"tools": 1}}') as unknown }));
    expect(await document.withLock((locked) => locked.read())).toMatchObject({ status: 'unreadable' });
    await first.client.del(`${shared}pins`);
    await first.client.hset(`${shared}pins`, 'a', 'b');
    expect(await document.withLock((locked) => locked.read())).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/other than a string/) as unknown });
  });
});
