import { type McpctxError } from '../errors/index.js';
import type { Deadline } from './_deadline.js';
import type { LaunchSpec } from './_launch.js';
import { RawClient, declaredAnswers, type RawClientOptions, type RequestOptions, type StrayResponses } from './_raw-client.js';
import { DEFAULT_PROTOCOL_VERSION, initialize, type InitializeOutcome } from './_session.js';
import { BoundedStdioTransport, type ExitStatus, type NonJsonLines, type StdioTransportOptions } from './_stdio-transport.js';

export interface ServerSessionOptions
  extends Pick<
    RawClientOptions,
    'onNotification' | 'onServerRequest' | 'maxConcurrentServerRequests' | 'maxUnsolicitedPerRequest' | 'writeTimeoutMs' | 'maxJsonDepth'
  > {
  launch: LaunchSpec;
  transport?: StdioTransportOptions;
  /** Default 2025-11-25. */
  protocolVersion?: string;
  /** The client capabilities object sent in `initialize`; `{}` by default. */
  capabilities?: Record<string, unknown>;
  clientInfo?: { name: string; version: string };
  /** Called once when the connection ends, whoever ended it, with the reason. */
  onClose?: (reason: McpctxError) => void;
}

/** How the server behaved while it ran, whatever the work gave. */
export interface ServerDiagnostics {
  /** How the server process ended (after our shutdown, when it had not ended by itself). */
  exit: ExitStatus;
  /** True when the server exited or closed its output before we shut it down. */
  endedOnItsOwn: boolean;
  stderrTail: string;
  stderrBytes: number;
  nonJsonLines: NonJsonLines;
  strayResponses: StrayResponses;
}

/**
 * One server over stdio for as long as the caller needs it: started and initialized by `open`,
 * then any number of requests in flight at once, notifications handed to `onNotification`,
 * server-to-client requests (sampling, elicitation, roots) handed to `onServerRequest` instead of
 * being refused, every write under a deadline; `close` ends the server and everything it started.
 */
export class ServerSession {
  readonly client: RawClient;
  private readonly transport: BoundedStdioTransport;
  private readonly options: ServerSessionOptions;
  private handshake: InitializeOutcome | undefined;
  private ending: McpctxError | undefined;
  private endedBeforeClose: boolean | undefined;

  constructor(options: ServerSessionOptions) {
    this.options = options;
    this.transport = new BoundedStdioTransport(options.launch, options.transport);
    const capabilities = options.capabilities ?? {};
    this.client = new RawClient(this.transport, {
      ...declaredAnswers(capabilities),
      onNotification: options.onNotification,
      onServerRequest: options.onServerRequest,
      maxConcurrentServerRequests: options.maxConcurrentServerRequests,
      maxUnsolicitedPerRequest: options.maxUnsolicitedPerRequest,
      writeTimeoutMs: options.writeTimeoutMs,
      maxJsonDepth: options.maxJsonDepth,
      onClose: (reason) => {
        this.ending ??= reason;
        options.onClose?.(reason);
      },
    });
  }

  /** Starts the server process. SPAWN_FAILED when it cannot start. */
  start(): Promise<void> {
    return this.client.start();
  }

  /** The `initialize` handshake, within `deadline`. */
  async initialize(deadline: Deadline): Promise<InitializeOutcome> {
    this.handshake = await initialize(this.client, {
      protocolVersion: this.options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION,
      capabilities: this.options.capabilities ?? {},
      clientInfo: this.options.clientInfo,
      deadline,
    });
    return this.handshake;
  }

  /** `start` then `initialize`, within one deadline. On failure the server is shut down before the error is thrown. */
  async open(deadline: Deadline): Promise<InitializeOutcome> {
    try {
      await this.start();
      return await this.initialize(deadline);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** What the server answered to `initialize`, once it has. */
  get initialized(): InitializeOutcome | undefined {
    return this.handshake;
  }

  /** Why the connection ended, once it has (the server exited, closed its output, or sent a bad frame). */
  get ended(): McpctxError | undefined {
    return this.ending;
  }

  request(method: string, params: Record<string, unknown> | undefined, deadline: Deadline, options?: RequestOptions): Promise<unknown> {
    return this.client.request(method, params, deadline, options);
  }

  notify(method: string, params?: Record<string, unknown>, deadline?: Deadline): Promise<void> {
    return this.client.notify(method, params, deadline);
  }

  get pid(): number | undefined {
    return this.transport.pid;
  }

  /** Ends the server: stdin closed, then SIGTERM and SIGKILL to its group and every process it started. Idempotent. */
  close(): Promise<ExitStatus> {
    // A write that met EPIPE means the server had already gone, even if its exit is not reported yet.
    this.endedBeforeClose ??= this.transport.exit !== undefined || this.transport.inputClosedByServer || this.ending?.code === 'TRANSPORT_CLOSED';
    return this.transport.shutdown();
  }

  /** The server's behaviour: how it exited (after `close`, which it awaits) and what it wrote on the way. */
  async diagnostics(): Promise<ServerDiagnostics> {
    const exit = await this.close();
    return {
      exit,
      endedOnItsOwn: this.endedBeforeClose ?? false,
      stderrTail: this.transport.stderrTail,
      stderrBytes: this.transport.stderrBytes,
      nonJsonLines: this.transport.nonJsonLines,
      strayResponses: this.client.strayResponses,
    };
  }
}
