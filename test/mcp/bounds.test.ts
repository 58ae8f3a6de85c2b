// Bounds on what a server sends (B of issue 10): nesting that JSON.parse accepts but recursion
// cannot survive, and catalogs whose pages are each legal but together exhaust memory. Each ends
// in a clear error or status, never a RangeError.
import { afterAll, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { BoundedStdioTransport, Deadline, RawClient, initialize, listAllTools } from '../../src/mcp/index.js';
import { DEFAULT_MAX_CATALOG_BYTES } from '../../src/mcp/_session.js';
import { measureServer } from '../../src/measure/index.js';
import { FakeTransport, result } from '../support/fake-transport.js';
import { SCRIPTED_SERVER, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const MiB = 1024 * 1024;

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

async function rejection(promise: Promise<unknown>): Promise<McpctxError> {
  const outcome = await promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
  if (outcome instanceof McpctxError) return outcome;
  throw outcome;
}

describe('nesting', () => {
  it('a response nested 200,000 levels fails its request with NESTING_TOO_DEEP', async () => {
    const deep = { tools: [{ name: 'deep', inputSchema: nested(200_000) }] };
    const client = new RawClient(new FakeTransport((request) => [result(request, deep)]));
    const error = await rejection(client.request('tools/list', undefined, new Deadline(5_000)));
    expect(error.code).toBe('NESTING_TOO_DEEP');
    expect(error.message).toMatch(/deeper than 512 levels/);
  });

  it('512 levels are accepted; a deep notification is dropped and a deep server request answered -32600', async () => {
    const transport = new FakeTransport((request) => (request.method === 'x' ? [result(request, { ok: nested(500) })] : []));
    const notifications: string[] = [];
    const client = new RawClient(transport, { onNotification: (note) => notifications.push(note.method) });
    await client.request('x', undefined, new Deadline(5_000));
    transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/message', params: { data: nested(1_000) } } as never);
    transport.onmessage?.({ jsonrpc: '2.0', id: 'deep-1', method: 'sampling/createMessage', params: { x: nested(1_000) } } as never);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(notifications).toEqual([]);
    expect(transport.sent.find((message) => message.id === 'deep-1')).toMatchObject({ error: { code: -32600 } });
  });
});

describe('a real server', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('deep-schema: tools/list fails with NESTING_TOO_DEEP; measureServer returns a status naming the bound', async () => {
    const launch = { command: process.execPath, args: [SCRIPTED_SERVER, 'deep-schema'], env: markedEnv() };
    const transport = new BoundedStdioTransport(launch);
    const client = new RawClient(transport);
    try {
      await client.start();
      const deadline = new Deadline(20_000);
      await initialize(client, { deadline });
      expect((await rejection(listAllTools(client, { deadline }))).code).toBe('NESTING_TOO_DEEP');
    } finally {
      await transport.shutdown();
    }
    const measurement = await measureServer({ name: 'deep', launch, runs: 1, timeoutMs: 20_000 });
    expect(measurement.status).toBe('protocol-limit');
    expect(measurement.note).toMatch(/NESTING_TOO_DEEP.*512 levels/);
    expect(measurement.totalTokens).toBeNull();
  });

  it('big-pages: 40 legal 15 MiB pages stop at the 64 MiB bound over all pages (CATALOG_TOO_LARGE)', async () => {
    expect(DEFAULT_MAX_CATALOG_BYTES).toBe(64 * MiB);
    const launch = { command: process.execPath, args: [SCRIPTED_SERVER, 'big-pages'], env: markedEnv() };
    const measurement = await measureServer({ name: 'big', launch, runs: 1, timeoutMs: 60_000 });
    expect(measurement.status).toBe('protocol-limit');
    expect(measurement.note).toMatch(/CATALOG_TOO_LARGE/);
    expect(measurement.note).toMatch(/67108864 bytes/);
    // Stopped after the 5th page (5 x 15 MiB), not after all 40.
    expect(measurement.note).toMatch(/after page 5\b/);
  });

  it('a smaller maxTotalBytes is honoured', async () => {
    const launch = { command: process.execPath, args: [SCRIPTED_SERVER, 'big-pages'], env: markedEnv() };
    const transport = new BoundedStdioTransport(launch);
    const client = new RawClient(transport);
    try {
      await client.start();
      const deadline = new Deadline(60_000);
      await initialize(client, { deadline });
      const error = await rejection(listAllTools(client, { deadline, maxTotalBytes: 20 * MiB }));
      expect(error.code).toBe('CATALOG_TOO_LARGE');
      expect(error.data).toMatchObject({ limitBytes: 20 * MiB, page: 2 });
    } finally {
      await transport.shutdown();
    }
  });
});
