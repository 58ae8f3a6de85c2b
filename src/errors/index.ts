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
  /** A config file (gateway, servers file, scripted turns) is invalid. data: `problems` (every one, with its path), `file`, `where`, `upstream`, `header`, `missing`, `name`; `upstreams` when no gateway upstream can start, each for a config mistake. */
  | 'INVALID_CONFIG'
  /** A results folder or one of its files (measurement, history, leaderboard, site data) is not what mcpctx wrote. data: `file`, `line`, `path`, `field`. */
  | 'INVALID_RESULTS'
  /** A file or folder cannot be read or written. data: `file` or `dir`, `which`; stores: `reason` (`empty-file`, `not-a-store`, `corrupt`, `open-failed`, `newer-schema`, `unknown-schema`); the auth store: `reason` (`corrupt`, `open-failed`, `lock-failed`, `lock-compromised`, `keyring-unavailable`, `keyring-failed`); `version`, `seq`, `quickCheck`. */
  | 'IO'
  /** A cursor that is malformed, forged or out of range. data: `reason` (`malformed`, `signature`, `out-of-range`), `rpcCode` (-32602). */
  | 'INVALID_CURSOR'
  /** A cursor issued for content that has changed since. data: `revision`, `rpcCode` (-32602). */
  | 'STALE_CURSOR'
  /** A cursor issued for another tool, another query or another session. data: `rpcCode` (-32602). */
  | 'FOREIGN_CURSOR'
  /** A projection (fields to keep) that cannot be applied. data: none. */
  | 'INVALID_PROJECTION'
  /** A `fields` (or `field`) argument named a field no record has, or that this tool does not know (see `fieldsParameter`). data: `field`, `argument`, `allowed`, `rpcCode` (-32602). */
  | 'UNKNOWN_FIELD'
  /** A `fields` (or `field`) argument named a field that exists but the tool's allowlist leaves out. data: `field`, `argument`, `allowed`, `rpcCode` (-32602). */
  | 'FIELD_NOT_ALLOWED'
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
  /** A result handle issued to another session (with a shared state: another client's token). data: `fault`, `rpcCode` (-32602). */
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
  /** An OAuth login step failed (discovery, registration, the browser's redirect, the token request). data: `step`, `oauthError` (the server's error code), `url`. */
  | 'AUTH_FLOW'
  /** A server cannot be reached at all (no such command, nobody answering the URL). data: `upstream` or `url`, `errno`; `upstreams` (every name) when no gateway upstream can start. */
  | 'UNREACHABLE'
  /** A remote server answered with an HTTP status that is not a protocol answer. data: `status`, `bodyStart` (redacted), `tried` (transports). */
  | 'HTTP_STATUS'
  /** A remote server sent the client elsewhere where it will not follow: another origin (a redirect's Location, a legacy SSE endpoint event), more hops than allowed, or a redirect with no usable Location. data: `status` (null for an endpoint event), `from` and `to` (origins), `hops`, `limit`. */
  | 'REDIRECT_REFUSED'
  /** A model provider answered with an error (after retries), or not in its API's shape. data: `status` (when it answered), `attempts`, `raw`, `problems`, `url`. */
  | 'PROVIDER_ERROR'
  /** A provider needs an API key and the env variable named for it is unset. data: `variable`. */
  | 'MISSING_KEY'
  /** A scripted provider has no turn for this request. data: `requestHash`, `lastMessage`, and where the script came from. */
  | 'NO_SCRIPTED_TURN'
  /** A run stopped before a model call whose worst case would pass its spending cap (`--max-usd`). data: `spentUsd`, `worstCaseUsd`, `maxUsd`, `readTokens` (the most tokens the request can be billed for reading), `maxTokens`. */
  | 'BUDGET_STOP'
  /** A resumed run's inputs or settings are not the stopped run's. data: `differences` (each naming what differs, with both values), `file`. */
  | 'RESUME_MISMATCH'
  /** An optional package (better-sqlite3, a framework SDK, a model SDK) is not installed, or its native module did not load. data: `package`, `install` (the command that fixes it), `neededFor`. */
  | 'MISSING_DEPENDENCY'
  /** The gateway's shared state (`--state redis://...`) cannot be reached or did not answer in time. data: `state` (its URL without a password), `operation`, `errno`. */
  | 'STATE_UNAVAILABLE';

/** JSON-RPC 2.0 error codes mcpctx answers with: the specification's, and MCP's for a resource nobody lists. */
export const JSON_RPC_CODES = Object.freeze({
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  requestCancelled: -32800,
  resourceNotFound: -32002,
});

/** What every error's `data` may carry besides its code's own keys: the JSON-RPC error it is answered with over the wire. */
type WireData = {
  readonly rpcCode?: number;
  readonly rpcData?: unknown;
};

/**
 * The `data` of each code, key by key (the doc comment of each code above says what they mean).
 * A key is optional when some throw sites do not know it.
 */
export type McpctxErrorData = {
  USAGE: WireData & {
    variable?: string;
    /** INVALID_RECORDS or INVALID_ARGUMENT from a file the user gave: the keys of that error. */
    path?: string;
    id?: string;
    argument?: string;
    option?: string;
    value?: unknown;
    index?: number;
    reason?: string;
    limit?: number;
    length?: number;
    message?: number;
    missing?: unknown;
    which?: string;
    maxBytes?: number;
    previous?: unknown;
    file?: string;
    dir?: string;
    offset?: number;
    line?: number;
    column?: number;
    header?: string;
    capability?: string;
    host?: string;
    protocol?: string;
    transport?: string;
    problems?: readonly string[];
    what?: string;
    /** The budget given, as given (it may not be a number). */
    budgetMs?: unknown;
    maxBudgetMs?: number;
    unknown?: readonly string[];
    names?: readonly string[];
    points?: number;
  };
  SPAWN_FAILED: WireData & { command?: string; errno?: string };
  FRAME_TOO_LARGE: WireData & { limitBytes?: number; receivedBytes?: number; lineEnded?: boolean };
  DEADLINE: WireData & { budgetMs?: number; label?: string; waitingFor?: string; timeoutMs?: number; attempts?: number; raw?: unknown; status?: number };
  TRANSPORT_CLOSED: WireData & { exit?: unknown; stderrTail?: string; status?: number; sessionId?: string };
  PROTOCOL: WireData & {
    method?: string;
    page?: number;
    status?: number;
    contentType?: string | null;
    upstream?: string;
    missing?: unknown;
    resultType?: string;
    maxDepth?: number;
    chars?: number;
  };
  INVALID_FRAME: WireData & { offset?: number; lineBytes?: number; bodyBytes?: number; eventBytes?: number };
  RPC_ERROR: WireData & { method?: string; rpcMessage?: string };
  CURSOR_LOOP: WireData & { cursor?: unknown; page?: number };
  TOO_MANY_PAGES: WireData & { limit?: number; upstream?: string };
  TOO_MANY_TOOLS: WireData & { limit?: number; upstream?: string };
  TOO_MANY_NOTIFICATIONS: WireData & { limit?: number; method?: string };
  INVALID_CONFIG: WireData & { problems?: readonly unknown[]; file?: string | null; where?: string; upstream?: string; upstreams?: readonly string[]; header?: string; missing?: readonly string[]; name?: string };
  INVALID_RESULTS: WireData & { file?: string | null; line?: number; path?: string; field?: string };
  IO: WireData & { file?: string; dir?: string; which?: string; reason?: string; version?: number; seq?: number; quickCheck?: unknown; path?: string; step?: string | null };
  INVALID_CURSOR: WireData & { reason?: string };
  STALE_CURSOR: WireData & { revision?: string };
  FOREIGN_CURSOR: WireData;
  INVALID_PROJECTION: WireData;
  UNKNOWN_FIELD: WireData & { field: string; argument: string; allowed: readonly string[] };
  FIELD_NOT_ALLOWED: WireData & { field: string; argument: string; allowed: readonly string[] };
  INVALID_ARGUMENT: WireData & {
    argument?: string;
    option?: string;
    value?: unknown;
    index?: number;
    message?: number;
    missing?: unknown;
    limit?: number;
    reason?: string;
  };
  INVALID_RECORDS: WireData & { path?: string; id?: string; file?: string; which?: string; maxBytes?: number; previous?: unknown; length?: number; limit?: number };
  SOURCE_CHANGED: WireData & { file?: string; which?: string; expected?: string; actual?: string | null; previous?: unknown; current?: unknown };
  NESTING_TOO_DEEP: WireData & { limit?: number; what?: string; method?: string };
  OUTPUT_CONFLICT: WireData & { file?: string; name?: string };
  CATALOG_TOO_LARGE: WireData & { limitBytes?: number; receivedBytes?: number; page?: number };
  CANCELLED: WireData & { method?: string };
  LISTEN_FAILED: WireData & { host?: string; port?: number; errno?: string };
  INVALID_HANDLE: WireData & { fault?: string };
  FOREIGN_HANDLE: WireData & { fault?: string };
  EXPIRED: WireData & { fault?: string; what?: string };
  EVICTED: WireData & { fault?: string; what?: string };
  INVALID_QUERY: WireData;
  RESULT_TOO_LARGE: WireData;
  AUTH_REQUIRED: WireData & { status?: number; wwwAuthenticate?: string | null };
  AUTH_FLOW: WireData & { step?: string; oauthError?: string; url?: string };
  UNREACHABLE: WireData & { upstream?: string; upstreams?: readonly string[]; url?: string; errno?: string };
  HTTP_STATUS: WireData & { status?: number | null; bodyStart?: string; tried?: readonly string[] };
  REDIRECT_REFUSED: WireData & { status?: number | null; from?: string; to?: string; hops?: number; limit?: number };
  PROVIDER_ERROR: WireData & { status?: number; attempts?: number; raw?: unknown; problems?: readonly string[]; url?: string };
  MISSING_KEY: WireData & { variable?: string; env?: string };
  NO_SCRIPTED_TURN: WireData & { requestHash?: string; lastMessage?: unknown; file?: string };
  BUDGET_STOP: WireData & { spentUsd?: number; worstCaseUsd?: number; maxUsd?: number; readTokens?: number; maxTokens?: number };
  RESUME_MISMATCH: WireData & { differences?: readonly string[]; file?: string };
  MISSING_DEPENDENCY: WireData & { package?: string; install?: string; neededFor?: string };
  STATE_UNAVAILABLE: WireData & { state?: string; operation?: string; errno?: string };
};

type DataKey = { [C in McpctxErrorCode]: keyof McpctxErrorData[C] }[McpctxErrorCode];
type DataValue<K extends DataKey> = { [C in McpctxErrorCode]: K extends keyof McpctxErrorData[C] ? McpctxErrorData[C][K] : never }[McpctxErrorCode];

/** What `data` may hold whatever the code: every key some code documents, with the types it has there. */
export type McpctxErrorDetails = { readonly [K in DataKey]?: DataValue<K> };

// A class expression named McpctxError (its name shows in stacks and inspect), exported below
// through a construct signature that types `data` by the code given.
const McpctxErrorClass = class McpctxError extends Error {
  readonly code: McpctxErrorCode;
  readonly data: McpctxErrorDetails;

  constructor(code: McpctxErrorCode, message: string, data: McpctxErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpctxError';
    this.code = code;
    this.data = data;
  }
};

/** The one error class; `data` at a throw site is checked against its code's keys (`McpctxErrorData`). */
export type McpctxError = InstanceType<typeof McpctxErrorClass>;
export const McpctxError: {
  new <C extends McpctxErrorCode>(code: C, message: string, data?: McpctxErrorData[C], options?: { cause?: unknown }): McpctxError;
  readonly prototype: McpctxError;
} = McpctxErrorClass;

export function isMcpctxError(value: unknown, code?: McpctxErrorCode): value is McpctxError {
  return value instanceof McpctxError && (code === undefined || value.code === code);
}
