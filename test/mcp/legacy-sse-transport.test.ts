// LegacySseClientTransport (MCP's HTTP+SSE transport, 2024-11-05) against hand-written loopback
// servers: the endpoint event, answers on the stream, headers on every request and in no error,
// the endpoint's origin, event size, and a stream that ends.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { Deadline, RawClient, initialize } from '../../src/mcp/index.js';
import { LegacySseClientTransport } from '../../src/mcp/_legacy-sse-transport.js';
import { startLegacySseToolsServer, startRawServer } from '../support/remote-servers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function caught(promise: Promise<unknown>): Promise<McpctxError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpctxError);
  return error as McpctxError;
}

function everyTextOf(error: McpctxError): string {
  return `${error.message} ${JSON.stringify(error.data)} ${inspect(error, { depth: 10 })}`;
}

/** A legacy server whose stream names its endpoint, then does `onPost` with the stream for each POSTed request. */
async function scriptedLegacy(onPost: (stream: ServerResponse, message: { id?: unknown; method?: string }) => void): Promise<string> {
  let stream: ServerResponse | undefined;
  const server = await startRawServer((request, response) => {
    if (request.method === 'GET') {
      stream = response;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: endpoint\ndata: /mcp?session=1\n\n');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(202).end('Accepted');
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method?: string };
      if (stream && message.id !== undefined) onPost(stream, message);
    });
  });
  cleanups.push(() => server.close());
  return server.url;
}

describe('LegacySseClientTransport', () => {
  it('opens the stream, POSTs to the endpoint it names, and takes answers off the stream; headers go on every request and in no error', async () => {
    const canary = `canary-${randomUUID()}`;
    const legacy = await startLegacySseToolsServer();
    cleanups.push(() => legacy.close());
    const transport = new LegacySseClientTransport({ url: legacy.url, headers: { Authorization: `Bearer ${canary}` } });
    const client = new RawClient(transport);
    cleanups.push(() => client.close());
    const deadline = new Deadline(10_000, 'test');
    await transport.connect(deadline);
    await client.start();
    expect(transport.messageEndpoint).toBe(`${new URL(legacy.url).origin}/messages`);
    const outcome = await initialize(client, { deadline });
    expect(outcome.instructions).toBe('Issue tools, served the same over every transport.');
    const listed = (await client.request('tools/list', undefined, deadline)) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['search_issues', 'get_issue', 'echo']);
    expect(legacy.posts).toBe(3); // initialize, notifications/initialized, tools/list
    expect(legacy.headers.every((headers) => headers.authorization === `Bearer ${canary}`)).toBe(true);
    const refused = await caught(client.request('tools/call', { name: 'nope' }, deadline));
    expect(everyTextOf(refused)).not.toContain(canary);
  });

  it('the SDK client runs over it too (start() opens the stream)', async () => {
    const legacy = await startLegacySseToolsServer();
    cleanups.push(() => legacy.close());
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    await client.connect(new LegacySseClientTransport({ url: legacy.url }));
    cleanups.push(() => client.close());
    const result = await client.callTool({ name: 'echo', arguments: { text: 'legacy' } });
    expect(result.content).toEqual([{ type: 'text', text: 'legacy' }]);
  });

  it('refuses an endpoint on another origin, so the headers never go there', async () => {
    const canary = `canary-${randomUUID()}`;
    const legacy = await startLegacySseToolsServer({ endpoint: (id) => `http://evil.invalid/messages?sessionId=${id}` });
    cleanups.push(() => legacy.close());
    const transport = new LegacySseClientTransport({ url: legacy.url, headers: { Authorization: canary } });
    cleanups.push(() => transport.close());
    const error = await caught(transport.connect(new Deadline(10_000, 'test')));
    expect(error.code).toBe('REDIRECT_REFUSED');
    expect(error.message).toContain('another origin');
    expect(everyTextOf(error)).not.toContain(canary);
    expect(legacy.posts).toBe(0);
  });

  it('refuses an event larger than maxFrameBytes before parsing it', async () => {
    const url = await scriptedLegacy((stream, message) => {
      stream.write(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"pad":"${'x'.repeat(20_000)}"}}\n\n`);
    });
    const transport = new LegacySseClientTransport({ url, maxFrameBytes: 4_096 });
    const client = new RawClient(transport);
    cleanups.push(() => client.close());
    const deadline = new Deadline(10_000, 'test');
    await transport.connect(deadline);
    await client.start();
    const error = await caught(client.request('initialize', {}, deadline));
    expect(error.code).toBe('FRAME_TOO_LARGE');
  });

  it('fails a waiting request as soon as the stream ends, not at its deadline', async () => {
    const url = await scriptedLegacy((stream) => stream.end());
    const transport = new LegacySseClientTransport({ url });
    const client = new RawClient(transport);
    cleanups.push(() => client.close());
    const deadline = new Deadline(20_000, 'test');
    await transport.connect(deadline);
    await client.start();
    const started = performance.now();
    const error = await caught(client.request('initialize', {}, deadline));
    expect(error.code).toBe('TRANSPORT_CLOSED');
    expect(error.message).toContain('ended its event stream');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('a stream that ends right after naming its endpoint fails the next request at once', async () => {
    const server = await startRawServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end('event: endpoint\ndata: /mcp?session=1\n\n');
    });
    cleanups.push(() => server.close());
    const transport = new LegacySseClientTransport({ url: server.url });
    const client = new RawClient(transport);
    cleanups.push(() => client.close());
    const deadline = new Deadline(20_000, 'test');
    const started = performance.now();
    const error = await caught(transport.connect(deadline).then(() => client.start()).then(() => client.request('initialize', {}, deadline)));
    expect(error.code).toBe('TRANSPORT_CLOSED');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('names a refused GET by its status, and a 401 with its challenge', async () => {
    const server = await startRawServer((request, response) => {
      if (request.headers.authorization === undefined) return void response.writeHead(401, { 'www-authenticate': 'Bearer realm="legacy"' }).end();
      response.writeHead(404).end('no stream here');
    });
    cleanups.push(() => server.close());
    const wall = await caught(new LegacySseClientTransport({ url: server.url }).connect(new Deadline(5_000, 'test')));
    expect(wall.code).toBe('AUTH_REQUIRED');
    expect(wall.message).toContain('WWW-Authenticate: Bearer realm="legacy"');
    const missing = await caught(new LegacySseClientTransport({ url: server.url, headers: { Authorization: 'x-token' } }).connect(new Deadline(5_000, 'test')));
    expect(missing.code).toBe('HTTP_STATUS');
    expect(missing.data.status).toBe(404);
  });
});
