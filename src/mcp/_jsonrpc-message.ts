import { McpctxError } from '../errors/index.js';
import type { JsonObject } from '../json/index.js';

// What a JSON-RPC message read from an HTTP body is, without schemas: shapes only, values untouched.

export type RpcId = string | number;

export function describeMessage(message: JsonObject): string {
  if (typeof message.method === 'string') return `the ${message.method} ${'id' in message ? 'request' : 'notification'}`;
  return 'an answer to the server';
}

export function isRpcId(value: unknown): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

export function isJsonRpcObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as JsonObject).jsonrpc === '2.0';
}

export function isResponseTo(message: unknown, id: RpcId): boolean {
  return isJsonRpcObject(message) && !('method' in message) && message.id === id && ('result' in message || 'error' in message);
}

export function decodeUtf8(bytes: Buffer, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new McpctxError('INVALID_FRAME', `the server's answer to ${what} is not valid UTF-8`, { bodyBytes: bytes.length });
  }
}
