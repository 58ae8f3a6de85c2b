import type { CursorCodec } from '../../shape/index.js';
import type { GatewayConfig, ResolvedUpstream } from '../config/index.js';
import type { ReceiptSink } from '../receipts/index.js';
import type { ResultShaper } from '../results/index.js';
import type { PinStore, ScanGate, SchemaCache } from '../trust/index.js';
import type { TaskRoutes } from '../tasks/index.js';
import type { Upstream } from '../upstream/index.js';
import type { JsonObject } from '../../json/index.js';
import { JsonRpcError } from '../../mcp/index.js';

export type MethodResult = JsonObject;

/** What every session of one gateway shares. */
export interface SessionServices {
  readonly config: GatewayConfig;
  /** The upstreams each session connects to: those that could be started. */
  readonly upstreams: readonly ResolvedUpstream[];
  /** The config's upstreams that could not be started, by name, and why: listed as unavailable, their calls refused. */
  readonly unavailable: ReadonlyMap<string, string>;
  readonly shaper: ResultShaper;
  readonly receipts: ReceiptSink | undefined;
  /** Signs the gateway's own `tools/list` page cursors. */
  readonly listCodec: CursorCodec;
  /** Compiled tool `inputSchema`s, shared by every session's argument checks. */
  readonly argumentSchemas: SchemaCache;
  readonly timeouts: { readonly startupMs: number; readonly requestMs: number; readonly clientRequestMs: number };
  /** One line on the gateway's stderr. */
  readonly log: (line: string) => void;
  /** One line on the gateway's stderr, unless this gateway said it already (whatever the session): findings about the config itself. */
  readonly logOnce: (line: string) => void;
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Handles and cursors are bound to the client's credential rather than its session (the offload store is shared by instances). */
  readonly shareResults?: boolean;
  /** Tool pins (config `pin`): only trusted tools are listed and called. */
  readonly pins: PinStore | undefined;
  /** The poisoning scan of listed definitions (config `scan`). */
  readonly scanGate: ScanGate;
}

/** What the method handlers of one session see of it. */
export interface SessionContext {
  readonly sessionId: string;
  /**
   * What the session's result handles and page cursors are bound to: the session itself; with a
   * shared state (`shareResults`), the client's credential, so a client that opens a new session
   * on another instance (its first one's instance died) keeps reading what it was handed.
   */
  readonly resultOwner: string;
  readonly services: SessionServices;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  /** Which upstream created each task id the client holds (task-augmented tools/call). */
  readonly tasks: TaskRoutes;
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

/** The upstream a call goes to, or a failure naming why it cannot serve. */
export function liveUpstream(context: SessionContext, name: string): Upstream {
  const upstream = context.upstreams.get(name);
  if (!upstream) throw new JsonRpcError(-32602, `no upstream is called ${JSON.stringify(name)}`);
  if (upstream.failure) throw upstream.failure;
  return upstream;
}
