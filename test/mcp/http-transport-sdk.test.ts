// The transport against the real SDK server (@modelcontextprotocol/server 2.4.0) over loopback
// HTTP, in both of its answer modes, and the SDK's own client running over our transport.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Deadline, HttpClientTransport, RawClient, initialize } from '../../src/mcp/index.js';
import { HttpUpstream, RawResult } from '../support/http-upstream.js';
import { pollUntil } from '../support/processes.js';

interface SdkServer {
  url: string;
  closedSessions: string[];
  close: () => Promise<void>;
}

/** One SDK McpServer with a stateful streamable-HTTP transport, bridged onto node:http. */
async function startSdkServer(enableJsonResponse: boolean): Promise<SdkServer> {
  const closedSessions: string[] = [];
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse,
    onsessionclosed: (id) => {
      closedSessions.push(id);
    },
  });
  const mcp = new McpServer({ name: 'sdk-http', version: '2.4.0' }, { instructions: 'test server' });
  mcp.registerTool(
    'echo',
    { description: 'Echoes text back', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  await mcp.connect(transport);
  const http: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
      const method = request.method ?? 'GET';
      const answer = await transport.handleRequest(
        new Request(`http://${request.headers.host}${request.url}`, {
          method,
          headers,
          body: method === 'POST' ? Buffer.concat(chunks) : undefined,
        }),
      );
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.flushHeaders();
      if (!answer.body) return void response.end();
      const reader = answer.body.getReader();
      response.on('close', () => void reader.cancel().catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        response.write(value);
      }
      response.end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    closedSessions,
    close: async () => {
      await mcp.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each([
  ['SSE answers', false],
  ['JSON answers', true],
])('HttpClientTransport against the SDK server (%s)', (_name, enableJsonResponse) => {
  it('initializes, lists, calls, listens on GET and ends the session with DELETE', async () => {
    const server = await startSdkServer(enableJsonResponse);
    cleanups.push(() => server.close());
    const transport = new HttpClientTransport({ url: server.url });
    const client = new RawClient(transport);
    await client.start();
    cleanups.push(() => client.close());
    const deadline = new Deadline(10_000, 'test');
    const outcome = await initialize(client, { deadline });
    expect(outcome.negotiatedProtocolVersion).toBe('2025-11-25');
    expect(outcome.instructions).toBe('test server');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const tools = (await client.request('tools/list', undefined, deadline)) as { tools: Array<{ name: string }> };
    expect(tools.tools.map((tool) => tool.name)).toEqual(['echo']);
    const result = await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } }, deadline);
    expect(result).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(await pollUntil(() => transport.listening === 'open', 5_000)).toBe(true);
    const session = transport.sessionId;
    await transport.close();
    expect(await pollUntil(() => server.closedSessions.length === 1, 5_000)).toBe(true);
    expect(server.closedSessions).toEqual([session]);
  });
});

describe('the SDK client over HttpClientTransport', () => {
  it('connects, lists tools and calls one', async () => {
    const server = await startSdkServer(false);
    cleanups.push(() => server.close());
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    await client.connect(new HttpClientTransport({ url: server.url }));
    cleanups.push(() => client.close());
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['echo']);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'sdk' } });
    expect(result.content).toEqual([{ type: 'text', text: 'sdk' }]);
  });
});

describe('why results are taken raw', () => {
  it('the SDK client re-parses a result through its schemas; the raw client hands it on as sent', async () => {
    const sent = '{"tools":[{"inputSchema":{"type":"object"},"name":"search","x-cost":{"tokens":12},"description":"Search"}],"x-page":1}';
    const upstream = await HttpUpstream.start({ handlers: { 'tools/list': () => new RawResult(sent) } });
    cleanups.push(() => upstream.close());
    const sdk = new Client({ name: 'sdk-client', version: '1.0.0' });
    await sdk.connect(new HttpClientTransport({ url: upstream.url, listen: false }));
    cleanups.push(() => sdk.close());
    expect(JSON.stringify(await sdk.listTools())).not.toBe(sent);
    const raw = new RawClient(new HttpClientTransport({ url: upstream.url, listen: false }));
    await raw.start();
    cleanups.push(() => raw.close());
    const deadline = new Deadline(10_000, 'test');
    await initialize(raw, { deadline });
    expect(JSON.stringify(await raw.request('tools/list', undefined, deadline))).toBe(sent);
  });
});
