import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpctxError } from '../errors/index.js';
import { jsonText } from '../tokens/index.js';
import { Deadline } from './_deadline.js';
import { DEFAULT_MAX_FRAME_BYTES } from './_frames.js';
import { describeBody, mediaType, readBodyStart, readBoundedBody, readEvents } from './_http-body.js';
import { bearerBesides, sendAuthorized, type BearerSource } from './_bearer.js';
import { authRequiredError, unreachableError } from './_http-errors.js';
import { checkHeaders, isHeaderSafe, parseUrl, secretsOf } from './_http-options.js';
import type { JsonObject } from '../json/index.js';
import { decodeUtf8, describeMessage, isJsonRpcObject, isResponseTo, isRpcId, type RpcId } from './_jsonrpc-message.js';
import { Redactor } from './_redact.js';
import { fetchOnOrigin } from './_redirects.js';
import type { BoundedTransport } from './_stdio-transport.js';

export interface HttpTransportOptions {
  url: string;
  /** Resolved header values (e.g. Authorization); never written to any error, log or property. */
  headers?: Readonly<Record<string, string>>;
  /** Where the Authorization value comes from (a stored OAuth login); not with an Authorization header. */
  bearer?: BearerSource;
  /** Largest JSON body or SSE event accepted; default DEFAULT_MAX_FRAME_BYTES. */
  maxFrameBytes?: number;
  /** Open the GET stream for server-initiated messages once a session exists; default true (405 = server has none: fine). */
  listen?: boolean;
  /** Budget of a POST made through the SDK's `send()`, which carries no deadline. Default 30,000 ms. */
  sendTimeoutMs?: number;
}

/** How the GET stream for server-initiated messages fares. */
export type ListenState = 'off' | 'opening' | 'open' | 'unsupported' | 'retrying' | 'given-up' | 'closed';

/** DELETE of the session at close: best effort, never longer than this. */
const CLOSE_BUDGET_MS = 2_000;
/** How long the GET stream may take to answer with its headers. */
const LISTEN_OPEN_MS = 10_000;
/** GET streams opened in a row that each ended without an event before listening stops. */
const MAX_LISTEN_ATTEMPTS = 3;
const LISTEN_RETRY_MS = 1_000;
/** How much of an error body is read to describe it (or find a JSON-RPC error in it). */
const ERROR_BODY_READ_BYTES = 64 * 1024;
const MAX_SESSION_ID_CHARS = 1_024;

interface Exchange {
  response: Response;
  signal: AbortSignal;
  /** Stops the exchange: its deadline timer, and its stream if still open. */
  end: () => void;
}

/**
 * The client side of MCP's streamable HTTP transport, for servers we do not trust: every message
 * is handed on exactly as `JSON.parse` read it (key order and unknown keys kept), every JSON body
 * and SSE event is bounded before it is parsed, every POST is under its caller's deadline, and
 * `close()` ends every open stream. Header values (credentials) are private and scrubbed from
 * every error. It implements the SDK's `Transport`, so the raw client and the SDK client both run over it.
 */
export class HttpClientTransport implements Transport, BoundedTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;

  // Private: they hold credentials, which must never leave the process.
  readonly #url: URL;
  readonly #headers: ReadonlyArray<readonly [string, string]>;
  readonly #redactor: Redactor;
  readonly #bearer: BearerSource | undefined;
  /** The URL without credentials, query or fragment: what messages name. */
  readonly endpoint: string;
  private readonly maxFrameBytes: number;
  private readonly listen: boolean;
  private readonly sendTimeoutMs: number;
  private session: string | undefined;
  private sessionEnded = false;
  private protocolVersion: string | undefined;
  private readonly initializeIds = new Set<RpcId>();
  private readonly frameBytes = new WeakMap<object, number>();
  private readonly controllers = new Set<AbortController>();
  private started = false;
  private closing: Promise<void> | undefined;
  private closedNotified = false;
  private fatalError: McpctxError | undefined;
  private listenState: ListenState = 'off';

  constructor(options: HttpTransportOptions) {
    this.#url = parseUrl(options.url);
    this.endpoint = `${this.#url.origin}${this.#url.pathname}`;
    this.#headers = checkHeaders(options.headers ?? {});
    this.#redactor = new Redactor(secretsOf(this.#headers, this.#url));
    this.#bearer = bearerBesides(options.bearer, this.#headers);
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.listen = options.listen ?? true;
    this.sendTimeoutMs = options.sendTimeoutMs ?? 30_000;
  }

  /** The session the server assigned in its answer to `initialize`, if it assigned one. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** The protocol version sent in `MCP-Protocol-Version`: the one the `initialize` result named. */
  get negotiatedProtocolVersion(): string | undefined {
    return this.protocolVersion;
  }

  /** How the GET stream for server-initiated messages fares. */
  get listening(): ListenState {
    return this.listenState;
  }

  /** The error (framing, size) that ended the connection, if one did. */
  get failure(): McpctxError | undefined {
    return this.fatalError;
  }

  frameBytesOf(message: object): number | undefined {
    return this.frameBytes.get(message);
  }

  /** The SDK client calls this after its own handshake. */
  setProtocolVersion(version: string): void {
    if (isHeaderSafe(version, 64)) this.protocolVersion = version;
  }

  // Nothing to connect: HTTP has no connection before the first POST.
  async start(): Promise<void> {
    if (this.started) throw new McpctxError('USAGE', 'transport already started');
    this.started = true;
  }

  /** The SDK's `Transport.send`: a POST bounded by `sendTimeoutMs` (the SDK passes no deadline). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.sendWithin(message, new Deadline(this.sendTimeoutMs, 'a message to the server'));
  }

  /**
   * POSTs one message; resolves once the server accepted it (202, or the response headers of a
   * JSON/SSE answer arrived); answers are delivered through onmessage as they come, under the
   * same deadline.
   */
  async sendWithin(message: JSONRPCMessage, deadline: Deadline): Promise<void> {
    this.checkOpen();
    const body = jsonText(message, 'the message to send');
    if (body === undefined) throw new McpctxError('INVALID_ARGUMENT', 'cannot send a message with no JSON form');
    const sent = message as unknown as JsonObject;
    const what = describeMessage(sent);
    const requestId = typeof sent.method === 'string' && isRpcId(sent.id) ? sent.id : undefined;
    const isInitialize = sent.method === 'initialize' && requestId !== undefined;
    if (isInitialize) this.initializeIds.add(requestId);
    const exchange = await this.exchange('POST', body, deadline, what, true);
    try {
      if (exchange.response.ok && isInitialize) this.adoptSession(exchange.response);
      await this.acceptPostAnswer(exchange, what, requestId);
    } catch (error) {
      exchange.end();
      if (isInitialize) this.initializeIds.delete(requestId);
      throw error;
    }
    if (sent.method === 'notifications/initialized' && this.listen && this.session !== undefined) this.startListening();
  }

  /** DELETE the session (bounded, ~2 s), abort open streams, then onclose once. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const closed = new McpctxError('TRANSPORT_CLOSED', 'the transport was closed', {});
    // First every stream, so a stalled one cannot hold the close up.
    for (const controller of [...this.controllers]) controller.abort(closed);
    this.listenState = this.listenState === 'off' ? 'off' : 'closed';
    if (this.started && this.session !== undefined && !this.sessionEnded) {
      try {
        const exchange = await this.exchange('DELETE', undefined, new Deadline(CLOSE_BUDGET_MS, 'ending the session'), 'DELETE', true);
        await exchange.response.body?.cancel().catch(() => {});
        exchange.end();
      } catch {
        // Best effort: a server that is gone or slow has ended the session its own way.
      }
    }
    this.notifyClosed();
  }

  private async acceptPostAnswer(exchange: Exchange, what: string, requestId: RpcId | undefined): Promise<void> {
    const { response } = exchange;
    const status = response.status;
    if (status === 401 || status === 403) {
      await response.body?.cancel().catch(() => {});
      throw authRequiredError(this.endpoint, what, response, this.#redactor, this.#bearer?.advice());
    }
    if (status === 404 && this.session !== undefined) {
      await response.body?.cancel().catch(() => {});
      const error = new McpctxError('TRANSPORT_CLOSED', `the server ended the session (HTTP 404 to ${what} at ${this.endpoint}); start a new one`, {
        status,
      });
      this.sessionEnded = true;
      this.fail(error);
      throw error;
    }
    // Redirects on the server's origin were followed; what is left (300, 304, ...) is not an answer.
    if (status >= 300 && status < 400) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      throw new McpctxError(
        'HTTP_STATUS',
        `the MCP server at ${this.endpoint} redirected ${what} (HTTP ${status}${location === null ? '' : ` to ${describeBody(location, this.#redactor)}`}); configure the URL it redirects to`,
        { status },
      );
    }
    if (!response.ok) {
      const text = await readBodyStart(response, ERROR_BODY_READ_BYTES);
      exchange.end();
      if (requestId !== undefined && this.deliverRpcError(text, requestId)) return;
      throw new McpctxError('HTTP_STATUS', `the MCP server at ${this.endpoint} answered ${what} with HTTP ${status}: ${describeBody(text, this.#redactor)}`, {
        status,
        bodyStart: describeBody(text, this.#redactor),
      });
    }
    const type = mediaType(response);
    if (type === 'text/event-stream') {
      void this.readEventStream(exchange, what, requestId);
    } else if (type === 'application/json') {
      void this.readJsonBody(exchange, what);
    } else {
      await response.body?.cancel().catch(() => {});
      exchange.end();
      if (requestId !== undefined && status !== 202 && status !== 204) {
        throw new McpctxError('PROTOCOL', `the MCP server at ${this.endpoint} answered ${what} with content type "${type}", neither JSON nor an event stream`, {
          status,
          contentType: type,
        });
      }
    }
  }

  private async readJsonBody(exchange: Exchange, what: string): Promise<void> {
    try {
      const bytes = await readBoundedBody(exchange.response, this.maxFrameBytes, what);
      const text = decodeUtf8(bytes, what);
      if (text.trim() === '') return; // an empty body (a notification's answer, from some servers) carries nothing
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new McpctxError('INVALID_FRAME', `the server's answer to ${what} is not JSON: ${describeBody(text, this.#redactor)}`, {
          bodyBytes: bytes.length,
        });
      }
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) this.deliver(message, bytes.length);
    } catch (error) {
      this.streamFailed(error, exchange.signal);
    } finally {
      exchange.end();
    }
  }

  /** Delivers the stream's events; says whether any arrived, and the id of the last that had one. */
  private async readEventStream(
    exchange: Exchange,
    what: string,
    requestId: RpcId | undefined,
  ): Promise<{ received: boolean; lastEventId: string | undefined }> {
    let received = false;
    let lastEventId: string | undefined;
    try {
      for await (const event of readEvents(exchange.response, this.maxFrameBytes)) {
        if (event.id !== undefined) lastEventId = event.id;
        // An event with empty data primes the client's Last-Event-ID (2025-11-25): nothing to deliver.
        if (event.event !== 'message' || event.data.trim() === '') continue;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          throw new McpctxError('INVALID_FRAME', `an event in the server's answer to ${what} is not JSON: ${describeBody(event.data, this.#redactor)}`, {
            eventBytes: event.dataBytes,
          });
        }
        received = true;
        const answered = requestId !== undefined && isResponseTo(message, requestId);
        this.deliver(message, event.dataBytes);
        // The server should close the stream after the answer; not waiting for it frees the connection.
        if (answered) break;
      }
    } catch (error) {
      this.streamFailed(error, exchange.signal);
    } finally {
      exchange.end();
    }
    return { received, lastEventId };
  }

  /** A framing error ends the connection; a stream ended by its deadline or by close() ends quietly. */
  private streamFailed(error: unknown, signal: AbortSignal): void {
    if (signal.aborted || this.closing) return;
    if (error instanceof McpctxError) this.fail(error);
    // Anything else is the connection dropping: the requests it carried learn it through their deadlines.
  }

  private deliver(message: unknown, frameBytes: number): void {
    if (this.closing || !isJsonRpcObject(message)) return;
    this.frameBytes.set(message, frameBytes);
    if (!('method' in message) && isRpcId(message.id) && this.initializeIds.delete(message.id)) {
      const result = message.result as JsonObject | undefined;
      if (typeof result?.protocolVersion === 'string' && isHeaderSafe(result.protocolVersion, 64)) this.protocolVersion = result.protocolVersion;
    }
    this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  /** An error status whose body is a JSON-RPC error answering our request is that request's answer. */
  private deliverRpcError(text: string, requestId: RpcId): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
    if (!isJsonRpcObject(parsed) || !('error' in parsed) || parsed.id !== requestId) return false;
    this.deliver(parsed, Buffer.byteLength(text, 'utf8'));
    return true;
  }

  private adoptSession(response: Response): void {
    const id = response.headers.get('mcp-session-id');
    if (id === null || this.session !== undefined) return;
    if (!isHeaderSafe(id, MAX_SESSION_ID_CHARS)) {
      throw new McpctxError('PROTOCOL', `the server assigned a session id that is not 1 to ${MAX_SESSION_ID_CHARS} visible ASCII characters`, {
        chars: id.length,
      });
    }
    this.session = id;
  }

  private startListening(): void {
    if (this.listenState !== 'off') return;
    this.listenState = 'opening';
    void this.listenLoop();
  }

  /** The GET stream, reopened (with Last-Event-ID) when it ends, until close or attempts in a row without an event. */
  private async listenLoop(): Promise<void> {
    let fruitless = 0;
    let lastEventId: string | undefined;
    while (!this.closing && !this.fatalError) {
      let exchange: Exchange | undefined;
      try {
        exchange = await this.exchange('GET', undefined, new Deadline(LISTEN_OPEN_MS, 'opening the event stream'), 'the GET stream', false, lastEventId);
      } catch {
        exchange = undefined; // unreachable for now: counted as an attempt without an event
      }
      if (this.closing) return;
      if (exchange?.response.status === 405) {
        await exchange.response.body?.cancel().catch(() => {});
        exchange.end();
        this.listenState = 'unsupported';
        return;
      }
      let received = false;
      if (exchange?.response.ok && mediaType(exchange.response) === 'text/event-stream') {
        this.listenState = 'open';
        const outcome = await this.readEventStream(exchange, 'the GET stream', undefined);
        received = outcome.received;
        // Reopened with the last id seen, so a server that keeps events can resume where it stopped.
        lastEventId = outcome.lastEventId ?? lastEventId;
      } else if (exchange) {
        await exchange.response.body?.cancel().catch(() => {});
        exchange.end();
      }
      fruitless = received ? 0 : fruitless + 1;
      if (fruitless >= MAX_LISTEN_ATTEMPTS || this.closing || this.fatalError) {
        if (!this.closing) this.listenState = 'given-up';
        return;
      }
      this.listenState = 'retrying';
      await this.pause(LISTEN_RETRY_MS * fruitless);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const controller = new AbortController();
      const timer = setTimeout(() => {
        this.controllers.delete(controller);
        resolve();
      }, ms);
      controller.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
      this.controllers.add(controller);
    });
  }

  /**
   * One HTTP request under `deadline`: the headers always, the body too when `bodyUnderDeadline`.
   * Errors name the endpoint, never a header value.
   */
  private async exchange(
    method: 'POST' | 'GET' | 'DELETE',
    body: string | undefined,
    deadline: Deadline,
    what: string,
    bodyUnderDeadline: boolean,
    lastEventId?: string,
  ): Promise<Exchange> {
    if (deadline.expired) throw deadline.error(`the server to answer ${what}`);
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(() => controller.abort(deadline.error(`the server to answer ${what}`)), deadline.remainingMs());
    const end = (): void => {
      clearTimeout(timer);
      this.controllers.delete(controller);
      if (!controller.signal.aborted) controller.abort(new McpctxError('TRANSPORT_CLOSED', 'the exchange ended', {}));
    };
    let response: Response;
    try {
      response = await sendAuthorized(this.#bearer, this.#redactor, (authorization) =>
        fetchOnOrigin(
          this.#url,
          { method, headers: this.requestHeaders(method, lastEventId, authorization), body, signal: controller.signal },
          { endpoint: this.endpoint, what, redactor: this.#redactor },
        ),
      );
    } catch (error) {
      const failure = this.fetchError(error, controller.signal, what);
      end();
      throw failure;
    }
    if (!bodyUnderDeadline) clearTimeout(timer);
    return { response, signal: controller.signal, end };
  }

  private requestHeaders(method: string, lastEventId: string | undefined, authorization: string | undefined): Record<string, string> {
    const headers: Record<string, string> = Object.fromEntries(this.#headers);
    if (authorization !== undefined) headers.authorization = authorization;
    if (method === 'POST') {
      headers.accept = 'application/json, text/event-stream';
      headers['content-type'] = 'application/json';
    } else if (method === 'GET') {
      headers.accept = 'text/event-stream';
    }
    if (this.session !== undefined) headers['mcp-session-id'] = this.session;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return headers;
  }

  private fetchError(error: unknown, signal: AbortSignal, what: string): McpctxError {
    if (signal.aborted && signal.reason instanceof McpctxError) return signal.reason;
    if (error instanceof McpctxError) return error; // a refused redirect
    return unreachableError(this.endpoint, what, error, this.#redactor);
  }

  private checkOpen(): void {
    if (!this.started) throw new McpctxError('USAGE', 'the transport is not started: call start() first');
    if (this.fatalError) throw this.fatalError;
    if (this.closing) throw new McpctxError('TRANSPORT_CLOSED', 'cannot send: the transport is closed', {});
  }

  /** A framing or session error ends the connection: onerror with why, then close. */
  private fail(error: McpctxError): void {
    if (this.fatalError || this.closing) return;
    this.fatalError = error;
    this.onerror?.(error);
    void this.close();
  }

  private notifyClosed(): void {
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.onclose?.();
  }
}
