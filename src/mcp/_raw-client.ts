import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpctxError } from '../errors/index.js';
import type { Deadline } from './_deadline.js';

export interface RawClientOptions {
  /**
   * Messages that are not the awaited response (notifications, server requests, responses
   * nobody asked for) tolerated while one request waits. Default 64.
   */
  maxUnsolicitedPerRequest?: number;
  /** Whether the client declared `roots`: only then is `roots/list` answered (with no roots). */
  rootsDeclared?: boolean;
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
}

type JsonObject = Record<string, unknown>;

/**
 * JSON-RPC over any transport, without schema parsing: a result is handed back exactly as the
 * transport parsed it. Ids are integers from 1; a response answers a request only when its id is
 * that very integer (`true` and `"1"` answer nothing).
 */
export class RawClient {
  private readonly transport: Transport;
  private readonly maxUnsolicited: number;
  private readonly rootsDeclared: boolean;
  private readonly pending = new Map<number, Pending>();
  private readonly stray: StrayResponses = { count: 0 };
  private nextId = 1;
  private closedError: McpctxError | undefined;

  constructor(transport: Transport, options: RawClientOptions = {}) {
    this.transport = transport;
    this.maxUnsolicited = options.maxUnsolicitedPerRequest ?? 64;
    this.rootsDeclared = options.rootsDeclared ?? false;
    transport.onmessage = (message) => this.receive(message as unknown as JsonObject);
    transport.onerror = (error) => this.failAll(asMcpctxError(error));
    transport.onclose = () =>
      this.failAll(new McpctxError('TRANSPORT_CLOSED', 'the server closed the connection', {}));
  }

  get strayResponses(): Readonly<StrayResponses> {
    return { ...this.stray };
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** Sends a request and waits for its response within what is left of `deadline`. */
  async request(method: string, params: JsonObject | undefined, deadline: Deadline): Promise<unknown> {
    if (this.closedError) throw this.closedError;
    if (deadline.expired) throw deadline.error(`a response to ${method}`);
    const id = this.nextId++;
    const response = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(deadline.error(`a response to ${method}`));
      }, deadline.remainingMs());
      this.pending.set(id, { method, resolve, reject, unsolicited: 0, timer });
    });
    const message: JsonObject = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    try {
      await this.transport.send(message as JSONRPCMessage);
    } catch (error) {
      this.settle(id)?.reject(asMcpctxError(error));
    }
    return response;
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    if (this.closedError) throw this.closedError;
    const message: JsonObject = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    await this.transport.send(message as JSONRPCMessage);
  }

  private receive(message: JsonObject): void {
    const hasMethod = typeof message.method === 'string';
    if (hasMethod && 'id' in message) {
      this.countUnsolicited('server request');
      void this.answerServerRequest(message);
      return;
    }
    if (hasMethod) {
      this.countUnsolicited('notification');
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
    if ('error' in message) {
      waiter.reject(rpcError(waiter.method, message.error));
    } else if ('result' in message) {
      waiter.resolve(message.result);
    } else {
      waiter.reject(
        new McpctxError('PROTOCOL', `the response to ${waiter.method} has neither result nor error`, { method: waiter.method }),
      );
    }
  }

  private async answerServerRequest(request: JsonObject): Promise<void> {
    const reply: JsonObject = { jsonrpc: '2.0', id: request.id };
    if (request.method === 'ping') reply.result = {};
    else if (request.method === 'roots/list' && this.rootsDeclared) reply.result = { roots: [] };
    else reply.error = { code: -32601, message: `Method not found: ${String(request.method)}` };
    try {
      await this.transport.send(reply as JSONRPCMessage);
    } catch {
      // The connection is gone; the pending requests learn that through onclose.
    }
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
    this.pending.delete(id);
    return waiter;
  }

  private failAll(error: McpctxError): void {
    this.closedError ??= error;
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }
}

function rpcError(method: string, error: unknown): McpctxError {
  const body = (typeof error === 'object' && error !== null ? error : {}) as JsonObject;
  const code = typeof body.code === 'number' ? body.code : undefined;
  const message = typeof body.message === 'string' ? body.message : JSON.stringify(error);
  return new McpctxError('RPC_ERROR', `${method} failed: ${message}${code === undefined ? '' : ` (code ${code})`}`, {
    method,
    rpcCode: code,
    rpcMessage: message,
    rpcData: body.data,
  });
}

function asMcpctxError(error: unknown): McpctxError {
  if (error instanceof McpctxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new McpctxError('TRANSPORT_CLOSED', message, {}, { cause: error });
}
