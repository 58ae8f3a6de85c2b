import { McpctxError, isMcpctxError } from '../../errors/index.js';
import {
  BoundedStdioTransport,
  type BearerSource,
  type Deadline,
  HttpClientTransport,
  hasAuthorizationHeader,
  LegacySseClientTransport,
  RawClient,
  type ServerNotification,
  type ServerRequest,
} from '../../mcp/index.js';
import { isPlainObject, type JsonObject } from '../../json/index.js';
import type { ResolvedUpstream } from '../config/index.js';
import { bearerForRemote } from '../../auth/index.js';

export interface UpstreamEvents {
  onNotification(upstream: Upstream, notification: ServerNotification): void;
  /** Answers a request the upstream sent (sampling, elicitation, roots, ping): relayed to the client. */
  onServerRequest(upstream: Upstream, request: ServerRequest): Promise<unknown>;
  /** The connection ended by itself (the server exited, closed its output, broke a bound). */
  onEnded(upstream: Upstream, reason: McpctxError): void;
}

/**
 * One upstream MCP server for one client session: a raw JSON-RPC client over the bounded stdio
 * transport or streamable HTTP, initialized with the client's own `initialize` params so the
 * server sees the client's capabilities, and every answer handed back exactly as parsed.
 */
export class Upstream {
  readonly name: string;
  private readonly client: RawClient;
  private readonly stdio: BoundedStdioTransport | undefined;
  private initializeResult: JsonObject | undefined;
  private started: Promise<void> | undefined;
  private ending: McpctxError | undefined;
  private closing = false;
  private settled: Promise<void> | undefined;
  /** settleEnding, then the session told: what a failed request waits for before it names the cause. */
  private settling: Promise<void> | undefined;
  /** Client requests being served by this upstream, newest last: what a stray notification most likely belongs to. */
  private readonly serving: (string | number)[] = [];

  constructor(spec: ResolvedUpstream, events: UpstreamEvents) {
    this.name = spec.name;
    const transport =
      spec.kind === 'stdio'
        ? new BoundedStdioTransport(spec.launch)
        : spec.transport === 'sse'
          ? new LegacySseClientTransport({ url: spec.url, headers: spec.resolvedHeaders, bearer: bearerOf(spec) })
          : new HttpClientTransport({ url: spec.url, headers: spec.resolvedHeaders, bearer: bearerOf(spec) });
    this.stdio = transport instanceof BoundedStdioTransport ? transport : undefined;
    this.client = new RawClient(transport, {
      onNotification: (notification) => events.onNotification(this, notification),
      onServerRequest: (request) => events.onServerRequest(this, request),
      onClose: (reason) => {
        if (this.closing) return;
        this.ending ??= this.describeEnding(reason);
        this.settling ??= this.settleEnding(reason).then(() => events.onEnded(this, this.ending as McpctxError));
      },
    });
  }

  /**
   * Starts the server process (nothing to open for HTTP) without initializing it. The session
   * calls it as soon as it exists, so a server boots while the client's `initialize` is on its way
   * and the gateway's own set-up runs; `connect` waits for it. Idempotent; a failure is `connect`'s.
   */
  start(): Promise<void> {
    this.started ??= this.client.start();
    return this.started;
  }

  /** Starts the server (or opens the HTTP connection) if `start` has not, and sends the client's `initialize`; the raw result. */
  async connect(initializeParams: JsonObject | undefined, deadline: Deadline): Promise<JsonObject> {
    try {
      await this.start();
      const result = await this.client.request('initialize', initializeParams, deadline);
      if (!isPlainObject(result)) throw new McpctxError('PROTOCOL', `${this.name} answered initialize with something that is not an object`);
      this.initializeResult = result;
      return result;
    } catch (error) {
      const reason = isMcpctxError(error) ? error : new McpctxError('PROTOCOL', String(error));
      if (isMcpctxError(reason, 'TRANSPORT_CLOSED')) await this.settleEnding(reason);
      this.ending ??= this.describeEnding(reason);
      throw this.ending;
    }
  }

  get initialized(): JsonObject | undefined {
    return this.initializeResult;
  }

  get capabilities(): JsonObject {
    const capabilities = this.initializeResult?.capabilities;
    return isPlainObject(capabilities) ? capabilities : {};
  }

  /** Why the upstream can no longer serve, once it cannot. */
  get failure(): McpctxError | undefined {
    return this.ending;
  }

  /** The client request this upstream most recently started serving and still serves. */
  get latestServed(): string | number | undefined {
    return this.serving.at(-1);
  }

  async request(
    method: string,
    params: JsonObject | undefined,
    deadline: Deadline,
    options: { signal?: AbortSignal; clientRequestId?: string | number } = {},
  ): Promise<unknown> {
    if (this.ending) throw this.ending;
    const served = options.clientRequestId;
    if (served !== undefined) this.serving.push(served);
    try {
      return await this.client.request(method, params, deadline, { signal: options.signal });
    } catch (error) {
      // A request that failed because the connection ended names why it ended (exit, stderr tail).
      if (this.ending && isMcpctxError(error, 'TRANSPORT_CLOSED')) {
        await this.settling;
        throw this.ending;
      }
      throw error;
    } finally {
      if (served !== undefined) {
        const at = this.serving.lastIndexOf(served);
        if (at !== -1) this.serving.splice(at, 1);
      }
    }
  }

  async notify(method: string, params: JsonObject | undefined): Promise<void> {
    if (this.ending) return;
    await this.client.notify(method, params);
  }

  /** Ends the server and everything it started (stdio), or the HTTP session. Idempotent. */
  async close(): Promise<void> {
    this.closing = true;
    this.ending ??= new McpctxError('TRANSPORT_CLOSED', `${this.name} was closed by the gateway`);
    await this.client.close();
  }

  /**
   * A server that dies closes its output a moment before its exit status is known: close the
   * transport (bounded: it ends what is left of the process group) to learn it, so the failure
   * names the exit code, not only the closed pipe. Once per upstream.
   */
  private settleEnding(reason: McpctxError): Promise<void> {
    this.settled ??= (async () => {
      if (!this.stdio) return;
      await this.client.close().catch(() => {});
      this.ending = this.describeEnding(reason);
    })();
    return this.settled;
  }

  private describeEnding(reason: McpctxError): McpctxError {
    const tail = this.stdio?.stderrTail.trim().split('\n').slice(-3).join(' | ');
    const exit = this.stdio?.exit;
    const how = exit ? ` (exit ${exit.code ?? exit.signal ?? 'unknown'})` : '';
    const said = tail ? `; its last stderr: ${tail.slice(-500)}` : '';
    return new McpctxError(reason.code, `upstream ${this.name} ended${how}: ${reason.message}${said}`, {
      ...reason.data,
      upstream: this.name,
    });
  }
}

const storedLogins = bearerForRemote();

/** The stored OAuth login of an HTTP upstream, unless it sends its own Authorization header or says `auth: none`. */
function bearerOf(spec: Extract<ResolvedUpstream, { kind: 'http' }>): BearerSource | undefined {
  if (hasAuthorizationHeader(spec.resolvedHeaders)) return undefined;
  return storedLogins({ url: spec.url, ...(spec.auth === undefined ? {} : { auth: spec.auth }) });
}
