// A long-lived upstream session (F of issue 10): many requests in flight, notifications handed to
// a handler, server-to-client requests handed to the caller instead of refused, cancellation told
// to the server, and the end of the connection reported once.
import { afterAll, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { Deadline, RawClient, ServerSession, type ServerNotification, type ServerRequest } from '../../src/mcp/index.js';
import { FakeTransport } from '../support/fake-transport.js';
import { SCRIPTED_SERVER, isPidAlive, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const launch = { command: process.execPath, args: [SCRIPTED_SERVER, 'session'], env: markedEnv() };
const BUDGET_MS = 20_000;

function textOf(result: unknown): unknown {
  const block = (result as { content: Array<{ text: string }> }).content[0];
  return JSON.parse(block?.text ?? 'null') as unknown;
}

describe('ServerSession over a real server', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('answers many requests in flight at once, each with its own response, in the order the server finishes them', async () => {
    const session = new ServerSession({ launch });
    try {
      await session.open(new Deadline(BUDGET_MS));
      const delays = [400, 0, 250, 50, 150, 300, 100, 0];
      const finished: number[] = [];
      const calls = delays.map((ms, tag) =>
        session.request('tools/call', { name: 'slow', arguments: { ms, tag } }, new Deadline(BUDGET_MS)).then((result) => {
          finished.push(tag);
          return textOf(result);
        }),
      );
      expect(session.client.inFlight).toBe(8);
      expect(await Promise.all(calls)).toEqual(delays.map((_, tag) => ({ tag })));
      expect(finished).not.toEqual(delays.map((_, tag) => tag)); // answers came back out of order
    } finally {
      await session.close();
    }
  });

  it('reports every frame that crossed the pipe, text exact, to transport.onFrame', async () => {
    const frames: Array<{ direction: string; text: string }> = [];
    const session = new ServerSession({ launch, transport: { onFrame: (direction, text) => frames.push({ direction, text }) } });
    try {
      await session.open(new Deadline(BUDGET_MS));
      const result = await session.request('tools/call', { name: 'slow', arguments: { ms: 0, tag: 7 } }, new Deadline(BUDGET_MS));
      expect(textOf(result)).toEqual({ tag: 7 });
    } finally {
      await session.close();
    }
    const methods = frames.map((frame) => [frame.direction, (JSON.parse(frame.text) as { method?: string }).method ?? 'response']);
    expect(methods).toEqual([
      ['sent', 'initialize'],
      ['received', 'response'],
      ['sent', 'notifications/initialized'],
      ['sent', 'tools/call'],
      ['received', 'response'],
    ]);
    const call = JSON.parse(frames[3]?.text ?? '{}') as { id: number };
    const answer = JSON.parse(frames[4]?.text ?? '{}') as { id: number; result: unknown };
    expect(answer.id).toBe(call.id);
    expect(textOf(answer.result)).toEqual({ tag: 7 });
    for (const frame of frames) expect(frame.text.endsWith('\n')).toBe(false);
  });

  it('hands notifications (progress) to onNotification', async () => {
    const notifications: ServerNotification[] = [];
    const session = new ServerSession({ launch, onNotification: (note) => notifications.push(note) });
    try {
      await session.open(new Deadline(BUDGET_MS));
      await session.request('tools/call', { name: 'slow', arguments: { ms: 0, tag: 1 }, _meta: { progressToken: 'p-1' } }, new Deadline(BUDGET_MS));
      expect(notifications).toEqual([{ method: 'notifications/progress', params: { progressToken: 'p-1', progress: 1, total: 2 } }]);
    } finally {
      await session.close();
    }
  });

  it('hands a server-to-client request (sampling) to onServerRequest and sends back what it returns', async () => {
    const seen: ServerRequest[] = [];
    const session = new ServerSession({
      launch,
      capabilities: { sampling: {} },
      onServerRequest: async (request) => {
        seen.push(request);
        return { role: 'assistant', content: { type: 'text', text: '42' }, model: 'scripted' };
      },
    });
    try {
      await session.open(new Deadline(BUDGET_MS));
      const result = await session.request('tools/call', { name: 'ask', arguments: { question: 'six times seven?' } }, new Deadline(BUDGET_MS));
      expect(seen.map((request) => request.method)).toEqual(['sampling/createMessage']);
      expect(seen[0]?.params).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'six times seven?' } }] });
      expect(textOf(result)).toEqual({ result: { role: 'assistant', content: { type: 'text', text: '42' }, model: 'scripted' } });
    } finally {
      await session.close();
    }
  });

  it('a handler that refuses with an rpcCode is answered with that JSON-RPC error; any other throw with -32603', async () => {
    let calls = 0;
    const session = new ServerSession({
      launch,
      onServerRequest: () => {
        calls += 1;
        if (calls === 1) throw new McpctxError('RPC_ERROR', 'the user declined', { rpcCode: -1 });
        throw new Error('/home/me/secret/path.ts exploded');
      },
    });
    try {
      await session.open(new Deadline(BUDGET_MS));
      const ask = (): Promise<unknown> => session.request('tools/call', { name: 'ask', arguments: { question: 'q' } }, new Deadline(BUDGET_MS)).then(textOf);
      expect(await ask()).toEqual({ error: { code: -1, message: 'the user declined' } });
      // The handler's own message (a path here) does not reach the server.
      expect(await ask()).toEqual({ error: { code: -32603, message: 'Internal error while handling the request' } });
    } finally {
      await session.close();
    }
  });

  it('reports the end of the connection once, and later requests fail at once with TRANSPORT_CLOSED', async () => {
    const reasons: string[] = [];
    const session = new ServerSession({ launch, onClose: (reason) => reasons.push(reason.code) });
    try {
      await session.open(new Deadline(BUDGET_MS));
      const pid = session.pid ?? 0;
      const waiting = session.request('tools/call', { name: 'slow', arguments: { ms: 60_000, tag: 0 } }, new Deadline(BUDGET_MS));
      process.kill(pid, 'SIGKILL');
      await expect(waiting).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
      await expect(session.request('ping', undefined, new Deadline(BUDGET_MS))).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
      expect(reasons).toEqual(['TRANSPORT_CLOSED']);
      expect(session.ended?.code).toBe('TRANSPORT_CLOSED');
    } finally {
      await session.close();
    }
    expect(isPidAlive(session.pid ?? 0)).toBe(false);
  });
});

describe('cancellation', () => {
  it('an aborted request fails with CANCELLED and the server is told which request (notifications/cancelled)', async () => {
    const transport = new FakeTransport(() => []);
    const client = new RawClient(transport);
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'slow' }, new Deadline(BUDGET_MS), { signal: controller.signal });
    controller.abort(new Error('the user pressed stop'));
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED', message: expect.stringMatching(/the user pressed stop/) as unknown });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(transport.sent.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'tools/call was cancelled: the user pressed stop' } });
  });

  it('initialize is never cancelled (the lifecycle forbids it)', async () => {
    const transport = new FakeTransport(() => []);
    const client = new RawClient(transport);
    await expect(client.request('initialize', {}, new Deadline(50))).rejects.toMatchObject({ code: 'DEADLINE' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(transport.sent.map((message) => message.method)).toEqual(['initialize']);
  });
});
