// A scripted MCP server over streamable HTTP, in raw node:http (no SDK, so nothing reorders or
// drops keys): JSON or SSE answers, session ids, the GET stream, server-to-client requests on a
// POST's stream, error statuses, stalls. It records every request it receives, headers included.
// Loopback only, port 0. Used by the transport tests and the gateway tests.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type JsonObject = Record<string, unknown>;

export interface RecordedRequest {
  /** HTTP method: POST, GET or DELETE. */
  method: string;
  path: string;
  /** Header names in lower case, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body of a POST (undefined when it had none or it was not JSON). */
  body: unknown;
  /** The body as received, byte for byte (as UTF-8 text). */
  text: string;
}

/** How POSTs carrying a request are answered. */
export type AnswerMode = 'json' | 'sse';

/** Ways to write an SSE event, to exercise a client's parser. */
export interface SseStyle {
  /** Lines end with CRLF instead of LF. */
  crlf?: boolean;
  /** The JSON is pretty-printed and sent as one `data:` line per line. */
  multiline?: boolean;
  /** A `: keep-alive` comment before each event. */
  comments?: boolean;
  /** Each stream starts with an event that has an id and empty data (2025-11-25 priming). */
  prime?: boolean;
}

export interface UpstreamExchange {
  /** Sends a message on this POST's event stream before the answer (SSE mode only). */
  send(message: JsonObject): void;
  /** Sends a server-to-client request on this POST's stream; resolves with the client's answer (the whole message). */
  request(method: string, params?: JsonObject): Promise<JsonObject>;
}

/** What a handler returns: the `result` of the answer, or an HttpReply written as is. */
export type UpstreamHandler = (params: JsonObject | undefined, exchange: UpstreamExchange, message: JsonObject) => unknown;

/** A raw HTTP answer (status, body, headers) instead of a JSON-RPC result. */
export class HttpReply {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** An answer the client must take as is: the exact text of the JSON-RPC response's `result`. */
export class RawResult {
  constructor(readonly json: string) {}
}

/** A handler that never answers. */
export function stall(): Promise<never> {
  return new Promise<never>(() => {});
}

export interface HttpUpstreamOptions {
  answer?: AnswerMode;
  sseStyle?: SseStyle;
  /** Assign a session id at initialize (default true). */
  sessions?: boolean;
  /** Serve the GET stream (default true); false answers GET with 405. */
  getStream?: boolean;
  /** Refuse every request whose Authorization header is not exactly `expected`. */
  auth?: { expected: string; status?: 401 | 403; wwwAuthenticate: string };
  /** Handlers by method; `initialize` and `ping` have defaults. */
  handlers?: Record<string, UpstreamHandler>;
  /** Answers a request itself (a redirect, say) when it returns true; the request is recorded either way. */
  intercept?: (request: IncomingMessage, response: ServerResponse) => boolean;
}

export class HttpUpstream {
  readonly requests: RecordedRequest[] = [];
  /** Notifications and answers the client POSTed, in order. */
  readonly received: JsonObject[] = [];
  answer: AnswerMode;
  sseStyle: SseStyle;
  readonly handlers: Record<string, UpstreamHandler>;
  private readonly options: HttpUpstreamOptions;
  private server!: Server;
  private session: string | undefined;
  private sessionCount = 0;
  private serverRequestCount = 0;
  private eventCount = 0;
  private readonly getStreams = new Set<ServerResponse>();
  private readonly waitingAnswers = new Map<string, (message: JsonObject) => void>();
  url = '';

  private constructor(options: HttpUpstreamOptions) {
    this.options = options;
    this.answer = options.answer ?? 'json';
    this.sseStyle = options.sseStyle ?? {};
    this.handlers = {
      initialize: (params) => ({
        protocolVersion: params?.protocolVersion ?? '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'http-upstream', version: '1.0.0' },
      }),
      ping: () => ({}),
      ...options.handlers,
    };
  }

  static async start(options: HttpUpstreamOptions = {}): Promise<HttpUpstream> {
    const upstream = new HttpUpstream(options);
    upstream.server = createServer((request, response) => {
      void upstream.handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500).end('upstream handler failed');
        else response.end();
      });
    });
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.server.address() as AddressInfo;
    upstream.url = `http://127.0.0.1:${port}/mcp`;
    return upstream;
  }

  /** The session id now valid, if any. */
  get sessionId(): string | undefined {
    return this.session;
  }

  get openGetStreams(): number {
    return this.getStreams.size;
  }

  /** Requests recorded with this HTTP method. */
  requestsOf(method: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  /** Writes a message to every open GET stream; returns how many. */
  pushToGetStreams(message: JsonObject): number {
    for (const stream of this.getStreams) this.writeEvent(stream, message);
    return this.getStreams.size;
  }

  /** Ends every open GET stream cleanly (as a server or a proxy with an idle timeout does). */
  endGetStreams(): void {
    for (const stream of this.getStreams) stream.end();
    this.getStreams.clear();
  }

  /** Forgets the session: later requests that carry it are answered 404. */
  endSession(): void {
    this.session = undefined;
  }

  async close(): Promise<void> {
    for (const stream of this.getStreams) stream.destroy();
    this.getStreams.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readAll(request);
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    this.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, text });
    if (this.options.intercept?.(request, response)) return;

    const auth = this.options.auth;
    if (auth && request.headers.authorization !== auth.expected) {
      response.writeHead(auth.status ?? 401, { 'www-authenticate': auth.wwwAuthenticate, 'content-type': 'text/plain' });
      response.end('unauthorized');
      return;
    }
    const isInitialize = isObject(body) && body.method === 'initialize';
    if (!isInitialize && this.options.sessions !== false && this.sessionCount > 0) {
      const sent = request.headers['mcp-session-id'];
      if (sent === undefined) return void response.writeHead(400).end('missing Mcp-Session-Id');
      if (sent !== this.session) return void response.writeHead(404).end('unknown session');
    }
    if (request.method === 'DELETE') {
      this.session = undefined;
      response.writeHead(200).end();
      return;
    }
    if (request.method === 'GET') {
      if (this.options.getStream === false) return void response.writeHead(405, { allow: 'POST, DELETE' }).end();
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(': stream open\n\n');
      this.getStreams.add(response);
      response.on('close', () => this.getStreams.delete(response));
      return;
    }
    if (request.method !== 'POST' || !isObject(body)) return void response.writeHead(400).end('expected a POST of one JSON-RPC message');
    if (typeof body.method !== 'string' || !('id' in body)) {
      // A notification or an answer to one of our requests.
      this.received.push(body);
      if (typeof body.id === 'string') this.waitingAnswers.get(body.id)?.(body);
      response.writeHead(202).end();
      return;
    }
    await this.answerRequest(body, response, isInitialize);
  }

  private async answerRequest(message: JsonObject, response: ServerResponse, isInitialize: boolean): Promise<void> {
    const sessionHeader: Record<string, string> = {};
    if (isInitialize && this.options.sessions !== false) {
      this.sessionCount += 1;
      this.session = `session-${this.sessionCount}-${process.pid}`;
      sessionHeader['mcp-session-id'] = this.session;
    }
    const sse = this.answer === 'sse';
    if (sse) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...sessionHeader });
      if (this.sseStyle.prime) {
        this.eventCount += 1;
        response.write(`id: ${this.eventCount}\ndata:\n\n`);
      } else {
        response.flushHeaders();
      }
    }
    const exchange: UpstreamExchange = {
      send: (event) => {
        if (!sse) throw new Error('exchange.send needs SSE answers');
        this.writeEvent(response, event);
      },
      request: (method, params) => {
        if (!sse) throw new Error('exchange.request needs SSE answers');
        this.serverRequestCount += 1;
        const id = `server-request-${this.serverRequestCount}`;
        const answered = new Promise<JsonObject>((resolve) => this.waitingAnswers.set(id, resolve));
        this.writeEvent(response, { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
        return answered;
      },
    };
    const handler = this.handlers[message.method as string];
    let reply: string;
    if (!handler) {
      reply = JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${String(message.method)}` } });
    } else {
      const outcome = await handler(isObject(message.params) ? message.params : undefined, exchange, message);
      if (outcome instanceof HttpReply) {
        if (sse) throw new Error('an HttpReply needs JSON answers');
        response.writeHead(outcome.status, { ...outcome.headers, ...sessionHeader }).end(outcome.body);
        return;
      }
      const resultText = outcome instanceof RawResult ? outcome.json : JSON.stringify(outcome ?? {});
      reply = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${resultText}}`;
    }
    if (sse) {
      this.writeEventText(response, reply);
      response.end();
    } else {
      response.writeHead(200, { 'content-type': 'application/json', ...sessionHeader }).end(reply);
    }
  }

  private writeEvent(response: ServerResponse, message: JsonObject): void {
    this.writeEventText(response, this.sseStyle.multiline ? JSON.stringify(message, null, 1) : JSON.stringify(message));
  }

  private writeEventText(response: ServerResponse, json: string): void {
    const end = this.sseStyle.crlf ? '\r\n' : '\n';
    const text = this.sseStyle.multiline ? JSON.stringify(JSON.parse(json), null, 1) : json;
    this.eventCount += 1;
    const comment = this.sseStyle.comments ? `: keep-alive${end}` : '';
    const data = text
      .split('\n')
      .map((line) => `data: ${line}${end}`)
      .join('');
    response.write(`${comment}event: message${end}id: ${this.eventCount}${end}${data}${end}`);
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readAll(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
