import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { jsonRpcErrorFrom } from './_jsonrpc-error.js';
import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan, type JsonObject } from '../json/index.js';
import { Deadline } from './_deadline.js';
import type { BoundedTransport } from './_stdio-transport.js';

/** A request the server sent us (server-to-client: sampling, elicitation, roots, ping, ...). */
export interface ServerRequest {
  id: string | number;
  method: string;
  /** The params exactly as parsed; undefined when the request had none. */
  params: Record<string, unknown> | undefined;
}

/** A notification the server sent us (progress, log messages, list changes, cancellation, ...). */
export interface ServerNotification {
  method: string;
  params: Record<string, unknown> | undefined;
}

/**
 * What a server-request handler throws to answer with a JSON-RPC error: an McpctxError whose
 * data has `rpcCode` (and optionally `rpcData`). Anything else thrown is answered -32603.
 */
export type ServerRequestHandler = (request: ServerRequest) => unknown;

export interface RawClientOptions {
  /**
   * Messages that are not the awaited response and that no handler takes (notifications, responses
   * nobody asked for) tolerated while one request waits. Default 64. Server requests are answered,
   * not counted: their answers are bounded by `maxConcurrentServerRequests` instead.
   */
  maxUnsolicitedPerRequest?: number;
  /** Whether the client declared `roots`: only then is `roots/list` answered (with no roots) when no handler is set. */
  rootsDeclared?: boolean;
  /**
   * Whether the client declared `elicitation`: only then is `elicitation/create` answered, when no
   * handler is set, with a declined elicitation (`{action: "decline"}`): no person is there to ask.
   */
  elicitationDeclared?: boolean;
  /**
   * Whether the client declared `sampling`: only then is `sampling/createMessage` answered, when no
   * handler is set, with a JSON-RPC error saying no model is attached (never a made-up completion).
   */
  samplingDeclared?: boolean;
  /** Receives every notification from the server; without it notifications are counted and dropped. */
  onNotification?: (notification: ServerNotification) => void;
  /**
   * Answers server-to-client requests: its return value (or promise) is the result sent back.
   * Without it, `ping` is answered `{}`, `roots/list` (when declared) with no roots, `elicitation/create`
   * (when declared) declined, `sampling/createMessage` (when declared) with an error saying no model
   * is attached, and the rest -32601.
   */
  onServerRequest?: ServerRequestHandler;
  /** Server requests being answered at once; past this they are dropped (counted in `droppedServerRequests`). Default 64. */
  maxConcurrentServerRequests?: number;
  /** Budget of a write with no deadline of its own (answers to the server, notifications). Default 10,000 ms. */
  writeTimeoutMs?: number;
  /** Deepest nesting accepted in a message; a deeper response fails its request with NESTING_TOO_DEEP. Default 512. */
  maxJsonDepth?: number;
  /** Called once when the connection ends (the server exited, closed its output, or broke framing), with why. */
  onClose?: (reason: McpctxError) => void;
}

export interface RequestOptions {
  /** Aborting fails the request with CANCELLED and tells the server (`notifications/cancelled`). */
  signal?: AbortSignal;
}

/** A response whose id answered none of our requests: counted, the first kept. */
export interface StrayResponses {
  count: number;
  firstId?: unknown;
}

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  unsolicited: number;
  timer: NodeJS.Timeout;
  detach: () => void;
}

/** The error a declared sampling request gets: the client's own refusal (MCP clients use -1 for "declined"). */
const NO_MODEL_CODE = -1;
/** `initialize` must not be cancelled (MCP lifecycle). */
const NOT_CANCELLABLE = new Set(['initialize']);
/** Budget of the best-effort `notifications/cancelled` sent when a request gives up. */
const CANCEL_WRITE_MS = 1_000;

/**
 * JSON-RPC over any transport, without schema parsing: a result is handed back exactly as the
 * transport parsed it. Ids are integers from 1; a response answers a request only when its id is
 * that very integer (`true` and `"1"` answer nothing). Any number of requests may be in flight.
 * Every write is bounded: by the request's deadline, or by `writeTimeoutMs`.
 */
export class RawClient {
  private readonly transport: Transport;
  private readonly bounded: BoundedTransport | undefined;
  private readonly maxUnsolicited: number;
  private readonly rootsDeclared: boolean;
  private readonly elicitationDeclared: boolean;
  private readonly samplingDeclared: boolean;
  private readonly onNotification: RawClientOptions['onNotification'];
  private readonly onServerRequest: ServerRequestHandler | undefined;
  private readonly maxServerRequests: number;
  private readonly writeTimeoutMs: number;
  private readonly maxJsonDepth: number;
  private readonly onClose: RawClientOptions['onClose'];
  private readonly pending = new Map<number, Pending>();
  private readonly stray: StrayResponses = { count: 0 };
  private readonly responseSizes = new WeakMap<object, number>();
  private serverRequestsInFlight = 0;
  private dropped = 0;
  private nextId = 1;
  private closedError: McpctxError | undefined;

  constructor(transport: Transport, options: RawClientOptions = {}) {
    this.transport = transport;
    this.bounded = isBounded(transport) ? transport : undefined;
    this.maxUnsolicited = options.maxUnsolicitedPerRequest ?? 64;
    this.rootsDeclared = options.rootsDeclared ?? false;
    this.elicitationDeclared = options.elicitationDeclared ?? false;
    this.samplingDeclared = options.samplingDeclared ?? false;
    this.onNotification = options.onNotification;
    this.onServerRequest = options.onServerRequest;
    this.maxServerRequests = options.maxConcurrentServerRequests ?? 64;
    this.writeTimeoutMs = options.writeTimeoutMs ?? 10_000;
    this.maxJsonDepth = options.maxJsonDepth ?? MAX_JSON_DEPTH;
    this.onClose = options.onClose;
    transport.onmessage = (message) => this.receive(message as unknown as JsonObject);
    transport.onerror = (error) => this.failAll(asMcpctxError(error));
    transport.onclose = () => this.failAll(new McpctxError('TRANSPORT_CLOSED', 'the server closed the connection', {}));
  }

  get strayResponses(): Readonly<StrayResponses> {
    return { ...this.stray };
  }

  /**
   * Server requests left unanswered because `maxConcurrentServerRequests` answers were already
   * waiting to be written (a server that floods requests and does not read the answers).
   */
  get droppedServerRequests(): number {
    return this.dropped;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** UTF-8 bytes of the frame that carried `result` (an object a request resolved with), when the transport knows. */
  responseBytes(result: unknown): number | undefined {
    return typeof result === 'object' && result !== null ? this.responseSizes.get(result) : undefined;
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /**
   * Sends a request and waits for its response within what is left of `deadline`; the write
   * itself is under the same deadline. On the deadline (or an abort) the request fails and the
   * server is told it was cancelled.
   */
  request(method: string, params: JsonObject | undefined, deadline: Deadline, options: RequestOptions = {}): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    if (deadline.expired) return Promise.reject(deadline.error(`a response to ${method}`));
    if (options.signal?.aborted) return Promise.reject(cancelled(method, options.signal));
    const id = this.nextId++;
    const response = new Promise<unknown>((resolve, reject) => {
      const giveUp = (error: McpctxError): void => {
        if (!this.settle(id)) return;
        reject(error);
        if (!NOT_CANCELLABLE.has(method)) this.tellCancelled(id, error.message);
      };
      const timer = setTimeout(() => giveUp(deadline.error(`a response to ${method}`)), deadline.remainingMs());
      const onAbort = (): void => giveUp(cancelled(method, options.signal));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const detach = (): void => options.signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, { method, resolve, reject, unsolicited: 0, timer, detach });
    });
    const message: JsonObject = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    // Not awaited here: the response promise settles on the deadline even while the write is stuck,
    // and a write that fails later fails the request (or nothing, once it has settled).
    this.write(message, deadline, `the server to read the ${method} request`).catch((error: unknown) => {
      this.settle(id)?.reject(asMcpctxError(error));
    });
    return response;
  }

  /** Sends a notification; the write is bounded by `deadline`, or by `writeTimeoutMs`. */
  async notify(method: string, params?: JsonObject, deadline?: Deadline): Promise<void> {
    if (this.closedError) throw this.closedError;
    const message: JsonObject = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    await this.write(message, deadline ?? new Deadline(this.writeTimeoutMs, 'a notification'), `the server to read ${method}`);
  }

  // Async, so a transport whose send throws at once still fails as a rejection the caller handles.
  private async write(message: JsonObject, deadline: Deadline, waitingFor: string): Promise<void> {
    if (this.bounded) return this.bounded.sendWithin(message as JSONRPCMessage, deadline);
    return raceDeadline(this.transport.send(message as JSONRPCMessage), deadline, waitingFor);
  }

  private receive(message: JsonObject): void {
    const frameBytes = this.bounded?.frameBytesOf(message);
    // A frame under 2 bytes per level cannot nest that deep: small messages are never walked.
    const tooDeep = (frameBytes === undefined || frameBytes > 2 * this.maxJsonDepth) && nestsDeeperThan(message, this.maxJsonDepth);
    const hasMethod = typeof message.method === 'string';
    if (hasMethod && 'id' in message) {
      this.receiveServerRequest(message, tooDeep);
      return;
    }
    if (hasMethod) {
      if (!tooDeep && this.onNotification) this.deliverNotification(message);
      else this.countUnsolicited(tooDeep ? 'notification nested too deep' : 'notification');
      return;
    }
    const id = message.id;
    const waiter = typeof id === 'number' && Number.isInteger(id) ? this.settle(id) : undefined;
    if (!waiter) {
      this.stray.count += 1;
      if (this.stray.count === 1) this.stray.firstId = id;
      this.countUnsolicited('response to no pending request');
      return;
    }
    if (tooDeep) {
      waiter.reject(tooDeepError(`the response to ${waiter.method}`, this.maxJsonDepth, waiter.method));
    } else if ('error' in message) {
      waiter.reject(rpcError(waiter.method, message.error));
    } else if ('result' in message) {
      if (typeof message.result === 'object' && message.result !== null && frameBytes !== undefined) {
        this.responseSizes.set(message.result, frameBytes);
      }
      waiter.resolve(message.result);
    } else {
      waiter.reject(new McpctxError('PROTOCOL', `the response to ${waiter.method} has neither result nor error`, { method: waiter.method }));
    }
  }

  private deliverNotification(message: JsonObject): void {
    try {
      this.onNotification?.({ method: message.method as string, params: isPlainObject(message.params) ? message.params : undefined });
    } catch {
      // A handler's fault is the caller's; it must not take the connection down.
    }
  }

  private receiveServerRequest(message: JsonObject, tooDeep: boolean): void {
    const id = message.id;
    if (typeof id !== 'string' && typeof id !== 'number') {
      this.countUnsolicited('server request with an invalid id');
      return;
    }
    if (this.serverRequestsInFlight >= this.maxServerRequests) {
      // Past the bound nothing is queued: a flood must not grow memory or writes without limit.
      // Not counted against waiting requests either: their own deadlines bound them.
      this.dropped += 1;
      return;
    }
    this.serverRequestsInFlight += 1;
    void this.answerServerRequest(id, message, tooDeep).finally(() => {
      this.serverRequestsInFlight -= 1;
    });
  }

  private async answerServerRequest(id: string | number, request: JsonObject, tooDeep: boolean): Promise<void> {
    const method = request.method as string;
    const reply: JsonObject = { jsonrpc: '2.0', id };
    if (tooDeep) {
      reply.error = { code: -32600, message: `Invalid request: nested deeper than ${this.maxJsonDepth} levels` };
    } else if (this.onServerRequest) {
      try {
        reply.result = await this.onServerRequest({ id, method, params: isPlainObject(request.params) ? request.params : undefined });
      } catch (error) {
        reply.error = errorReply(error);
      }
    } else if (method === 'ping') {
      reply.result = {};
    } else if (method === 'roots/list' && this.rootsDeclared) {
      reply.result = { roots: [] };
    } else if (method === 'elicitation/create' && this.elicitationDeclared) {
      reply.result = { action: 'decline' };
    } else if (method === 'sampling/createMessage' && this.samplingDeclared) {
      reply.error = { code: NO_MODEL_CODE, message: 'Sampling declined: no model is attached to this client (mcpctx cannot ask a model for a completion)' };
    } else {
      reply.error = { code: -32601, message: `Method not found: ${method}` };
    }
    if (this.closedError) return;
    try {
      await this.write(reply, new Deadline(this.writeTimeoutMs, 'an answer to the server'), `the server to read the answer to ${method}`);
    } catch {
      // The server stopped reading or is gone; waiting requests learn that through their own deadlines or onclose.
    }
  }

  /** Best effort, bounded, never awaited: the request has already failed. */
  private tellCancelled(requestId: number, reason: string): void {
    if (this.closedError) return;
    this.write(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } },
      new Deadline(CANCEL_WRITE_MS, 'a cancellation'),
      'the server to read a cancellation',
    ).catch(() => {});
  }

  /** Every waiting request counts each message that is not its answer; past the bound it fails. */
  private countUnsolicited(kind: string): void {
    for (const [id, waiter] of this.pending) {
      waiter.unsolicited += 1;
      if (waiter.unsolicited > this.maxUnsolicited) {
        this.settle(id);
        waiter.reject(
          new McpctxError(
            'TOO_MANY_NOTIFICATIONS',
            `the server sent more than ${this.maxUnsolicited} messages (last: a ${kind}) while ${waiter.method} waited for its response`,
            { limit: this.maxUnsolicited, method: waiter.method },
          ),
        );
      }
    }
  }

  private settle(id: number): Pending | undefined {
    const waiter = this.pending.get(id);
    if (!waiter) return undefined;
    clearTimeout(waiter.timer);
    waiter.detach();
    this.pending.delete(id);
    return waiter;
  }

  private failAll(error: McpctxError): void {
    if (!this.closedError) {
      this.closedError = error;
      this.onClose?.(error);
    }
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }
}

/** Which server requests the client answers by itself, from the capabilities it declared (own properties only). */
export function declaredAnswers(capabilities: Record<string, unknown>): Pick<RawClientOptions, 'rootsDeclared' | 'elicitationDeclared' | 'samplingDeclared'> {
  return {
    rootsDeclared: Object.hasOwn(capabilities, 'roots'),
    elicitationDeclared: Object.hasOwn(capabilities, 'elicitation'),
    samplingDeclared: Object.hasOwn(capabilities, 'sampling'),
  };
}

function isBounded(transport: Transport): transport is Transport & BoundedTransport {
  const candidate = transport as Partial<BoundedTransport>;
  return typeof candidate.sendWithin === 'function' && typeof candidate.frameBytesOf === 'function';
}

/**
 * A write through a transport that takes no deadline, bounded all the same. The write's own
 * late failure is caught, so it can never become an unhandled rejection.
 */
function raceDeadline(write: Promise<void>, deadline: Deadline, waitingFor: string): Promise<void> {
  if (deadline.expired) {
    write.catch(() => {});
    return Promise.reject(deadline.error(waitingFor));
  }
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(deadline.error(waitingFor)), deadline.remainingMs());
    write.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(asMcpctxError(error));
      },
    );
  });
}

function cancelled(method: string, signal: AbortSignal | undefined): McpctxError {
  const reason = signal?.reason instanceof Error ? signal.reason.message : signal?.reason === undefined ? 'aborted' : String(signal.reason);
  return new McpctxError('CANCELLED', `${method} was cancelled: ${reason}`, { method });
}

function tooDeepError(what: string, limit: number, method: string): McpctxError {
  return new McpctxError('NESTING_TOO_DEEP', `${what} nests deeper than ${limit} levels (MAX_JSON_DEPTH); it is refused, not read`, {
    limit,
    method,
  });
}

function errorReply(error: unknown): JsonObject {
  return jsonRpcErrorFrom(error, { internalMessage: 'Internal error while handling the request' }).body();
}

function rpcError(method: string, error: unknown): McpctxError {
  const body = (typeof error === 'object' && error !== null ? error : {}) as JsonObject;
  const code = typeof body.code === 'number' ? body.code : undefined;
  const message = typeof body.message === 'string' ? body.message : describeJson(error);
  return new McpctxError('RPC_ERROR', `${method} failed: ${message}${code === undefined ? '' : ` (code ${code})`}`, {
    method,
    rpcCode: code,
    rpcMessage: message,
    rpcData: body.data,
  });
}

/** Compact JSON of a small value from the wire, or a placeholder when it has none (nesting is bounded before this). */
function describeJson(value: unknown): string {
  try {
    return (JSON.stringify(value) as string | undefined)?.slice(0, 1_000) ?? String(value);
  } catch {
    return '(an error with no readable message)';
  }
}

function asMcpctxError(error: unknown): McpctxError {
  if (error instanceof McpctxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new McpctxError('TRANSPORT_CLOSED', message, {}, { cause: error });
}
