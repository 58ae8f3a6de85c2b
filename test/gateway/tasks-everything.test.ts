// Tasks through the gateway with two real server-everything upstreams (issue 31, item 4): its
// simulate-research-query (taskSupport "required") created on both, polled, listed, cancelled
// and its result fetched, in process on the wire and with the official SDK client 1.32.2 (its
// experimental tasks API) over the gateway CLI's stdio. The CLI test needs `npm run build`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { referenceServer } from '../support/real-servers.js';
import type { Message } from '../support/wire-client.js';
import { CLI, markEnvEntries, writeConfig } from './_gateway-process.js';
import { withInProcessGateway } from './_in-process.js';

const RESEARCH = 'simulate-research-query';
const RELATED = 'io.modelcontextprotocol/related-task';

function twoEverythings(): string {
  const everything = () => ({ command: process.execPath, args: referenceServer('everything').args, env: markEnvEntries() });
  return writeConfig({ mcpServers: { a: everything(), b: everything() } });
}

const resultOf = (response: Message): Record<string, unknown> => {
  if (response.error !== undefined) throw new Error(`expected a result, got ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
};

describe('gateway tasks with two server-everything upstreams', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('creates, polls, lists, cancels and fetches simulate-research-query tasks on the wire', { timeout: 60_000 }, async () => {
    await withInProcessGateway({ config: twoEverythings() }, async (gateway) => {
      const init = resultOf(await gateway.initialize());
      expect((init.capabilities as Record<string, unknown>).tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const tools = resultOf(await gateway.request('tools/list')).tools as Array<{ name: string; execution?: unknown }>;
      expect(tools.find((tool) => tool.name === `a__${RESEARCH}`)?.execution).toEqual({ taskSupport: 'required' });

      const create = async (upstream: string): Promise<string> => {
        const created = resultOf(await gateway.request('tools/call', { name: `${upstream}__${RESEARCH}`, arguments: { topic: `tides ${upstream}` }, task: { ttl: 60_000 } }));
        return (created.task as { taskId: string }).taskId;
      };
      const fromA = await create('a');
      const fromB = await create('b');
      expect(fromA.startsWith('a__')).toBe(true);
      expect(fromB.startsWith('b__')).toBe(true);

      expect(resultOf(await gateway.request('tasks/get', { taskId: fromA }))).toMatchObject({ taskId: fromA, status: 'working' });
      const listed = (resultOf(await gateway.request('tasks/list', {})).tasks as Array<{ taskId: string }>).map((task) => task.taskId);
      expect(listed).toEqual([fromA, fromB]);

      expect(resultOf(await gateway.request('tasks/cancel', { taskId: fromB }))).toMatchObject({ taskId: fromB, status: 'cancelled' });
      expect(resultOf(await gateway.request('tasks/get', { taskId: fromA }))).not.toMatchObject({ status: 'cancelled' });

      // Blocks upstream until the four stages are done (about 4 s).
      const result = resultOf(await gateway.request('tasks/result', { taskId: fromA }, 30_000));
      expect((result.content as Array<{ text: string }>)[0]?.text).toContain('# Research Report: tides a');
      expect(result._meta).toEqual({ [RELATED]: { taskId: fromA } });
      expect(resultOf(await gateway.request('tasks/get', { taskId: fromA }))).toMatchObject({ status: 'completed' });

      // The upstream's status notifications name the ids the client knows.
      const notified = gateway.received.filter((message) => message.method === 'notifications/tasks/status').map((message) => (message.params as { taskId: string }).taskId);
      expect(notified).toContain(fromA);
      expect(notified.filter((taskId) => taskId !== fromA && taskId !== fromB)).toEqual([]);

      const unknown = await gateway.request('tasks/get', { taskId: fromA.replace(/^a__/, 'b__') });
      expect((unknown.error as { code: number }).code).toBe(-32602);
    });
  });

  it('serves the official SDK client\'s task calls over the CLI\'s stdio: a clarification asked mid-task, a cancel, a forged id', { timeout: 60_000 }, async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'gateway', '--config', twoEverythings()],
      env: markedEnv({ PATH: process.env.PATH ?? '' }),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'sdk-tasks', version: '1' }, { capabilities: { elicitation: {} } });
    const elicited: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params._meta?.[RELATED]);
      return { action: 'accept', content: { interpretation: 'programming' } };
    });
    try {
      await client.connect(transport);
      expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      await client.listTools();

      // b's task: created, then cancelled while it works; its stream ends in the cancellation.
      const streamB = client.experimental.tasks.callToolStream({ name: `b__${RESEARCH}`, arguments: { topic: 'stars' } });
      const firstB = await streamB.next();
      const taskB = firstB.value?.type === 'taskCreated' ? firstB.value.task.taskId : undefined;
      expect(taskB?.startsWith('b__')).toBe(true);
      expect(await client.experimental.tasks.cancelTask(taskB as string)).toMatchObject({ taskId: taskB, status: 'cancelled' });
      const restB = [];
      for await (const message of streamB) restB.push(message);
      expect(restB.at(-1)).toMatchObject({ type: 'error' });
      expect(String((restB.at(-1) as { error: Error }).error.message)).toContain('cancelled');

      // a's task asks the client for a clarification (input_required), answered under a's id.
      const messagesA = [];
      for await (const message of client.experimental.tasks.callToolStream({ name: `a__${RESEARCH}`, arguments: { topic: 'python', ambiguous: true } })) messagesA.push(message);
      const created = messagesA.find((message) => message.type === 'taskCreated');
      const taskA = created?.type === 'taskCreated' ? created.task.taskId : '';
      expect(taskA.startsWith('a__')).toBe(true);
      const last = messagesA.at(-1);
      expect(last?.type).toBe('result');
      const text = last?.type === 'result' ? JSON.stringify(last.result.content) : '';
      expect(text).toContain('Research Report: python (programming)');
      expect(elicited).toEqual([{ taskId: taskA }]);

      const listed = (await client.experimental.tasks.listTasks()).tasks.map((task) => task.taskId);
      expect(listed).toEqual(expect.arrayContaining([taskA, taskB]));
      expect((await client.experimental.tasks.getTask(taskA)).status).toBe('completed');

      const forged = await client.experimental.tasks.getTask(`a__${taskA.slice(3, -4)}0000`).catch((error: unknown) => error);
      expect(forged).toBeInstanceOf(McpError);
      expect((forged as McpError).code).toBe(-32602);
    } finally {
      await client.close();
    }
  });
});
