// MCP tasks (2025-11-25) through the gateway (issue 31, item 4). With several upstreams each task
// id the client sees is its upstream's, namespaced, and routed only to the upstream that gave it;
// tasks/list merges the upstreams under a signed cursor; an id or cursor no upstream gave is
// refused. The result of a tools/call task is shaped as the direct call's. One upstream: as before.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TASK_ROUTES_CAPACITY } from '../../src/gateway/tasks/index.js';
import { SCRIPTED_SERVER, waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { markEnvEntries, tempDir, writeConfig } from './_gateway-process.js';
import { type InProcessGateway, withInProcessGateway } from './_in-process.js';

const RELATED = 'io.modelcontextprotocol/related-task';
const tasksServer = (label: string) => ({ command: process.execPath, args: [SCRIPTED_SERVER, 'tasks', label], env: markEnvEntries() });
const plainServer = () => ({ command: process.execPath, args: [SCRIPTED_SERVER, 'normal'], env: markEnvEntries() });
const TWO = { mcpServers: { a: tasksServer('a'), b: tasksServer('b') } };

const resultOf = (response: Message): Record<string, unknown> => {
  if (response.error !== undefined) throw new Error(`expected a result, got ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
};
const errorOf = (response: Message): { code: number; message: string } => response.error as { code: number; message: string };
const textOf = (result: Record<string, unknown>): string => (result.content as Array<{ text: string }>)[0]?.text ?? '';

async function startTask(gateway: InProcessGateway, tool: string, args: Record<string, unknown> = { topic: 'x' }): Promise<string> {
  const created = resultOf(await gateway.request('tools/call', { name: tool, arguments: args, task: { ttl: 60_000 } }));
  return (created.task as { taskId: string }).taskId;
}

describe('gateway tasks', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('advertises tasks only for what it relays, and only when an upstream runs tool calls as tasks', async () => {
    await withInProcessGateway({ config: writeConfig({ mcpServers: { a: tasksServer('a'), b: plainServer() } }) }, async (gateway) => {
      const init = resultOf(await gateway.initialize());
      // The upstream's `requests.sampling` is not relayed, so not advertised.
      expect((init.capabilities as Record<string, unknown>).tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    });
    await withInProcessGateway({ config: writeConfig({ mcpServers: { a: plainServer(), b: plainServer() } }) }, async (gateway) => {
      const init = resultOf(await gateway.initialize());
      expect(init.capabilities).not.toHaveProperty('tasks');
    });
  });

  it('routes each task id to the upstream that created it, though both upstreams use the same ids', async () => {
    await withInProcessGateway({ config: writeConfig(TWO) }, async (gateway) => {
      await gateway.initialize();
      const fromA = await startTask(gateway, 'a__research', { topic: 'tides' });
      const fromB = await startTask(gateway, 'b__research', { topic: 'stars' });
      // Both upstreams called theirs task-1: the client sees two ids.
      expect([fromA, fromB]).toEqual(['a__task-1', 'b__task-1']);

      await gateway.waitFor((received) => received.filter((message) => message.method === 'notifications/tasks/status').length === 2);
      const statuses = gateway.received.filter((message) => message.method === 'notifications/tasks/status').map((message) => message.params as Record<string, unknown>);
      expect(statuses.map((params) => [params.taskId, (params._meta as Record<string, { taskId: string }>)[RELATED]?.taskId])).toEqual([
        ['a__task-1', 'a__task-1'],
        ['b__task-1', 'b__task-1'],
      ]);

      expect(resultOf(await gateway.request('tasks/get', { taskId: fromB }))).toMatchObject({ taskId: 'b__task-1', status: 'completed' });
      const resultA = resultOf(await gateway.request('tasks/result', { taskId: fromA }));
      expect(textOf(resultA)).toBe('result of task-1 from a on tides');
      expect(resultA._meta).toEqual({ [RELATED]: { taskId: 'a__task-1' } });
      expect(textOf(resultOf(await gateway.request('tasks/result', { taskId: fromB })))).toBe('result of task-1 from b on stars');

      // An id no upstream gave this session is refused by the gateway, never tried on an upstream.
      for (const taskId of ['task-1', 'a__task-9', 'c__task-1', '', 7]) {
        for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
          const refused = errorOf(await gateway.request(method, { taskId }));
          expect(refused.code).toBe(-32602);
          expect(refused.message).toContain('no upstream created it in this session');
        }
      }
    });
  });

  it('cancels a task on the upstream that runs it', async () => {
    await withInProcessGateway({ config: writeConfig(TWO) }, async (gateway) => {
      await gateway.initialize();
      await startTask(gateway, 'a__research');
      const fromB = await startTask(gateway, 'b__research');
      expect(resultOf(await gateway.request('tasks/cancel', { taskId: fromB }))).toMatchObject({ taskId: 'b__task-1', status: 'cancelled' });
      expect(resultOf(await gateway.request('tasks/get', { taskId: fromB }))).toMatchObject({ status: 'cancelled' });
      // a's task-1 was not the one cancelled.
      expect(resultOf(await gateway.request('tasks/get', { taskId: 'a__task-1' }))).toMatchObject({ status: 'completed' });
      // The upstream's own refusal comes back as it sent it.
      const again = errorOf(await gateway.request('tasks/cancel', { taskId: fromB }));
      expect(again).toMatchObject({ code: -32602, message: 'task task-1 is already cancelled' });
    });
  });

  it('lists every upstream\'s tasks page by page under a cursor no one else can make', async () => {
    await withInProcessGateway({ config: writeConfig(TWO) }, async (gateway) => {
      await gateway.initialize();
      await startTask(gateway, 'a__research');
      await startTask(gateway, 'a__research');
      await startTask(gateway, 'b__research');
      const pages: string[][] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      do {
        const page = resultOf(await gateway.request('tasks/list', cursor === undefined ? {} : { cursor }));
        pages.push((page.tasks as Array<{ taskId: string }>).map((task) => task.taskId));
        cursor = page.nextCursor as string | undefined;
        if (cursor !== undefined) cursors.push(cursor);
      } while (cursor !== undefined && pages.length < 10);
      // The scripted upstreams page one task at a time: a's next page, then a's last with b's only one.
      expect(pages).toEqual([['a__task-1'], ['a__task-2', 'b__task-1']]);

      const issued = cursors[0] as string;
      const [signed, position] = issued.split('.') as [string, string];
      const otherUpstream = Buffer.from(JSON.stringify(['b', 'after-task-1'])).toString('base64url');
      const forged = [
        `${signed}.${otherUpstream}`,
        `${signed.slice(0, -2)}${signed.endsWith('AA') ? 'BB' : 'AA'}.${position}`,
        'after-task-1',
        Buffer.from(JSON.stringify(['a', 'after-task-1'])).toString('base64url'),
        42,
      ];
      for (const bad of forged) {
        const refused = errorOf(await gateway.request('tasks/list', { cursor: bad }));
        expect(refused.code).toBe(-32602);
        expect(refused.message).toMatch(/cursor/i);
      }
    });
  });

  it('shapes a task\'s result as the direct call\'s: over the cap it is offloaded, with a receipt', async () => {
    const dir = tempDir();
    const receipts = join(dir, 'receipts.jsonl');
    const config = writeConfig({ ...TWO, capTokens: 1000 }, dir);
    await withInProcessGateway({ config, receipts }, async (gateway) => {
      await gateway.initialize();
      const direct = resultOf(await gateway.request('tools/call', { name: 'b__research', arguments: { words: 5000 } }));
      const taskId = await startTask(gateway, 'b__research', { words: 5000 });
      const result = resultOf(await gateway.request('tasks/result', { taskId }));
      expect(textOf(result)).toContain('read_result');
      expect(textOf(result).length).toBeLessThan(10_000);
      // The same preview as the direct call's, handles aside.
      const masked = (text: string): string => text.replace(/[A-Za-z0-9_-]{40,}/g, 'HANDLE');
      expect(masked(textOf(result))).toBe(masked(textOf(direct)));
      expect(result._meta).toEqual({ [RELATED]: { taskId: 'b__task-1' } });
    });
    const lines = (await readFile(receipts, 'utf8')).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
    const calls = lines.filter((line) => line.kind === 'call');
    expect(calls.map(({ tool, action, upstream }) => ({ tool, action, upstream }))).toEqual([
      { tool: 'b__research', action: 'offloaded', upstream: 'b' },
      { tool: 'b__research', action: 'passed', upstream: 'b' },
      { tool: 'b__research', action: 'offloaded', upstream: 'b' },
    ]);
    expect(calls[2]?.note).toContain('result of task b__task-1');
  });

  it('refuses a task-augmented call a check stops with a JSON-RPC error, not a tool result a client reads as a task', async () => {
    await withInProcessGateway({ config: writeConfig({ ...TWO, deny: ['b/research'] }) }, async (gateway) => {
      await gateway.initialize();
      const refused = await gateway.request('tools/call', { name: 'b__research', arguments: { topic: 'x' }, task: { ttl: 60_000 } });
      expect(refused.result).toBeUndefined();
      expect(errorOf(refused).code).toBe(-32602);
      expect(errorOf(refused).message).toMatch(/b__research/);
      // Without task, the same refusal stays a tool error result the model reads.
      const plain = resultOf(await gateway.request('tools/call', { name: 'b__research', arguments: { topic: 'x' } }));
      expect(plain.isError).toBe(true);
      expect(textOf(plain)).toBe(errorOf(refused).message);
      // Nothing was created upstream: the other upstream's task still works.
      expect(await startTask(gateway, 'a__research')).toBe('a__task-1');
    });
  });

  it('relays a server\'s question about a task of the client\'s own under the client\'s id', async () => {
    const asked: unknown[] = [];
    const answer = (request: Message) => {
      asked.push(request.params);
      return { result: { taskId: (request.params as { taskId: string }).taskId, status: 'working', ttl: null, createdAt: '', lastUpdatedAt: '' } };
    };
    await withInProcessGateway({ config: writeConfig(TWO), answer }, async (gateway) => {
      await gateway.initialize();
      const result = resultOf(await gateway.request('tools/call', { name: 'a__research', arguments: { askClient: 'client-7' } }));
      expect(asked).toEqual([{ taskId: 'client-7' }]);
      expect(JSON.parse(textOf(result))).toMatchObject({ taskId: 'client-7', status: 'working' });
    });
  });

  it('with one upstream relays tasks as before: the upstream\'s ids, its own errors', async () => {
    await withInProcessGateway({ config: writeConfig({ mcpServers: { a: tasksServer('a') } }) }, async (gateway) => {
      const init = resultOf(await gateway.initialize());
      // Its initialize answer as it sent it, `requests.sampling` included.
      expect((init.capabilities as Record<string, unknown>).tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} }, sampling: { createMessage: {} } } });
      const taskId = await startTask(gateway, 'research');
      expect(taskId).toBe('task-1');
      expect(resultOf(await gateway.request('tasks/get', { taskId }))).toMatchObject({ taskId: 'task-1', status: 'completed' });
      expect(textOf(resultOf(await gateway.request('tasks/result', { taskId })))).toBe('result of task-1 from a on x');
      expect(resultOf(await gateway.request('tasks/list', {}))).toEqual({ tasks: [expect.objectContaining({ taskId: 'task-1' })] });
      expect(errorOf(await gateway.request('tasks/get', { taskId: 'task-9' }))).toMatchObject({ code: -32602, message: 'scripted a never made task "task-9"' });
    });
  });

  it('holds the result of a task whose call it no longer remembers to the cap', async () => {
    await withInProcessGateway({ config: writeConfig({ mcpServers: { a: tasksServer('a') }, capTokens: 1000 }) }, async (gateway) => {
      await gateway.initialize();
      const first = await startTask(gateway, 'research', { words: 5000 });
      // Past the session's 1,024 routes the first task's is evicted: the gateway no longer knows its call.
      for (let more = 0; more < TASK_ROUTES_CAPACITY; more += 1) await startTask(gateway, 'research');
      const result = resultOf(await gateway.request('tasks/result', { taskId: first }));
      expect(textOf(result)).toContain('read_result');
      expect(textOf(result).length).toBeLessThan(10_000);
    });
  });
});
