// The gateway's client side over MCP streamable HTTP (revisions 2025-03-26, 2025-06-18,
// 2025-11-25), without the SDK: messages are parsed with JSON.parse and written with
// JSON.stringify of the relay's own objects, so key order and unknown keys pass untouched.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { McpctxError } from '../../errors/index.js';
import { DEFAULT_MAX_FRAME_BYTES, KNOWN_PROTOCOL_VERSIONS } from '../../mcp/index.js';
import { MAX_JSON_DEPTH } from '../../json/index.js';
import { type FrontConnection } from './_front.js';
import { type AddressChecks, accepts, bearerIndex, hostAllowed, isLoopbackHost, normalOrigin, originAllowed, parseHostHeader, parsePost, readBody, type ParsedPost } from './_http-checks.js';
import { type Exchange, JsonExchange, SseExchange } from './_http-exchange.js';
import { type DropCounter, HttpSession } from './_http-session.js';
import { SseStream, type SseStreamOptions } from './_sse-writer.js';
import { DEFAULT_HTTP_SESSIONS } from '../config/index.js';

export interface HttpFrontOptions {
  host: string;
  port: number;
  /** default '/mcp' */
  path?: string;
  allowRemote?: boolean;
  /** bearer token; required (USAGE error) when host is not loopback, and then only with allowRemote */
  token?: string;
  /**
   * More bearer tokens, one per agent or person (`--token-env` repeated): any of them is accepted,
   * and each is a principal of its own (FrontConnection.principal), whose sessions the others cannot use.
   */
  tokens?: readonly string[];
  /** Host header values accepted besides a loopback bind's own (`--allow-host`); on another bind, the only ones accepted when given. */
  allowHosts?: readonly string[];
  /** Origins accepted besides a loopback bind's own port (`--allow-origin`); on another bind, the only ones accepted when given. */
  allowOrigins?: readonly string[];
  /** Sessions open at once, all clients together; default 64. */
  maxSessions?: number;
  /**
   * Sessions one client (one remote address) may hold; default 16, or maxSessions on a loopback
   * bind, where every local process is the same address.
   */
  maxSessionsPerClient?: number;
  /** A session with no open stream and no request in flight that stays silent this long ends; default 5 min. */
  sessionIdleMs?: number;
  /**
   * Remote addresses of load balancers in front (`--trust-proxy`): a request from one of them is
   * counted, for the per-client limit, as coming from the last address its X-Forwarded-For names.
   * Default none: behind a balancer every client would otherwise be the balancer's one address.
   */
  trustProxies?: readonly string[];
  /**
   * At a limit, a new initialize ends its client's longest-silent session that has no stream open
   * and no request in flight, once that one has been silent this long; default min(60 s, sessionIdleMs).
   */
  reclaimIdleMs?: number;
  /** default DEFAULT_MAX_FRAME_BYTES */
  maxBodyBytes?: number;
  /** Interval of SSE keep-alive comments; default 15 s. */
  keepAliveMs?: number;
  /** How long a client may leave an SSE stream unread before its session is dropped; default 30 s. */
  stallMs?: number;
  /** Unread SSE bytes a client may leave before its session is dropped; default 2 x maxBodyBytes (at least 8 MiB). */
  maxBufferedBytes?: number;
  /** Client requests one session may have waiting for answers; default 10,000. */
  maxPendingRequests?: number;
  /** A new client session (an initialize POST without a session id). The relay sets onmessage/onclose synchronously in it. */
  onConnection: (connection: FrontConnection) => void;
}

export interface HttpFront {
  readonly url: string;
  readonly port: number;
  /** Open client sessions. */
  readonly sessions: number;
  /** Messages that could not be delivered (client gone, queue full, notification with no stream). */
  readonly droppedMessages: number;
  close(): Promise<void>;
}

const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';
const MAX_QUEUED_MESSAGES = 1000;
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
const REQUEST_BODY_TIMEOUT_MS = 30_000;
const { maxSessions: DEFAULT_MAX_SESSIONS, maxSessionsPerClient: DEFAULT_MAX_SESSIONS_PER_CLIENT, sessionIdleMs: DEFAULT_SESSION_IDLE_MS } = DEFAULT_HTTP_SESSIONS;
const MAX_RECLAIM_IDLE_MS = 60_000;
/** A POST's SSE headers wait this long for its answer, to leave with it in one write (SseStreamOptions.headersDelayMs). */
const POST_HEADERS_DELAY_MS = 20;

function sendStatus(response: ServerResponse, status: number, body?: { code: number; message: string }, headers: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  if (body === undefined) {
    response.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify({ jsonrpc: '2.0', id: null, error: body });
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
}

function checkOptions(options: HttpFrontOptions): void {
  if (!isLoopbackHost(options.host)) {
    if (options.allowRemote !== true) {
      throw new McpctxError('USAGE', `refusing to listen on ${options.host}: it is not a loopback address; pass --allow-remote with a bearer token (--token-env NAME) to accept remote clients`, { host: options.host });
    }
    if (tokensOf(options).length === 0) {
      throw new McpctxError('USAGE', `refusing to listen on ${options.host} without a bearer token; set one with --token-env NAME`, { host: options.host });
    }
  }
  if (tokensOf(options).some((token) => token === '')) {
    throw new McpctxError('USAGE', 'the bearer token is empty; set a non-empty value in the variable --token-env names');
  }
  if (new Set(tokensOf(options)).size !== tokensOf(options).length) {
    throw new McpctxError('USAGE', 'two --token-env variables hold the same token: give each agent its own, or one token for all');
  }
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw new McpctxError('USAGE', `the HTTP path must start with "/" (got ${JSON.stringify(path)})`);
  for (const host of options.allowHosts ?? []) {
    if (parseHostHeader(host) === undefined) throw new McpctxError('USAGE', `--allow-host wants a host as clients send it in Host (NAME or NAME:PORT), got ${JSON.stringify(host)}`);
  }
  for (const origin of options.allowOrigins ?? []) {
    if (normalOrigin(origin) === undefined) throw new McpctxError('USAGE', `--allow-origin wants an origin (http[s]://HOST[:PORT], no path), got ${JSON.stringify(origin)}`);
  }
  for (const [name, value] of [['maxSessions', options.maxSessions], ['maxSessionsPerClient', options.maxSessionsPerClient], ['sessionIdleMs', options.sessionIdleMs]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) throw new McpctxError('USAGE', `${name} must be a positive integer (got ${value})`);
  }
}

/**
 * The client a request comes from, for the per-client limit: its remote address, IPv4-mapped IPv6
 * unwrapped; from a trusted proxy, the address the proxy appended last to X-Forwarded-For (the one
 * it saw: earlier entries are whatever the client claimed).
 */
function clientOf(request: IncomingMessage, trustProxies: ReadonlySet<string>): string {
  const address = unwrapMapped(request.socket.remoteAddress ?? 'unknown');
  if (!trustProxies.has(address)) return address;
  const header = request.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const last = forwarded[forwarded.length - 1];
  return last === undefined || last.length > 64 ? address : unwrapMapped(last);
}

function unwrapMapped(address: string): string {
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const where = `${hostForUrl(host)}:${port}`;
      const why = error.code === 'EADDRINUSE'
        ? 'the port is in use; stop what uses it or pick another port'
        : error.code === 'EACCES'
          ? 'permission denied; pick a port above 1023'
          : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
            ? 'no such address on this machine'
            : error.message;
      reject(new McpctxError('LISTEN_FAILED', `cannot listen on ${where}: ${why}`, { host, port, errno: error.code }, { cause: error }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export async function startHttpFront(options: HttpFrontOptions): Promise<HttpFront> {
  checkOptions(options);
  const path = options.path ?? '/mcp';
  const loopbackBind = isLoopbackHost(options.host);
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxSessionsPerClient = options.maxSessionsPerClient ?? (loopbackBind ? maxSessions : DEFAULT_MAX_SESSIONS_PER_CLIENT);
  for (const proxy of options.trustProxies ?? []) {
    if (isIP(proxy) === 0) throw new McpctxError('USAGE', `--trust-proxy takes the IP address of a load balancer in front of the gateway (like 10.0.0.5 or ::1), not ${JSON.stringify(proxy)}`, { host: proxy });
  }
  const trustProxies = new Set((options.trustProxies ?? []).map(unwrapMapped));
  const sessionIdleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const reclaimIdleMs = options.reclaimIdleMs ?? Math.min(MAX_RECLAIM_IDLE_MS, sessionIdleMs);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const maxPendingRequests = options.maxPendingRequests ?? 10_000;
  const limits = { sessionIdleMs, maxQueuedMessages: MAX_QUEUED_MESSAGES, maxQueuedBytes: MAX_QUEUED_BYTES };
  const streamLimits = {
    keepAliveMs: options.keepAliveMs ?? 15_000,
    stallMs: options.stallMs ?? 30_000,
    maxBufferedBytes: options.maxBufferedBytes ?? Math.max(2 * maxBodyBytes, MAX_QUEUED_BYTES),
  };
  const sessions = new Map<string, HttpSession>();
  const drops: DropCounter = { dropped: 0 };
  let closing = false;
  // Known once listening (port 0 picks the port); no request is handled before.
  let addressChecks: AddressChecks = { loopbackBind, port: options.port, allowHosts: [], allowOrigins: [] };

  const openStream = (response: ServerResponse, session: HttpSession, headers: Record<string, string>, onGone: () => void, headersDelayMs?: number): SseStream => {
    const streamOptions: SseStreamOptions = {
      ...streamLimits,
      ...(headersDelayMs === undefined ? {} : { headersDelayMs }),
      onGone: (reason, stalled) => {
        onGone();
        if (stalled) void session.close(`dropped: ${reason}`);
      },
    };
    return new SseStream(response, headers, streamOptions);
  };

  /** The session a non-initialize request names: undefined after answering 400/404 itself. */
  const sessionOf = (request: IncomingMessage, response: ServerResponse): HttpSession | undefined => {
    const id = request.headers[SESSION_HEADER];
    if (typeof id !== 'string' || id === '') {
      sendStatus(response, 400, { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required; start a session with an initialize request' });
      return undefined;
    }
    const session = sessions.get(id);
    // A session opened with one token is not another token's: to it, the session does not exist.
    if (session === undefined || session.isClosed || session.principal !== principalOf(request)) {
      sendStatus(response, 404, { code: -32001, message: 'Session not found: it ended or never existed; start a new session with an initialize request' });
      return undefined;
    }
    session.touch();
    return session;
  };

  const handlePost = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const contentType = request.headers['content-type'];
    if (contentType !== undefined && !accepts(contentType, 'application/json')) {
      request.resume();
      sendStatus(response, 415, { code: -32000, message: 'Unsupported Media Type: the body must be application/json' });
      return;
    }
    const body = await readBody(request, maxBodyBytes);
    if (!body.ok) {
      sendStatus(response, body.status, { code: body.status === 413 ? -32600 : -32700, message: body.reason }, body.status === 413 ? { connection: 'close' } : {});
      return;
    }
    const parsed = parsePost(body.text, MAX_JSON_DEPTH);
    if (!parsed.ok) {
      sendStatus(response, 400, { code: parsed.code, message: parsed.reason });
      return;
    }
    const post = parsed.post;
    let session: HttpSession | undefined;
    if (post.initialize) {
      if (request.headers[SESSION_HEADER] !== undefined) {
        sendStatus(response, 400, { code: -32600, message: 'Bad Request: initialize starts a new session; send it without Mcp-Session-Id' });
        return;
      }
      const client = clientOf(request, trustProxies);
      const full = roomFor(client);
      if (full !== undefined) {
        sendStatus(response, 503, { code: -32000, message: `Service Unavailable: ${full}; end a session (DELETE), or wait: a session with no stream open ends after ${sessionIdleMs} ms of silence` }, { 'retry-after': '5' });
        return;
      }
      session = newSession(client, principalOf(request));
      session.endIfRefused(post.requestIds[0] ?? null);
    } else {
      session = sessionOf(request, response);
      if (session === undefined) return;
      if (session.awaitsAny(post.requestIds)) {
        sendStatus(response, 400, { code: -32600, message: 'Invalid Request: a request with this id is still in flight in this session; use a new id' });
        return;
      }
      if (session.pendingCount + post.requestIds.length > maxPendingRequests) {
        sendStatus(response, 429, { code: -32000, message: `Too Many Requests: this session has ${session.pendingCount} requests in flight; the limit is ${maxPendingRequests}; wait for answers first` });
        return;
      }
    }
    dispatch(request, response, session, post);
  };

  const dispatch = (request: IncomingMessage, response: ServerResponse, session: HttpSession, post: ParsedPost): void => {
    if (post.requestIds.length === 0) {
      response.writeHead(202).end();
      session.receive(post.messages);
      return;
    }
    const headers: Record<string, string> = post.initialize ? { [SESSION_HEADER]: session.id } : {};
    let exchange: Exchange;
    const done = (): void => session.settled(post.requestIds, exchange);
    if (accepts(request.headers.accept, 'text/event-stream')) {
      const stream = openStream(response, session, headers, () => session.settled(post.requestIds, exchange), POST_HEADERS_DELAY_MS);
      exchange = new SseExchange(stream, post.requestIds, done);
    } else {
      exchange = new JsonExchange(response, post.requestIds, post.batch, headers, done);
    }
    session.expect(post.requestIds, exchange);
    session.receive(post.messages);
  };

  /**
   * Makes room for one more session of `client`, or says which limit is full. At a limit, the
   * client's own longest-silent abandoned session (no stream, nothing in flight, silent for
   * reclaimIdleMs) ends: a client that forgot its sessions is not locked out by them, and no
   * client can end another's session (on loopback every local process is one client, but none
   * can end a session that has a stream open or was used in the last reclaimIdleMs).
   */
  const roomFor = (client: string): string | undefined => {
    const own = [...sessions.values()].filter((session) => session.client === client);
    const full = own.length >= maxSessionsPerClient
      ? `this client (${client}) holds its limit of ${maxSessionsPerClient} sessions`
      : sessions.size >= maxSessions
        ? `the gateway holds its limit of ${maxSessions} sessions`
        : undefined;
    if (full === undefined) return undefined;
    const oldest = own
      .filter((session) => session.abandoned && session.idleMs >= reclaimIdleMs)
      .reduce<HttpSession | undefined>((found, session) => (found === undefined || session.idleMs > found.idleMs ? session : found), undefined);
    if (oldest === undefined) return full;
    void oldest.close(`ended to make room for a new session of the same client: no stream open and silent for ${Math.round(oldest.idleMs)} ms`);
    return undefined;
  };

  // A client proves which token it holds; that token's hash (never the token) names the principal.
  const tokens = tokensOf(options);
  const principals = tokens.map((token) => `bearer:${createHash('sha256').update(token).digest('hex').slice(0, 32)}`);
  const principalOf = (request: IncomingMessage): string | undefined => principals[bearerIndex(request.headers.authorization, tokens)];
  // A session is announced to the relay with its initialize request, so it can answer it.
  const newSession = (client: string, principal: string | undefined): HttpSession => {
    const session = new HttpSession(randomBytes(24).toString('base64url'), client, principal, limits, drops, (ended) => sessions.delete(ended.id));
    sessions.set(session.id, session);
    options.onConnection(session);
    return session;
  };

  const handleGet = (request: IncomingMessage, response: ServerResponse): void => {
    if (!accepts(request.headers.accept, 'text/event-stream')) {
      sendStatus(response, 406, { code: -32000, message: 'Not Acceptable: a GET must accept text/event-stream' });
      return;
    }
    const session = sessionOf(request, response);
    if (session === undefined) return;
    if (session.hasGetStream) {
      sendStatus(response, 409, { code: -32000, message: 'Conflict: this session already has a GET stream open; close it first' });
      return;
    }
    const stream: SseStream = openStream(response, session, {}, () => session.detachGetStream(stream));
    session.attachGetStream(stream);
  };

  const handleDelete = (request: IncomingMessage, response: ServerResponse): void => {
    const session = sessionOf(request, response);
    if (session === undefined) return;
    void session.close('the client ended the session');
    response.writeHead(204).end();
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    if (url.pathname !== path) {
      request.resume();
      sendStatus(response, 404, { code: -32000, message: `Not Found: the MCP endpoint is ${path}` });
      return;
    }
    if (!hostAllowed(request.headers.host, addressChecks)) {
      request.resume();
      const expected = loopbackBind ? `localhost:${addressChecks.port}, 127.0.0.1:${addressChecks.port} or [::1]:${addressChecks.port}` : addressChecks.allowHosts.join(', ');
      sendStatus(response, 403, { code: -32000, message: `Forbidden: the Host header ${JSON.stringify(request.headers.host ?? '')} does not name this gateway (${expected}); a name that only resolves here (DNS rebinding) is refused; add it with --allow-host if it is yours` });
      return;
    }
    if (!originAllowed(request.headers.origin, addressChecks)) {
      request.resume();
      const expected = loopbackBind ? `a loopback origin on port ${addressChecks.port}` : 'an origin given with --allow-origin';
      sendStatus(response, 403, { code: -32000, message: `Forbidden: the Origin ${JSON.stringify(request.headers.origin ?? '')} may not use this gateway (it accepts ${expected}); add it with --allow-origin if it is yours` });
      return;
    }
    if (tokens.length > 0 && bearerIndex(request.headers.authorization, tokens) === -1) {
      request.resume();
      sendStatus(response, 401, { code: -32000, message: 'Unauthorized: send Authorization: Bearer <token>' }, { 'www-authenticate': 'Bearer' });
      return;
    }
    const version = request.headers[VERSION_HEADER];
    if (typeof version === 'string' && !KNOWN_PROTOCOL_VERSIONS.includes(version)) {
      request.resume();
      sendStatus(response, 400, { code: -32000, message: `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)}; supported: ${KNOWN_PROTOCOL_VERSIONS.join(', ')}` });
      return;
    }
    if (closing) {
      request.resume();
      sendStatus(response, 503, { code: -32000, message: 'Service Unavailable: the gateway is shutting down' }, { connection: 'close' });
      return;
    }
    switch (request.method) {
      case 'POST':
        return handlePost(request, response);
      case 'GET':
        return handleGet(request, response);
      case 'DELETE':
        return handleDelete(request, response);
      default:
        request.resume();
        sendStatus(response, 405, { code: -32000, message: 'Method Not Allowed: use POST, GET or DELETE' }, { allow: 'POST, GET, DELETE' });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => sendStatus(response, 500, { code: -32603, message: 'Internal error in the gateway' }));
  });
  server.requestTimeout = REQUEST_BODY_TIMEOUT_MS;
  await listen(server, options.host, options.port);
  const port = (server.address() as AddressInfo).port;
  addressChecks = {
    loopbackBind,
    port,
    allowHosts: (options.allowHosts ?? []).map((host) => host.toLowerCase()),
    allowOrigins: (options.allowOrigins ?? []).flatMap((origin) => normalOrigin(origin) ?? []),
  };

  return {
    url: `http://${hostForUrl(options.host)}:${port}${path}`,
    port,
    get sessions() {
      return sessions.size;
    },
    get droppedMessages() {
      return drops.dropped;
    },
    async close() {
      if (closing) return;
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...sessions.values()].map((session) => session.close('the gateway is shutting down')));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The bearer tokens a front accepts: `token` and `tokens` together. */
function tokensOf(options: HttpFrontOptions): string[] {
  return [...(options.token === undefined ? [] : [options.token]), ...(options.tokens ?? [])];
}
