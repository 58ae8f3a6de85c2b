import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpctxError } from '../errors/index.js';
import { jsonText } from '../tokens/index.js';
import { Deadline } from './_deadline.js';
import { DEFAULT_MAX_FRAME_BYTES } from './_frames.js';
import { describeBody, mediaType, readBodyStart, readEvents } from './_http-body.js';
import { bearerBesides, sendAuthorized, type BearerSource } from './_bearer.js';
import { authRequiredError, unreachableError } from './_http-errors.js';
import { checkHeaders, parseUrl, secretsOf } from './_http-options.js';
import type { JsonObject } from '../json/index.js';
import { describeMessage, isJsonRpcObject } from './_jsonrpc-message.js';
import { Redactor } from './_redact.js';
import { fetchOnOrigin } from './_redirects.js';
import type { BoundedTransport } from './_stdio-transport.js';

export interface LegacySseTransportOptions {
  /** The event-stream URL (GET); the server's first `endpoint` event names where messages are POSTed. */
  url: string;
  /** Resolved header values (e.g. Authorization), sent on the GET and every POST; never written to any error. */
  headers?: Readonly<Record<string, string>>;
  /** Where the Authorization value comes from (a stored OAuth login); not with an Authorization header. */
  bearer?: BearerSource;
  /** Largest SSE event accepted; default DEFAULT_MAX_FRAME_BYTES. */
  maxFrameBytes?: number;
  /** Budget of opening the stream when `start()` opens it (the SDK passes no deadline). Default 30,000 ms. */
  connectTimeoutMs?: number;
  /** Budget of a POST made through the SDK's `send()`. Default 30,000 ms. */
  sendTimeoutMs?: number;
}

/** How much of an error body is read to describe it. */
const ERROR_BODY_READ_BYTES = 16 * 1024;

/**
 * The client side of MCP's older HTTP+SSE transport (protocol 2024-11-05): one GET opens an event
 * stream whose first `endpoint` event names the URL to POST messages to; every answer arrives as a
 * `message` event on that stream. Bounded like the streamable transport: each event by
 * `maxFrameBytes` before it is parsed, opening the stream by the caller's deadline, each POST by
 * its deadline; messages are handed on exactly as `JSON.parse` read them. The message endpoint
 * must be on the stream's own origin, so the headers (credentials) never go anywhere else.
 */
export class LegacySseClientTransport implements Transport, BoundedTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;

  // Private: they hold credentials, which must never leave the process.
  readonly #url: URL;
  readonly #headers: ReadonlyArray<readonly [string, string]>;
  readonly #redactor: Redactor;
  readonly #bearer: BearerSource | undefined;
  #postUrl: URL | undefined;
  #streamUrl: URL;
  /** The stream URL without credentials, query or fragment: what messages name. */
  readonly endpoint: string;
  private readonly maxFrameBytes: number;
  private readonly connectTimeoutMs: number;
  private readonly sendTimeoutMs: number;
  private readonly frameBytes = new WeakMap<object, number>();
  private readonly controllers = new Set<AbortController>();
  private readonly timers = new WeakMap<AbortController, NodeJS.Timeout>();
  private connecting: Promise<void> | undefined;
  private endpointWaiter: { resolve: () => void; reject: (error: McpctxError) => void } | undefined;
  private started = false;
  private closing = false;
  private closedNotified = false;
  private fatalError: McpctxError | undefined;

  constructor(options: LegacySseTransportOptions) {
    this.#url = parseUrl(options.url);
    this.#streamUrl = this.#url;
    this.endpoint = `${this.#url.origin}${this.#url.pathname}`;
    this.#headers = checkHeaders(options.headers ?? {});
    this.#redactor = new Redactor(secretsOf(this.#headers, this.#url));
    this.#bearer = bearerBesides(options.bearer, this.#headers);
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    this.sendTimeoutMs = options.sendTimeoutMs ?? 30_000;
  }

  /** The error (framing, the stream ending) that ended the connection, if one did. */
  get failure(): McpctxError | undefined {
    return this.fatalError;
  }

  /** Where messages are POSTed (origin and path only), once the server has named it. */
  get messageEndpoint(): string | undefined {
    return this.#postUrl === undefined ? undefined : `${this.#postUrl.origin}${this.#postUrl.pathname}`;
  }

  frameBytesOf(message: object): number | undefined {
    return this.frameBytes.get(message);
  }

  /**
   * Opens the event stream and waits for its `endpoint` event, within `deadline`. AUTH_REQUIRED on
   * 401/403, HTTP_STATUS on another refusal (`data.status`), PROTOCOL when the answer is not an
   * event stream or names no URL, REDIRECT_REFUSED for a redirect or endpoint on another origin,
   * UNREACHABLE, DEADLINE. Idempotent.
   */
  connect(deadline: Deadline): Promise<void> {
    this.connecting ??= this.openStream(deadline);
    return this.connecting;
  }

  async start(): Promise<void> {
    if (this.started) throw new McpctxError('USAGE', 'transport already started');
    this.started = true;
    await this.connect(new Deadline(this.connectTimeoutMs, 'opening the event stream'));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.sendWithin(message, new Deadline(this.sendTimeoutMs, 'a message to the server'));
  }

  /** POSTs one message to the endpoint the server named; resolves once the server accepted it (answers come on the stream). */
  async sendWithin(message: JSONRPCMessage, deadline: Deadline): Promise<void> {
    if (this.fatalError) throw this.fatalError;
    if (this.closing) throw new McpctxError('TRANSPORT_CLOSED', 'cannot send: the transport is closed', {});
    const postUrl = this.#postUrl;
    if (postUrl === undefined) throw new McpctxError('USAGE', 'the event stream is not open: call connect() or start() first');
    const body = jsonText(message, 'the message to send');
    if (body === undefined) throw new McpctxError('INVALID_ARGUMENT', 'cannot send a message with no JSON form');
    const what = describeMessage(message as unknown as JsonObject);
    if (deadline.expired) throw deadline.error(`the server to accept ${what}`);
    const controller = this.track(deadline, `the server to accept ${what}`);
    try {
      let response: Response;
      try {
        response = await sendAuthorized(this.#bearer, this.#redactor, (authorization) =>
          fetchOnOrigin(
            postUrl,
            {
              method: 'POST',
              headers: { ...this.headersWith(authorization), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
              body,
              signal: controller.signal,
            },
            { endpoint: this.endpoint, what, redactor: this.#redactor },
          ),
        );
      } catch (error) {
        throw this.fetchError(error, controller.signal, what);
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel().catch(() => {});
        throw authRequiredError(this.endpoint, what, response, this.#redactor, this.#bearer?.advice());
      }
      if (!response.ok) {
        const text = await readBodyStart(response, ERROR_BODY_READ_BYTES).catch(() => '');
        throw new McpctxError(
          'HTTP_STATUS',
          `the MCP server at ${this.endpoint} answered ${what} with HTTP ${response.status}: ${describeBody(text, this.#redactor)}`,
          { status: response.status, bodyStart: describeBody(text, this.#redactor) },
        );
      }
      // The answer comes on the event stream; the POST's own body ("Accepted") carries nothing.
      await response.body?.cancel().catch(() => {});
    } catch (error) {
      if (controller.signal.aborted && controller.signal.reason instanceof McpctxError) throw controller.signal.reason;
      throw error;
    } finally {
      this.untrack(controller);
    }
  }

  private headersWith(authorization: string | undefined): Record<string, string> {
    const headers: Record<string, string> = Object.fromEntries(this.#headers);
    if (authorization !== undefined) headers.authorization = authorization;
    return headers;
  }

  /** Ends the stream and every POST in flight, then onclose once. Nothing to DELETE in this transport. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const closed = new McpctxError('TRANSPORT_CLOSED', 'the transport was closed', {});
    this.endpointWaiter?.reject(closed);
    for (const controller of [...this.controllers]) controller.abort(closed);
    this.controllers.clear();
    this.notifyClosed();
  }

  private async openStream(deadline: Deadline): Promise<void> {
    const what = 'the GET of its event stream';
    if (this.closing) throw new McpctxError('TRANSPORT_CLOSED', 'the transport was closed', {});
    if (deadline.expired) throw deadline.error('the server to open its event stream');
    const controller = this.track(deadline, 'the server to name its message endpoint in its event stream');
    let response: Response;
    try {
      response = await sendAuthorized(this.#bearer, this.#redactor, (authorization) =>
        fetchOnOrigin(
          this.#url,
          { method: 'GET', headers: { ...this.headersWith(authorization), accept: 'text/event-stream' }, signal: controller.signal },
          { endpoint: this.endpoint, what, redactor: this.#redactor },
        ),
      );
    } catch (error) {
      this.untrack(controller);
      throw this.fetchError(error, controller.signal, what);
    }
    // A relative endpoint is relative to where the stream was served, after any same-origin redirect.
    this.#streamUrl = response.url === '' ? this.#url : new URL(response.url);
    try {
      await this.checkStreamAnswer(response, what);
    } catch (error) {
      this.untrack(controller);
      throw error;
    }
    const endpointNamed = new Promise<void>((resolve, reject) => {
      this.endpointWaiter = { resolve, reject };
    });
    void this.readStream(response, controller);
    try {
      await endpointNamed;
    } catch (error) {
      this.untrack(controller);
      throw error;
    }
    this.endpointWaiter = undefined;
    // From here the stream lives as long as the transport; each request's own deadline bounds each wait.
    this.stopTimer(controller);
  }

  private async checkStreamAnswer(response: Response, what: string): Promise<void> {
    const status = response.status;
    if (status === 401 || status === 403) {
      await response.body?.cancel().catch(() => {});
      throw authRequiredError(this.endpoint, what, response, this.#redactor, this.#bearer?.advice());
    }
    if (!response.ok) {
      const text = await readBodyStart(response, ERROR_BODY_READ_BYTES).catch(() => '');
      throw new McpctxError('HTTP_STATUS', `the MCP server at ${this.endpoint} answered ${what} with HTTP ${status}: ${describeBody(text, this.#redactor)}`, {
        status,
        bodyStart: describeBody(text, this.#redactor),
      });
    }
    const type = mediaType(response);
    if (type !== 'text/event-stream') {
      await response.body?.cancel().catch(() => {});
      throw new McpctxError('PROTOCOL', `the MCP server at ${this.endpoint} answered ${what} with content type "${type}", not an event stream`, {
        status,
        contentType: type,
      });
    }
  }

  private async readStream(response: Response, controller: AbortController): Promise<void> {
    let ending: McpctxError;
    try {
      for await (const event of readEvents(response, this.maxFrameBytes)) {
        if (this.closing) return;
        if (event.event === 'endpoint') {
          if (this.#postUrl === undefined) {
            this.#postUrl = this.endpointUrl(event.data);
            this.endpointWaiter?.resolve();
          }
          continue;
        }
        // Nothing is asked before the endpoint is known, so nothing before it can be an answer.
        if (event.event !== 'message' || this.#postUrl === undefined || event.data.trim() === '') continue;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          throw new McpctxError('INVALID_FRAME', `an event on the server's stream is not JSON: ${describeBody(event.data, this.#redactor)}`, {
            eventBytes: event.dataBytes,
          });
        }
        if (!isJsonRpcObject(message)) continue;
        this.frameBytes.set(message, event.dataBytes);
        this.onmessage?.(message as unknown as JSONRPCMessage);
      }
      ending = new McpctxError('TRANSPORT_CLOSED', `the MCP server at ${this.endpoint} ended its event stream`, {});
    } catch (error) {
      if (this.closing) return;
      if (controller.signal.aborted && controller.signal.reason instanceof McpctxError) ending = controller.signal.reason;
      else if (error instanceof McpctxError) ending = error;
      else ending = new McpctxError('TRANSPORT_CLOSED', `the connection to the MCP server at ${this.endpoint} dropped`, {});
    } finally {
      this.untrack(controller);
    }
    if (this.closing) return;
    // Before the endpoint is known, `connect` is the one waiting; after, the connection has ended.
    if (this.#postUrl === undefined) this.endpointWaiter?.reject(ending);
    else this.fail(ending);
  }

  /** The endpoint event's URL, resolved against the stream's; refused unless it is on the same origin. */
  private endpointUrl(data: string): URL {
    let url: URL;
    try {
      url = new URL(data.trim(), this.#streamUrl);
    } catch {
      throw new McpctxError('PROTOCOL', `the server's endpoint event does not name a URL: ${describeBody(data, this.#redactor)}`, {});
    }
    if (url.origin !== this.#url.origin) {
      const to = describeBody(url.origin, this.#redactor);
      throw new McpctxError(
        'REDIRECT_REFUSED',
        `the server's endpoint event names another origin (${to}) than its stream (${this.#url.origin}); refusing to send its headers there`,
        { status: null, from: this.#url.origin, to },
      );
    }
    return url;
  }

  /** An AbortController for one exchange, aborted with the deadline's error when the deadline passes. */
  private track(deadline: Deadline, waitingFor: string): AbortController {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(deadline.error(waitingFor)), deadline.remainingMs());
    this.timers.set(controller, timer);
    this.controllers.add(controller);
    return controller;
  }

  private stopTimer(controller: AbortController): void {
    clearTimeout(this.timers.get(controller));
  }

  private untrack(controller: AbortController): void {
    this.stopTimer(controller);
    this.controllers.delete(controller);
    if (!controller.signal.aborted) controller.abort(new McpctxError('TRANSPORT_CLOSED', 'the exchange ended', {}));
  }

  private fetchError(error: unknown, signal: AbortSignal, what: string): McpctxError {
    if (signal.aborted && signal.reason instanceof McpctxError) return signal.reason;
    if (error instanceof McpctxError) return error; // a refused redirect
    return unreachableError(this.endpoint, what, error, this.#redactor);
  }

  /** The stream broke or ended: onerror with why, then close. */
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
