// Several upstreams behind one gateway: names namespaced, capabilities joined, instructions under a
// heading per upstream, resources routed by the URI to the upstream that listed it (templates
// too), prompts and completions by name.
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message } from '../support/wire-client.js';
import { gatewayOverStdio, relayEntry, writeConfig } from './_gateway-process.js';

const resultOf = (response: Message): Record<string, unknown> => response.result as Record<string, unknown>;

describe('gateway with two upstreams', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('merges initialize, lists and routes resources, prompts and completions to the right upstream', async () => {
    const client = gatewayOverStdio(['--config', writeConfig({ mcpServers: { a: relayEntry('a'), b: relayEntry('b') } })]);
    try {
      const init = resultOf(await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'two', version: '1' } }));
      await client.notify('notifications/initialized');
      expect(init.serverInfo).toMatchObject({ name: 'mcpctx-gateway' });
      expect(init.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true }, prompts: {}, logging: {} });
      expect(init.instructions).toBe('## a\n\nServer a: use echo to test.\n\n## b\n\nServer b: use echo to test.');

      const tools = (resultOf(await client.request('tools/list')).tools as Array<{ name: string }>).map((tool) => tool.name);
      expect(tools).toContain('a__echo');
      expect(tools).toContain('b__echo');

      const resources = resultOf(await client.request('resources/list')).resources as Array<{ uri: string }>;
      expect(resources.map((resource) => resource.uri)).toEqual(['a://doc/1', 'b://doc/1']);
      // Listed exactly, and only through a template: each goes to its own upstream.
      const listed = resultOf(await client.request('resources/read', { uri: 'b://doc/1' })).contents as Array<{ text: string }>;
      expect(listed[0]?.text).toBe('contents of b://doc/1');
      const templated = resultOf(await client.request('resources/read', { uri: 'a://doc/99' })).contents as Array<{ text: string }>;
      expect(templated[0]?.text).toBe('contents of a://doc/99');
      const unknown = await client.request('resources/read', { uri: 'c://nowhere' });
      expect((unknown.error as { code: number }).code).toBe(-32002);

      const prompts = (resultOf(await client.request('prompts/list')).prompts as Array<{ name: string }>).map((prompt) => prompt.name);
      expect(prompts).toEqual(['a__greet', 'b__greet']);
      const prompt = resultOf(await client.request('prompts/get', { name: 'b__greet', arguments: { who: 'Ada' } }));
      expect(JSON.stringify(prompt.messages)).toContain('Hello Ada from b');
      const completion = resultOf(await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'a__greet' }, argument: { name: 'who', value: 'x' } }));
      expect((completion.completion as { values: string[] }).values).toEqual(['a-a', 'a-b']);
      expect(resultOf(await client.request('logging/setLevel', { level: 'debug' }))).toEqual({});
      const unknownMethod = await client.request('vendor/echo', {});
      expect((unknownMethod.error as { code: number }).code).toBe(-32601);
    } finally {
      await client.close();
    }
  });
});
