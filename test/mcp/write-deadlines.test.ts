// Every write is under a deadline (A of issue 10): a server that stops reading cannot hang a
// request, a notification or an answer, a stuck write never leaves an unhandled rejection, and
// answers to a flood of server requests are bounded instead of piling up.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { BoundedStdioTransport, Deadline, RawClient, initialize } from '../../src/mcp/index.js';
import { BlockingTransport } from '../support/blocking-transport.js';
import { runCliCaptured, markFlags } from '../support/cli-run.js';
import { SCRIPTED_SERVER, isPidAlive, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const HUNG = Symbol('hung');

/** The promise's outcome, or HUNG if it has not settled within `ms` (old code hung forever here). */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<{ value?: T; error?: unknown } | typeof HUNG> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<typeof HUNG>((resolve) => {
    timer = setTimeout(() => resolve(HUNG), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ value }), (error: unknown) => ({ error })), hung]);
  } finally {
    clearTimeout(timer);
  }
}

function codeOf(outcome: { error?: unknown } | typeof HUNG): string {
  if (outcome === HUNG) return 'hung';
  return outcome.error instanceof McpctxError ? outcome.error.code : `no McpctxError: ${String(outcome.error)}`;
}

let unhandled: unknown[] = [];
const recordUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', recordUnhandled);
});
afterEach(() => {
  process.removeListener('unhandledRejection', recordUnhandled);
});

/** Lets pending rejections surface as 'unhandledRejection' events. */
async function settleEventLoop(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a transport that applies backpressure (the server stopped reading)', () => {
  it('a request whose write is stuck fails with DEADLINE, and nothing is left unhandled', async () => {
    const transport = new BlockingTransport();
    const client = new RawClient(transport);
    const outcome = await settledWithin(client.request('tools/list', undefined, new Deadline(100, 'listing')), 5_000);
    expect(codeOf(outcome)).toBe('DEADLINE');
    // The request gave up, and the server is told so (that write is bounded too).
    expect(transport.written.map((message) => message.method)).toEqual(['tools/list', 'notifications/cancelled']);
    transport.drain(); // the write completes long after its request gave up
    await settleEventLoop();
    expect(unhandled).toEqual([]);
  });

  it('notify waits for the write within its deadline, or within writeTimeoutMs when it has none', async () => {
    const transport = new BlockingTransport();
    const client = new RawClient(transport, { writeTimeoutMs: 100 });
    expect(codeOf(await settledWithin(client.notify('notifications/initialized', undefined, new Deadline(100)), 5_000))).toBe('DEADLINE');
    expect(codeOf(await settledWithin(client.notify('notifications/roots/list_changed'), 5_000))).toBe('DEADLINE');
    await settleEventLoop();
    expect(unhandled).toEqual([]);
  });

  it('initialize fails with DEADLINE when notifications/initialized cannot be written', async () => {
    const transport = new BlockingTransport((message) =>
      message.method === 'initialize' ? [{ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {} } }] : [],
    );
    const client = new RawClient(transport);
    const handshake = initialize(client, { deadline: new Deadline(300, 'initialize') });
    await new Promise((resolve) => setTimeout(resolve, 20));
    transport.drain(); // the server reads initialize and answers; then it stops reading
    expect(codeOf(await settledWithin(handshake, 5_000))).toBe('DEADLINE');
    expect(transport.written.map((message) => message.method)).toEqual(['initialize', 'notifications/initialized']);
  });

  it('answers to a flood of server requests are bounded, not queued without limit', async () => {
    const transport = new BlockingTransport();
    const client = new RawClient(transport, { writeTimeoutMs: 60_000 });
    for (let n = 0; n < 500; n += 1) transport.deliver({ jsonrpc: '2.0', id: `ping-${n}`, method: 'ping' });
    expect(transport.blocked).toBe(64);
    expect(client.droppedServerRequests).toBe(436);
    transport.drain();
    await settleEventLoop();
    expect(transport.written.filter((message) => 'result' in message)).toHaveLength(64);
    expect(unhandled).toEqual([]);
  });
});

describe('a real server that floods pings and never reads stdin again', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  const launch = { command: process.execPath, args: [SCRIPTED_SERVER, 'flood-never-read'], env: markedEnv() };

  it('initialize and tools/list end with DEADLINE instead of waiting forever to write', async () => {
    const transport = new BoundedStdioTransport(launch);
    const client = new RawClient(transport);
    try {
      await client.start();
      const deadline = new Deadline(1_500, 'listing');
      const work = async (): Promise<unknown> => {
        await initialize(client, { deadline });
        return client.request('tools/list', undefined, deadline);
      };
      const outcome = await settledWithin(work(), 20_000);
      expect(codeOf(outcome)).toBe('DEADLINE');
    } finally {
      await transport.shutdown();
    }
    expect(isPidAlive(transport.pid ?? 0)).toBe(false);
    await settleEventLoop();
    expect(unhandled).toEqual([]);
  });

  it('a write stuck behind it fails with TRANSPORT_CLOSED as soon as the server dies, not at its deadline', async () => {
    const transport = new BoundedStdioTransport(launch);
    const client = new RawClient(transport);
    try {
      await client.start();
      await settledWithin(initialize(client, { deadline: new Deadline(1_000, 'initialize') }), 20_000);
      // 1 MiB cannot fit in a pipe nobody reads: this write waits.
      const stuck = settledWithin(client.notify('notifications/message', { level: 'info', data: 'x'.repeat(1024 * 1024) }, new Deadline(600_000)), 20_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      process.kill(transport.pid ?? 0, 'SIGKILL');
      expect(codeOf(await stuck)).toBe('TRANSPORT_CLOSED');
    } finally {
      await transport.shutdown();
    }
  });

  it('a notification the server never reads fails with DEADLINE at its own deadline (sendWithin)', async () => {
    const transport = new BoundedStdioTransport(launch);
    const client = new RawClient(transport);
    try {
      await client.start();
      await settledWithin(initialize(client, { deadline: new Deadline(1_000, 'initialize') }), 20_000);
      // 1 MiB cannot fit in a pipe nobody reads: only the write's deadline can end this wait.
      const write = client.notify('notifications/message', { level: 'info', data: 'x'.repeat(1024 * 1024) }, new Deadline(500, 'a big notification'));
      const outcome = await settledWithin(write, 20_000);
      expect(codeOf(outcome)).toBe('DEADLINE');
      expect((outcome as { error: McpctxError }).error.message).toMatch(/a big notification exceeded its 500 ms budget while waiting for the server to read/);
    } finally {
      await transport.shutdown();
    }
  });

  it('a server that closed its stdin is seen as gone on its own at the first EPIPE, before its exit is reported', async () => {
    // The shell closes its stdin at once and lives on: the write meets EPIPE while no exit is known.
    const transport = new BoundedStdioTransport({ command: 'sh', args: ['-c', 'exec 0<&-; sleep 5'], env: markedEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) });
    try {
      await transport.start();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const outcome = await settledWithin(transport.sendWithin({ jsonrpc: '2.0', method: 'notifications/initialized' }, new Deadline(5_000)), 20_000);
      expect(codeOf(outcome)).toBe('TRANSPORT_CLOSED');
      expect(transport.exit).toBeUndefined();
      expect(transport.inputClosedByServer).toBe(true);
    } finally {
      await transport.shutdown();
    }
    const ours = new BoundedStdioTransport(launch);
    await ours.start();
    await ours.shutdown();
    expect(ours.inputClosedByServer).toBe(false);
  });

  // The acceptance figure of issue 10: the budget plus 2 s at most, on a loaded machine too.
  it('mcpctx measure --timeout 3000 reports timeout within its budget plus 2 s', async () => {
    const started = performance.now();
    const run = await runCliCaptured(['measure', '--json', '--timeout', '3000', ...markFlags(), '--', process.execPath, SCRIPTED_SERVER, 'flood-never-read']);
    const elapsedMs = performance.now() - started;
    expect(run.code).toBe(3);
    const measurement = JSON.parse(run.stdout) as { status: string; note: string };
    expect(measurement.status).toBe('timeout');
    expect(measurement.note).toMatch(/3000 ms/);
    expect(elapsedMs).toBeLessThan(3_000 + 2_000);
  });
});
