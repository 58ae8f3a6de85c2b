import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import type { FrontConnection, JsonRpcMessage } from '../front/index.js';

interface Outgoing {
  readonly upstream: string;
  readonly upstreamId: string | number;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: McpctxError) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Requests an upstream sends to the client (sampling, elicitation, roots, ping), relayed under
 * the gateway's own ids: the client's answer goes back to the upstream that asked, and an
 * upstream's `notifications/cancelled` reaches the client under the id the client knows.
 */
export class ClientRequests {
  private readonly front: FrontConnection;
  private readonly timeoutMs: number;
  private readonly outgoing = new Map<number, Outgoing>();
  private nextId = 1;

  constructor(front: FrontConnection, timeoutMs: number) {
    this.front = front;
    this.timeoutMs = timeoutMs;
  }

  /** Relays one request; resolves with the client's result, rejects with its error (JSON-RPC code kept). */
  relay(
    upstream: string,
    upstreamId: string | number,
    method: string,
    params: Record<string, unknown> | undefined,
    relatedRequestId: string | number | undefined,
  ): Promise<unknown> {
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.outgoing.delete(id);
        reject(
          new McpctxError('DEADLINE', `the client did not answer ${method} within ${this.timeoutMs} ms`, { rpcCode: -32603 }),
        );
      }, this.timeoutMs);
      this.outgoing.set(id, { upstream, upstreamId, resolve, reject, timer });
      const message: JsonRpcMessage = { jsonrpc: '2.0', id, method };
      if (params !== undefined) message.params = params;
      this.front.send(message, relatedRequestId === undefined ? {} : { relatedRequestId }).catch((error: unknown) => {
        this.settle(id)?.reject(
          new McpctxError('TRANSPORT_CLOSED', `could not relay ${method} to the client: ${String(error)}`, { rpcCode: -32603 }),
        );
      });
    });
  }

  /** Takes a response from the client; false when it answers none of ours. */
  answer(message: JsonRpcMessage): boolean {
    if (typeof message.id !== 'number') return false;
    const waiting = this.settle(message.id);
    if (!waiting) return false;
    if ('error' in message) {
      const error = isPlainObject(message.error) ? message.error : {};
      const code = typeof error.code === 'number' ? error.code : -32603;
      const text = typeof error.message === 'string' ? error.message : 'the client answered with an error';
      waiting.reject(new McpctxError('RPC_ERROR', text, { rpcCode: code, rpcData: error.data }));
    } else {
      waiting.resolve(message.result);
    }
    return true;
  }

  /** The id the client knows for a request an upstream sent, to relay that upstream's cancellation. */
  clientIdFor(upstream: string, upstreamId: unknown): number | undefined {
    for (const [id, entry] of this.outgoing) {
      if (entry.upstream === upstream && entry.upstreamId === upstreamId) return id;
    }
    return undefined;
  }

  /** The upstream cancelled its request: stop waiting (the client is told by the caller). */
  cancel(id: number, reason: string): void {
    this.settle(id)?.reject(new McpctxError('CANCELLED', reason, { rpcCode: -32800 }));
  }

  /** Fails every waiting request (the session is ending). */
  failAll(reason: string): void {
    for (const id of [...this.outgoing.keys()]) {
      this.settle(id)?.reject(new McpctxError('TRANSPORT_CLOSED', reason, { rpcCode: -32603 }));
    }
  }

  private settle(id: number): Outgoing | undefined {
    const entry = this.outgoing.get(id);
    if (!entry) return undefined;
    this.outgoing.delete(id);
    clearTimeout(entry.timer);
    return entry;
  }
}
