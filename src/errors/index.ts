/**
 * The one error class of mcpctx. `code` is a stable string callers switch on;
 * `data` carries the documented details of that code.
 */
export type McpctxErrorCode =
  | 'USAGE'
  | 'SPAWN_FAILED'
  | 'FRAME_TOO_LARGE'
  | 'DEADLINE'
  | 'TRANSPORT_CLOSED'
  | 'PROTOCOL'
  | 'INVALID_FRAME'
  | 'RPC_ERROR'
  | 'CURSOR_LOOP'
  | 'TOO_MANY_PAGES'
  | 'TOO_MANY_TOOLS'
  | 'TOO_MANY_NOTIFICATIONS'
  | 'INVALID_CONFIG'
  | 'INVALID_RESULTS'
  | 'IO'
  | 'INVALID_CURSOR'
  | 'STALE_CURSOR'
  | 'FOREIGN_CURSOR'
  | 'INVALID_PROJECTION'
  | 'INVALID_ARGUMENT'
  | 'INVALID_RECORDS'
  | 'SOURCE_CHANGED'
  | 'NESTING_TOO_DEEP'
  | 'OUTPUT_CONFLICT'
  | 'CATALOG_TOO_LARGE'
  | 'CANCELLED'
  | 'LISTEN_FAILED'
  | 'INVALID_HANDLE'
  | 'FOREIGN_HANDLE'
  | 'EXPIRED'
  | 'EVICTED'
  | 'INVALID_QUERY'
  | 'RESULT_TOO_LARGE'
  | 'AUTH_REQUIRED'
  | 'UNREACHABLE'
  | 'HTTP_STATUS'
  /** A model provider answered with an error (after retries), or not in its API's shape. */
  | 'PROVIDER_ERROR'
  /** A provider needs an API key and the env variable named for it is unset. */
  | 'MISSING_KEY'
  /** A scripted provider has no turn for this request. */
  | 'NO_SCRIPTED_TURN';

export class McpctxError extends Error {
  readonly code: McpctxErrorCode;
  readonly data: Readonly<Record<string, unknown>>;

  constructor(code: McpctxErrorCode, message: string, data: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpctxError';
    this.code = code;
    this.data = data;
  }
}

export function isMcpctxError(value: unknown, code?: McpctxErrorCode): value is McpctxError {
  return value instanceof McpctxError && (code === undefined || value.code === code);
}
