import { JSON_RPC_CODES, McpctxError } from '../errors/index.js';
import type { JsonObject } from '../json/index.js';

/**
 * A JSON-RPC error as it goes on the wire: `code`, `message` and `data`. Thrown by a handler to be
 * answered with exactly this error; every other error becomes one through `jsonRpcErrorFrom`.
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }

  /** The `error` member of a JSON-RPC response. */
  body(): JsonObject {
    return { code: this.code, message: this.message, ...(this.data === undefined ? {} : { data: this.data }) };
  }
}

/**
 * The JSON-RPC error to answer with for anything a handler threw: a JsonRpcError as it is; an
 * McpctxError that names its JSON-RPC code (`data.rpcCode`, with `rpcData`) with that code, and a
 * peer's own error (RPC_ERROR) with the peer's message; anything else as -32603, with its message
 * or, when the peer must not read our internals, `internalMessage`.
 */
export function jsonRpcErrorFrom(error: unknown, options: { internalMessage?: string } = {}): JsonRpcError {
  if (error instanceof JsonRpcError) return error;
  if (error instanceof McpctxError && typeof error.data.rpcCode === 'number') {
    const message = error.code === 'RPC_ERROR' && typeof error.data.rpcMessage === 'string' ? error.data.rpcMessage : error.message;
    return new JsonRpcError(error.data.rpcCode, message, error.data.rpcData);
  }
  return new JsonRpcError(JSON_RPC_CODES.internalError, options.internalMessage ?? (error instanceof Error ? error.message : String(error)));
}
