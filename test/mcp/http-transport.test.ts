import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import {
  Deadline,
  HttpClientTransport,
  RawClient,
  initialize,
  type HttpTransportOptions,
  type RawClientOptions,
  type ServerNotification,
} from '../../src/mcp/index.js';
import { HttpReply, HttpUpstream, RawResult, stall, type HttpUpstreamOptions } from '../support/http-upstream.js';
import { pollUntil } from '../support/processes.js';

// Odd key order and keys no schema knows: a client that re-parsed through the SDK's schemas would
// reorder the first and drop the second.
const INITIALIZE_RESULT =
  '{"x-vendor":{"z":1,"a":2},"serverInfo":{"version":"9.9.9","name":"odd"},"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"instructions":"hello"}';
const TOOLS_RESULT =
  '{"tools":[{"inputSchema":{"type":"object","properties":{}},"name":"search","x-cost":{"tokens":12},"execution":{"taskSupport":"optional"},"description":"Search things"}],"_meta":{"vendor":"kept"}}';

const CANARY = 'canary-secret-7f3a91c2';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function upstreamWith(options: HttpUpstreamOptions = {}): Promise<HttpUpstream> {
  const upstream = await HttpUpstream.start({
    ...options,
    handlers: {
      initialize: () => new RawResult(INITIALIZE_RESULT),
      'tools/list': () => new RawResult(TOOLS_RESULT),
      ...options.handlers,
    },
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

async function clientFor(
  upstream: HttpUpstream | string,
  transportOptions: Partial<HttpTransportOptions> = {},
  clientOptions: RawClientOptions = {},
): Promise<{ client: RawClient; transport: HttpClientTransport }> {
  const url = typeof upstream === 'string' ? upstream : upstream.url;
  const transport = new HttpClientTransport({ url, ...transportOptions });
  const client = new RawClient(transport, clientOptions);
  await client.start();
  cleanups.push(() => client.close());
  return { client, transport };
}

function deadline(ms = 10_000): Deadline {
  return new Deadline(ms, 'test');
}

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

describe.each([
  ['JSON answers', { answer: 'json' } as const],
  ['SSE answers', { answer: 'sse' } as const],
  ['SSE answers (CRLF, multi-line data, comments, priming event)', { answer: 'sse', sseStyle: { crlf: true, multiline: true, comments: true, prime: true } } as const],
])('HttpClientTransport with %s', (_name, mode) => {
  it('hands on results exactly as sent: key order and unknown keys kept', async () => {
    const upstream = await upstreamWith(mode);
    const { client } = await clientFor(upstream);
    const outcome = await initialize(client, { deadline: deadline() });
    expect(JSON.stringify(outcome.result)).toBe(INITIALIZE_RESULT);
    const tools = await client.request('tools/list', undefined, deadline());
    expect(JSON.stringify(tools)).toBe(TOOLS_RESULT);
  });

  it('sends the session id and the negotiated protocol version after initialize, and neither before', async () => {
    const upstream = await upstreamWith(mode);
    const { client, transport } = await clientFor(upstream, { listen: false });
    await initialize(client, { deadline: deadline(), protocolVersion: '2025-11-25' });
    await client.request('tools/list', undefined, deadline());
    const posts = upstream.requestsOf('POST');
    expect(posts.map((post) => (post.body as { method?: string }).method)).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(posts[0]!.headers['mcp-session-id']).toBeUndefined();
    expect(posts[0]!.headers['mcp-protocol-version']).toBeUndefined();
    for (const post of posts) {
      expect(post.headers.accept).toBe('application/json, text/event-stream');
      expect(post.headers['content-type']).toBe('application/json');
    }
    for (const post of posts.slice(1)) {
      expect(post.headers['mcp-session-id']).toBe(upstream.sessionId);
      // What the server answered (2025-06-18), not what was requested.
      expect(post.headers['mcp-protocol-version']).toBe('2025-06-18');
    }
    expect(transport.sessionId).toBe(upstream.sessionId);
  });
});

describe('HttpClientTransport streams', () => {
  it('delivers notifications and a server-to-client request sent on the POST stream before the answer', async () => {
    const upstream = await upstreamWith({
      answer: 'sse',
      handlers: {
        'tools/call': async (_params, exchange) => {
          exchange.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1, 'x-extra': true } });
          const answer = await exchange.request('sampling/createMessage', { messages: [], maxTokens: 5 });
          return { content: [{ type: 'text', text: JSON.stringify(answer.result) }] };
        },
      },
    });
    const notifications: ServerNotification[] = [];
    const { client } = await clientFor(
      upstream,
      { listen: false },
      {
        onNotification: (notification) => notifications.push(notification),
        onServerRequest: (request) => ({ model: 'scripted', asked: request.method }),
      },
    );
    await initialize(client, { deadline: deadline() });
    const result = await client.request('tools/call', { name: 'x', arguments: {} }, deadline());
    expect(result).toEqual({ content: [{ type: 'text', text: '{"model":"scripted","asked":"sampling/createMessage"}' }] });
    expect(notifications).toEqual([{ method: 'notifications/progress', params: { progressToken: 7, progress: 1, 'x-extra': true } }]);
    const answer = upstream.received.find((message) => message.id === 'server-request-1');
    expect(answer).toEqual({ jsonrpc: '2.0', id: 'server-request-1', result: { model: 'scripted', asked: 'sampling/createMessage' } });
  });

  it('opens the GET stream once a session exists and delivers what the server sends on it', async () => {
    const upstream = await upstreamWith();
    const notifications: ServerNotification[] = [];
    const { client, transport } = await clientFor(upstream, {}, { onNotification: (notification) => notifications.push(notification) });
    await initialize(client, { deadline: deadline() });
    expect(await pollUntil(() => upstream.openGetStreams === 1, 5_000)).toBe(true);
    const get = upstream.requestsOf('GET')[0]!;
    expect(get.headers.accept).toBe('text/event-stream');
    expect(get.headers['mcp-session-id']).toBe(upstream.sessionId);
    expect(transport.listening).toBe('open');
    upstream.pushToGetStreams({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { 'x-why': 'test' } });
    expect(await pollUntil(() => notifications.length === 1, 5_000)).toBe(true);
    expect(notifications[0]).toEqual({ method: 'notifications/tools/list_changed', params: { 'x-why': 'test' } });
  });

  it('reopens a GET stream the server ended, with the Last-Event-ID it saw', async () => {
    const upstream = await upstreamWith();
    const notifications: ServerNotification[] = [];
    const { client } = await clientFor(upstream, {}, { onNotification: (notification) => notifications.push(notification) });
    await initialize(client, { deadline: deadline() });
    expect(await pollUntil(() => upstream.openGetStreams === 1, 5_000)).toBe(true);
    upstream.pushToGetStreams({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    expect(await pollUntil(() => notifications.length === 1, 5_000)).toBe(true);
    upstream.endGetStreams();
    expect(await pollUntil(() => upstream.openGetStreams === 1, 5_000)).toBe(true);
    const gets = upstream.requestsOf('GET');
    expect(gets).toHaveLength(2);
    expect(gets[0]!.headers['last-event-id']).toBeUndefined();
    expect(gets[1]!.headers['last-event-id']).toMatch(/^\d+$/);
    upstream.pushToGetStreams({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    expect(await pollUntil(() => notifications.length === 2, 5_000)).toBe(true);
  });

  it('takes 405 on the GET stream as a server without one, not as an error', async () => {
    const upstream = await upstreamWith({ getStream: false });
    const closes: unknown[] = [];
    const { client, transport } = await clientFor(upstream, {}, { onClose: (reason) => closes.push(reason) });
    await initialize(client, { deadline: deadline() });
    expect(await pollUntil(() => transport.listening === 'unsupported', 5_000)).toBe(true);
    await client.request('tools/list', undefined, deadline());
    expect(closes).toEqual([]);
  });

  it('close() sends DELETE with the session id and calls onclose once', async () => {
    const upstream = await upstreamWith();
    const transport = new HttpClientTransport({ url: upstream.url });
    const client = new RawClient(transport);
    await client.start();
    await initialize(client, { deadline: deadline() });
    const session = upstream.sessionId;
    let closes = 0;
    transport.onclose = () => (closes += 1);
    await Promise.all([transport.close(), transport.close()]);
    await transport.close();
    const deletes = upstream.requestsOf('DELETE');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]!.headers['mcp-session-id']).toBe(session);
    expect(closes).toBe(1);
    expect(upstream.sessionId).toBeUndefined();
  });

  it('close() does not wait for a stalled POST stream or a silent GET stream', async () => {
    const upstream = await upstreamWith({ answer: 'sse', handlers: { 'tools/call': () => stall() } });
    const { client, transport } = await clientFor(upstream);
    await initialize(client, { deadline: deadline() });
    expect(await pollUntil(() => upstream.openGetStreams === 1, 5_000)).toBe(true);
    const call = caught(client.request('tools/call', { name: 'slow' }, deadline(60_000)));
    expect(await pollUntil(() => upstream.requestsOf('POST').length === 3, 5_000)).toBe(true);
    await transport.close(); // the test's own timeout is the bound: a hang fails it
    expect((await call).code).toBe('TRANSPORT_CLOSED');
    // Both streams were ended by the client, not left open.
    expect(await pollUntil(() => upstream.openGetStreams === 0, 5_000)).toBe(true);
    expect(upstream.requestsOf('DELETE')).toHaveLength(1);
  });

  it('a request whose answer stalls fails at its deadline', async () => {
    const upstream = await upstreamWith({ handlers: { 'tools/call': () => stall() } });
    for (const answer of ['json', 'sse'] as const) {
      upstream.answer = answer;
      const { client } = await clientFor(upstream, { listen: false });
      await initialize(client, { deadline: deadline() });
      const error = await caught(client.request('tools/call', { name: 'slow' }, deadline(300)));
      expect(error.code).toBe('DEADLINE');
    }
  });
});

describe('HttpClientTransport JSON bodies', () => {
  it('a JSON body may be an array of messages: each is delivered, in order', async () => {
    const upstream = await upstreamWith({
      handlers: {
        'tools/call': (_params, _exchange, message) =>
          new HttpReply(
            200,
            `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"first"}},{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"z":1,"a":2}}]`,
            { 'content-type': 'application/json; charset=utf-8' },
          ),
      },
    });
    const notifications: ServerNotification[] = [];
    const { client } = await clientFor(upstream, { listen: false }, { onNotification: (notification) => notifications.push(notification) });
    await initialize(client, { deadline: deadline() });
    const result = await client.request('tools/call', { name: 'x' }, deadline());
    expect(JSON.stringify(result)).toBe('{"z":1,"a":2}');
    expect(notifications).toEqual([{ method: 'notifications/message', params: { level: 'info', data: 'first' } }]);
  });
});

describe('HttpClientTransport bounds', () => {
  it.each(['json', 'sse'] as const)('refuses a %s answer larger than maxFrameBytes (FRAME_TOO_LARGE) and closes', async (answer) => {
    const upstream = await upstreamWith({ answer, handlers: { 'tools/call': () => ({ text: 'x'.repeat(20_000) }) } });
    const { client, transport } = await clientFor(upstream, { maxFrameBytes: 4_096, listen: false });
    await initialize(client, { deadline: deadline() });
    const error = await caught(client.request('tools/call', { name: 'big' }, deadline()));
    expect(error.code).toBe('FRAME_TOO_LARGE');
    expect(error.data.limitBytes).toBe(4_096);
    expect(transport.failure?.code).toBe('FRAME_TOO_LARGE');
  });

  it('gives the raw client each frame size, so a deep answer is refused (NESTING_TOO_DEEP)', async () => {
    const deep = `${'['.repeat(600)}${']'.repeat(600)}`;
    const upstream = await upstreamWith({ answer: 'sse', handlers: { 'tools/call': () => new RawResult(`{"deep":${deep}}`) } });
    const { client } = await clientFor(upstream, { listen: false });
    await initialize(client, { deadline: deadline() });
    const error = await caught(client.request('tools/call', { name: 'deep' }, deadline()));
    expect(error.code).toBe('NESTING_TOO_DEEP');
    const tools = await client.request('tools/list', undefined, deadline());
    expect(client.responseBytes(tools)).toBe(Buffer.byteLength(`{"jsonrpc":"2.0","id":3,"result":${TOOLS_RESULT}}`));
  });
});

describe('HttpClientTransport errors', () => {
  it('401 is AUTH_REQUIRED with the status and WWW-Authenticate, and no header value anywhere', async () => {
    const wwwAuthenticate = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"';
    const upstream = await upstreamWith({ auth: { expected: 'Bearer right', wwwAuthenticate } });
    const { client } = await clientFor(upstream, { headers: { Authorization: `Bearer ${CANARY}`, 'X-Api-Key': CANARY } });
    const error = await caught(initialize(client, { deadline: deadline() }));
    expect(error.code).toBe('AUTH_REQUIRED');
    expect(error.data).toEqual({ status: 401, wwwAuthenticate });
    expect(everyTextOf(error)).not.toContain(CANARY);
    // The headers did go out: the server saw them.
    expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(upstream.requests[0]!.headers['x-api-key']).toBe(CANARY);
  });

  it('403 is AUTH_REQUIRED too', async () => {
    const upstream = await upstreamWith({ auth: { expected: 'Bearer right', status: 403, wwwAuthenticate: 'Bearer error="insufficient_scope"' } });
    const { client } = await clientFor(upstream);
    const error = await caught(initialize(client, { deadline: deadline() }));
    expect(error.code).toBe('AUTH_REQUIRED');
    expect(error.data.status).toBe(403);
  });

  it('another status names it and the start of the body, scrubbed of header values and control characters', async () => {
    const upstream = await upstreamWith({
      handlers: {
        'tools/call': (_params, _exchange, message) =>
          new HttpReply(500, `upstream broke\u001b[2J\r\nyour key ${CANARY} and your token Bearer ${CANARY} request ${JSON.stringify(message.id)} ${'z'.repeat(400)}`),
      },
    });
    const { client } = await clientFor(upstream, { headers: { Authorization: `Bearer ${CANARY}` }, listen: false });
    await initialize(client, { deadline: deadline() });
    const error = await caught(client.request('tools/call', { name: 'x' }, deadline()));
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.message).toContain('HTTP 500');
    expect(error.message).toContain('upstream broke');
    expect(error.message).toContain('[redacted:');
    expect([...error.message].filter((char) => char.charCodeAt(0) < 0x20)).toEqual([]);
    expect(error.message.length).toBeLessThan(500);
    expect(everyTextOf(error)).not.toContain(CANARY);
  });

  it('a non-2xx whose body is a JSON-RPC error for the request is that request answer', async () => {
    const upstream = await upstreamWith({
      handlers: {
        'tools/call': (_params, _exchange, message) =>
          new HttpReply(400, JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'bad arguments' } }), {
            'content-type': 'application/json',
          }),
      },
    });
    const { client } = await clientFor(upstream, { listen: false });
    await initialize(client, { deadline: deadline() });
    const error = await caught(client.request('tools/call', { name: 'x' }, deadline()));
    expect(error.code).toBe('RPC_ERROR');
    expect(error.data.rpcCode).toBe(-32602);
    // The connection stays usable.
    await client.request('tools/list', undefined, deadline());
  });

  it('404 once a session exists is TRANSPORT_CLOSED: the server ended the session', async () => {
    const upstream = await upstreamWith();
    const closes: McpctxError[] = [];
    const { client, transport } = await clientFor(upstream, { listen: false }, { onClose: (reason) => closes.push(reason) });
    await initialize(client, { deadline: deadline() });
    upstream.endSession();
    const error = await caught(client.request('tools/list', undefined, deadline()));
    expect(error.code).toBe('TRANSPORT_CLOSED');
    expect(error.message).toContain('the server ended the session');
    expect(closes.map((reason) => reason.message)).toEqual([error.message]);
    // No DELETE for a session the server already ended.
    await transport.close();
    expect(upstream.requestsOf('DELETE')).toHaveLength(0);
  });

  it('connection refused is UNREACHABLE naming the URL without its query', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { client } = await clientFor(`http://127.0.0.1:${port}/mcp?key=${CANARY}`);
    const error = await caught(initialize(client, { deadline: deadline() }));
    expect(error.code).toBe('UNREACHABLE');
    expect(error.message).toContain(`http://127.0.0.1:${port}/mcp`);
    expect(error.data.errno).toBe('ECONNREFUSED');
    expect(everyTextOf(error)).not.toContain(CANARY);
  });

  it('header values are not readable from the transport', () => {
    const transport = new HttpClientTransport({ url: 'http://127.0.0.1:1/mcp', headers: { Authorization: `Bearer ${CANARY}` } });
    expect(inspect(transport, { depth: 10, showHidden: true })).not.toContain(CANARY);
    expect(JSON.stringify(transport)).not.toContain(CANARY);
  });

  it('credentials in the URL are refused at construction: they belong in headers', () => {
    expect(() => new HttpClientTransport({ url: `http://user:${CANARY}@127.0.0.1:1/mcp` })).toThrow(/headers/);
    try {
      new HttpClientTransport({ url: `http://user:${CANARY}@127.0.0.1:1/mcp` });
    } catch (error) {
      expect(everyTextOf(error as McpctxError)).not.toContain(CANARY);
    }
  });

  it('a header value fetch would refuse is refused at construction, naming only the header', () => {
    let error: unknown;
    try {
      new HttpClientTransport({ url: 'http://127.0.0.1:1/mcp', headers: { Authorization: `Bearer ${CANARY}\r\nX-Injected: 1` } });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(McpctxError);
    expect((error as McpctxError).code).toBe('USAGE');
    expect(everyTextOf(error as McpctxError)).not.toContain(CANARY);
  });
});
