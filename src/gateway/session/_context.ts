import { McpctxError, isMcpctxError } from '../../errors/index.js';
import type { CursorCodec } from '../../shape/index.js';
import type { GatewayConfig, ResolvedUpstream } from '../config/index.js';
import type { ReceiptWriter } from '../receipts/index.js';
import type { ResultShaper } from '../results/index.js';
import type { PinStore, ScanGate, SchemaCache } from '../trust/index.js';
import type { Upstream } from '../upstream/index.js';

type JsonObject = Record<string, unknown>;
export type MethodResult = JsonObject;

/** What every session of one gateway shares. */
export interface SessionServices {
  readonly config: GatewayConfig;
  readonly upstreams: readonly ResolvedUpstream[];
  readonly shaper: ResultShaper;
  readonly receipts: ReceiptWriter | undefined;
  /** Signs the gateway's own `tools/list` page cursors. */
  readonly listCodec: CursorCodec;
  /** Compiled tool `inputSchema`s, shared by every session's argument checks. */
  readonly argumentSchemas: SchemaCache;
  readonly timeouts: { readonly startupMs: number; readonly requestMs: number; readonly clientRequestMs: number };
  /** One line on the gateway's stderr. */
  readonly log: (line: string) => void;
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Tool pins (config `pin`): only trusted tools are listed and called. */
  readonly pins: PinStore | undefined;
  /** The poisoning scan of listed definitions (config `scan`). */
  readonly scanGate: ScanGate;
}

/** What the method handlers of one session see of it. */
export interface SessionContext {
  readonly sessionId: string;
  readonly services: SessionServices;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  notifyClient(method: string, params?: JsonObject): void;
  /** The capabilities the client declared in its initialize ({} before it). */
  clientCapabilities(): JsonObject;
  /** Sends a request of the gateway's own to the client (an elicitation); resolves with its result. */
  askClient(method: string, params: JsonObject, relatedRequestId: string | number): Promise<unknown>;
}

/** One client request being served. */
export interface ClientCall {
  readonly id: string | number;
  readonly params: JsonObject | undefined;
  readonly signal: AbortSignal;
}

/** A JSON-RPC error to answer with, code and data kept as the upstream or the gateway gave them. */
export class RpcFailure extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The JSON-RPC error for anything a handler threw: an upstream's own error as it sent it, ours as -32603. */
export function failureFrom(error: unknown): RpcFailure {
  if (error instanceof RpcFailure) return error;
  if (isMcpctxError(error, 'RPC_ERROR') && typeof error.data.rpcCode === 'number') {
    const message = typeof error.data.rpcMessage === 'string' ? error.data.rpcMessage : error.message;
    return new RpcFailure(error.data.rpcCode, message, error.data.rpcData);
  }
  if (error instanceof McpctxError && typeof error.data.jsonRpcCode === 'number') return new RpcFailure(error.data.jsonRpcCode, error.message);
  if (error instanceof McpctxError && (error.code === 'INVALID_CURSOR' || error.code === 'STALE_CURSOR' || error.code === 'FOREIGN_CURSOR')) {
    return new RpcFailure(-32602, error.message);
  }
  return new RpcFailure(-32603, error instanceof Error ? error.message : String(error));
}

export function rpcErrorBody(failure: RpcFailure): JsonObject {
  const body: JsonObject = { code: failure.code, message: failure.message };
  if (failure.data !== undefined) body.data = failure.data;
  return body;
}

/** The upstream a call goes to, or a failure naming why it cannot serve. */
export function liveUpstream(context: SessionContext, name: string): Upstream {
  const upstream = context.upstreams.get(name);
  if (!upstream) throw new RpcFailure(-32602, `no upstream is called ${JSON.stringify(name)}`);
  if (upstream.failure) throw upstream.failure;
  return upstream;
}
