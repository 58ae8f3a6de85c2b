/**
 * The one error class of mcpctx. `code` is a stable string callers switch on; `data` carries the
 * details documented with each code below. `rpcCode` in `data` is the JSON-RPC error code an error
 * is answered with when it goes back over the wire (-32602 for a bad cursor or handle).
 */
export type McpctxErrorCode =
  /** The caller's mistake: a flag, an argument, an option or a file path that cannot work. data: what names it (`variable`, `file` with `offset`/`line`/`column`, `header`, `capability`, `host`, `protocol`, `problems`, `budgetMs`/`maxBudgetMs`, `unknown`/`names`). */
  | 'USAGE'
  /** A server's process could not be started. data: `command`, `errno`. */
  | 'SPAWN_FAILED'
  /** A message (a stdio line, an HTTP body, an SSE event) passed its byte cap. data: `limitBytes`, `receivedBytes`, `lineEnded` (stdio). */
  | 'FRAME_TOO_LARGE'
  /** A budget ran out. data: `budgetMs` and `label` (what had the budget), `waitingFor`; providers: `timeoutMs`, `attempts`, `raw`; relayed to a client: `rpcCode`. */
  | 'DEADLINE'
  /** The connection ended (the server exited or closed its output, an HTTP session ended). data: `exit` and `stderrTail` (stdio), `status`, `sessionId`; relayed to a client: `rpcCode`. */
  | 'TRANSPORT_CLOSED'
  /** A peer answered outside the protocol (not an object, a wrong content type, a page without tools). data: `method`, `page`, `status`, `contentType`, `upstream`, `missing`, `resultType`, `maxDepth`, `chars`. */
  | 'PROTOCOL'
  /** A message that is not JSON-RPC (not JSON, not an object). data: `offset`, `lineBytes`, `bodyBytes` or `eventBytes`. */
  | 'INVALID_FRAME'
  /** The peer answered a request with a JSON-RPC error. data: `rpcCode`, `rpcMessage`, `rpcData` (its `data`, as sent), `method`. */
  | 'RPC_ERROR'
  /** A server's pagination repeated a cursor. data: `cursor`, `page`. */
  | 'CURSOR_LOOP'
  /** A list ran past the page cap. data: `limit`, or `upstream`. */
  | 'TOO_MANY_PAGES'
  /** A catalog ran past the tool cap. data: `limit`, or `upstream`. */
  | 'TOO_MANY_TOOLS'
  /** More unsolicited messages than tolerated while one request waited. data: `limit`, `method`. */
  | 'TOO_MANY_NOTIFICATIONS'
  /** A config file (gateway, servers file, scripted turns) is invalid. data: `problems` (every one, with its path), `file`, `where`, `upstream`, `header`, `missing`, `name`. */
  | 'INVALID_CONFIG'
  /** A results folder or one of its files (measurement, history, leaderboard, site data) is not what mcpctx wrote. data: `file`, `line`, `path`, `field`. */
  | 'INVALID_RESULTS'
  /** A file or folder cannot be read or written. data: `file` or `dir`, `which`; stores: `reason` (`empty-file`, `not-a-store`, `corrupt`, `open-failed`, `newer-schema`, `unknown-schema`), `version`, `seq`, `quickCheck`. */
  | 'IO'
  /** A cursor that is malformed, forged or out of range. data: `reason` (`malformed`, `signature`, `out-of-range`), `rpcCode` (-32602). */
  | 'INVALID_CURSOR'
  /** A cursor issued for content that has changed since. data: `revision`, `rpcCode` (-32602). */
  | 'STALE_CURSOR'
  /** A cursor issued for another tool, another query or another session. data: `rpcCode` (-32602). */
  | 'FOREIGN_CURSOR'
  /** A projection (fields to keep) that cannot be applied. data: none. */
  | 'INVALID_PROJECTION'
  /** A library function was given a value it cannot take. data: what names it (`argument`, `option`, `value`, `index`, `message`, `missing`, `limit`), `reason`; over the wire: `rpcCode` (-32602). */
  | 'INVALID_ARGUMENT'
  /** Session records (the optimizer's input) that are not valid. data: `path` (where in the input), `id`, `file`, `which`, `maxBytes`, `previous`. */
  | 'INVALID_RECORDS'
  /** A file read before changed under a run that relies on it. data: `file`, `which`, `expected`, `actual`, or `previous`, `current`. */
  | 'SOURCE_CHANGED'
  /** JSON nested deeper than mcpctx walks. data: `limit`, `what`, `method`. */
  | 'NESTING_TOO_DEEP'
  /** An output would overwrite something that is not its own. data: `file`, `name`. */
  | 'OUTPUT_CONFLICT'
  /** A tool catalog passed its total byte cap. data: `limitBytes`, `receivedBytes`, `page`. */
  | 'CATALOG_TOO_LARGE'
  /** A request was cancelled (by the client, or by the caller's signal). data: `method`; relayed to a client: `rpcCode` (-32800). */
  | 'CANCELLED'
  /** The gateway's HTTP front could not listen. data: `host`, `port`, `errno`. */
  | 'LISTEN_FAILED'
  /** A result handle that is malformed or forged. data: `fault`, `rpcCode` (-32602). */
  | 'INVALID_HANDLE'
  /** A result handle issued to another session. data: `fault`, `rpcCode` (-32602). */
  | 'FOREIGN_HANDLE'
  /** An offloaded result whose time to live has passed. data: `fault` or `what`, `rpcCode` (-32602). */
  | 'EXPIRED'
  /** An offloaded result evicted to keep the store under its size cap. data: `what` or `fault`, `rpcCode` (-32602). */
  | 'EVICTED'
  /** A query over an offloaded result that cannot run (syntax, step budget). data: none. */
  | 'INVALID_QUERY'
  /** An answer over the token cap, refused rather than cut. data: none. */
  | 'RESULT_TOO_LARGE'
  /** A remote server answered 401 or 403. data: `status`, `wwwAuthenticate` (redacted). */
  | 'AUTH_REQUIRED'
  /** A server cannot be reached at all (no such command, nobody answering the URL). data: `upstream` or `url`, `errno`. */
  | 'UNREACHABLE'
  /** A remote server answered with an HTTP status that is not a protocol answer. data: `status`, `bodyStart` (redacted), `tried` (transports). */
  | 'HTTP_STATUS'
  /** A model provider answered with an error (after retries), or not in its API's shape. data: `status` (when it answered), `attempts`, `raw`, `problems`, `url`. */
  | 'PROVIDER_ERROR'
  /** A provider needs an API key and the env variable named for it is unset. data: `variable`. */
  | 'MISSING_KEY'
  /** A scripted provider has no turn for this request. data: `requestHash`, `lastMessage`, and where the script came from. */
  | 'NO_SCRIPTED_TURN';

/** JSON-RPC 2.0 error codes mcpctx answers with: the specification's, and MCP's for a resource nobody lists. */
export const JSON_RPC_CODES = Object.freeze({
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  requestCancelled: -32800,
  resourceNotFound: -32002,
});

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
