// The SDK v2 tools server of test/servers/sdk-tools-server.mjs served over loopback HTTP, in
// process: over streamable HTTP (the SDK's web-standard transport bridged onto node:http, one
// McpServer per session) and over the older HTTP+SSE transport (hand-written in node:http: a GET
// stream whose first event names the POST endpoint, answers as `message` events on the stream).
// Both record the headers of every request. Port 0, 127.0.0.1 only.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
// @ts-expect-error -- a plain .mjs test server without type declarations
import { createToolsServer } from '../servers/sdk-tools-server.mjs';

interface ToolsServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

const newToolsServer = createToolsServer as () => ToolsServer;

export interface LoopbackServer {
  url: string;
  /** Headers of every request, in order. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

export interface StreamableServer extends LoopbackServer {
  /** Session ids ended by a DELETE. */
  closedSessions: string[];
}

async function listen(server: Server, path: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}${path}`;
}

async function shut(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What an `authorize` hook sends instead of letting the request through to the MCP server. */
export interface GateReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface StreamableOptions {
  enableJsonResponse?: boolean;
  /**
   * Sees every request (with its whole body) before the MCP transport does; a reply it returns is
   * sent instead (a 401/403 refusal, or a document such as protected resource metadata), undefined
   * lets the request through.
   */
  authorize?: (request: IncomingMessage, body: Buffer) => Promise<GateReply | undefined>;
}

/** The tools server over streamable HTTP: a new McpServer and transport for each initialize. */
export async function startStreamableToolsServer(options: StreamableOptions = {}): Promise<StreamableServer> {
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: ToolsServer }>();
  const closedSessions: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const http = createServer((request, response) => {
    void (async () => {
      headers.push(request.headers);
      const body = await readAll(request);
      const refusal = await options.authorize?.(request, body);
      if (refusal !== undefined) return void response.writeHead(refusal.status, refusal.headers).end(refusal.body);
      const sessionId = request.headers['mcp-session-id'];
      let session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (session === undefined && sessionId === undefined && request.method === 'POST') {
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.enableJsonResponse ?? false,
          onsessioninitialized: (id) => {
            if (session) sessions.set(id, session);
          },
          onsessionclosed: (id) => {
            closedSessions.push(id);
            const ended = sessions.get(id);
            sessions.delete(id);
            void ended?.server.close();
          },
        });
        const server = newToolsServer();
        await server.connect(transport);
        session = { transport, server };
      }
      if (session === undefined) return void response.writeHead(404).end('unknown session');
      const method = request.method ?? 'GET';
      const requestHeaders = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') requestHeaders.set(name, value);
      const answer = await session.transport.handleRequest(
        new Request(`http://${request.headers.host}${request.url}`, { method, headers: requestHeaders, body: method === 'POST' ? body : undefined }),
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
  const url = await listen(http, '/mcp');
  return {
    url,
    headers,
    closedSessions,
    close: async () => {
      for (const { server } of sessions.values()) await server.close();
      await shut(http);
    },
  };
}

/** The server side of one HTTP+SSE session: what the McpServer sends is written as a `message` event on the GET stream. */
class SseSessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly stream: ServerResponse) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    this.stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    this.stream.end();
    this.onclose?.();
  }
}

export interface LegacySseOptions {
  /** The endpoint event's data for a session; default `/messages?sessionId=<id>`. */
  endpoint?: (sessionId: string) => string;
  /** Answers a request (its path and query) with a redirect instead when this gives [status, Location]. */
  redirect?: (pathAndQuery: string) => readonly [number, string] | undefined;
}

/**
 * The tools server over the older HTTP+SSE transport: GET /sse opens the stream and names
 * /messages?sessionId=... in its first event; POSTs there are answered 202 and their answers go
 * out on the stream. A POST to /sse (a streamable-HTTP client's first try) is answered 405.
 */
export async function startLegacySseToolsServer(options: LegacySseOptions = {}): Promise<LoopbackServer & { posts: number }> {
  const sessions = new Map<string, { transport: SseSessionTransport; server: ToolsServer }>();
  const headers: IncomingHttpHeaders[] = [];
  const state = { posts: 0 };
  const http = createServer((request, response) => {
    void (async () => {
      headers.push(request.headers);
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const body = await readAll(request);
      const redirect = options.redirect?.(request.url ?? '/');
      if (redirect !== undefined) return void response.writeHead(redirect[0], { location: redirect[1] }).end();
      if (url.pathname === '/sse' && request.method === 'GET') {
        const sessionId = randomUUID();
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const transport = new SseSessionTransport(response);
        const server = newToolsServer();
        sessions.set(sessionId, { transport, server });
        response.on('close', () => {
          sessions.delete(sessionId);
          void server.close();
        });
        await server.connect(transport);
        response.write(`event: endpoint\ndata: ${options.endpoint?.(sessionId) ?? `/messages?sessionId=${sessionId}`}\n\n`);
        return;
      }
      if (url.pathname === '/messages' && request.method === 'POST') {
        state.posts += 1;
        const session = sessions.get(url.searchParams.get('sessionId') ?? '');
        if (!session) return void response.writeHead(404).end('unknown session');
        response.writeHead(202).end('Accepted');
        session.transport.onmessage?.(JSON.parse(body.toString('utf8')) as JSONRPCMessage);
        return;
      }
      response.writeHead(url.pathname === '/sse' ? 405 : 404, { allow: 'GET' }).end();
    })().catch(() => response.destroy());
  });
  const url = await listen(http, '/sse');
  return {
    url,
    headers,
    get posts() {
      return state.posts;
    },
    close: async () => {
      for (const { server } of sessions.values()) await server.close();
      await shut(http);
    },
  };
}

/** A server that answers every request with `handle`; for stalls and refusals written by hand. */
export async function startRawServer(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<LoopbackServer> {
  const headers: IncomingHttpHeaders[] = [];
  const http = createServer((request, response) => {
    headers.push(request.headers);
    request.resume();
    handle(request, response);
  });
  const url = await listen(http, '/mcp');
  return { url, headers, close: () => shut(http) };
}
