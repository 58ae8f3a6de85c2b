// Interoperability: the official SDK client (v2) talks to the front, with the echo relay behind it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { startHttpFront, type HttpFront } from '../../src/gateway/index.js';
import { pollUntil } from '../support/processes.js';
import { echoRelay } from './_echo-relay.js';

let front: HttpFront | undefined;

afterEach(async () => {
  await front?.close();
  front = undefined;
});

it('serves the SDK client: handshake, tools, a server request answered through the GET stream, session end', async () => {
  const relay = echoRelay();
  front = await startHttpFront({ host: '127.0.0.1', port: 0, token: 'sdk-token-value', onConnection: relay.onConnection });
  const client = new Client({ name: 'sdk-interop', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler('sampling/createMessage', async () => ({
    model: 'scripted',
    role: 'assistant' as const,
    content: { type: 'text' as const, text: 'sampled' },
  }));
  const transport = new StreamableHTTPClientTransport(new URL(front.url), {
    requestInit: { headers: { authorization: 'Bearer sdk-token-value' } },
  });
  await client.connect(transport);
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'echo' });
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['echo']);
    const echoed = await client.callTool({ name: 'echo', arguments: { word: 'hello' } });
    expect(echoed.content).toEqual([{ type: 'text', text: '{"word":"hello"}' }]);
    const asked = await client.callTool({ name: 'ask', arguments: {} });
    expect(asked.content).toEqual([{ type: 'text', text: expect.stringContaining('"text":"sampled"') }]);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
  expect(await pollUntil(() => front?.sessions === 0, 10_000)).toBe(true);
  expect(relay.closeReasons).toEqual(['the client ended the session']);
});
