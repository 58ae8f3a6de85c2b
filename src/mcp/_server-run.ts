import { McpctxError } from '../errors/index.js';
import { Deadline } from './_deadline.js';
import type { LaunchSpec } from './_launch.js';
import type { RawClient } from './_raw-client.js';
import { RemoteSession, isRemoteSpec, type BearerResolver, type RemoteDiagnostics, type RemoteSpec } from './_remote.js';
import { ServerSession, type ServerDiagnostics } from './_server-session.js';
import type { InitializeOutcome } from './_session.js';
import type { StdioTransportOptions } from './_stdio-transport.js';

export interface ServerRunOptions {
  /** A command to launch over stdio, or a URL to reach over HTTP. */
  launch: LaunchSpec | RemoteSpec;
  /** Where a remote server's header values are read (RemoteSpec.headers names variables); default process.env. */
  env?: NodeJS.ProcessEnv;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  /** One budget for start, initialize and all of the work. */
  timeoutMs: number;
  /** Names the operation in a deadline error ("measurement exceeded its 30000 ms budget ..."). */
  label: string;
  /** For a remote server: where a stored OAuth login comes from (src/auth's `bearerForRemote`). */
  bearerFor?: BearerResolver;
  /** For stdio; of these, a remote server takes only `maxFrameBytes`. */
  transport?: StdioTransportOptions;
  /**
   * Called once `initialize` is sent, before its answer is awaited: set-up of the caller's own
   * (loading the tokenizer) then overlaps the server's start-up in its own process instead of
   * adding to it. An answer that arrives while it blocks the event loop is read when it yields.
   */
  whileStarting?: () => void;
}

export interface ServerRunTimings {
  startMs: number;
  initializeMs: number;
  workMs: number;
  closeMs: number;
  totalMs: number;
}

/** What one launch of the server gave: the work's value, or the error that stopped it, plus diagnostics. */
export interface ServerRun<T> extends ServerDiagnostics {
  initialize?: InitializeOutcome;
  value?: T;
  error?: McpctxError;
  /** Which step the error happened in. */
  failedStep?: 'start' | 'initialize' | 'work';
  timings: ServerRunTimings;
  /** For a remote server: the transport used, and headers left out. */
  remote?: RemoteDiagnostics;
}

/**
 * Launches the server once over the bounded stdio transport (or opens a session over HTTP),
 * initializes it through the raw client, runs `work` within the same deadline, and always shuts
 * the server (its whole process group) down or ends the session, whatever happened. Never throws
 * for the server's faults: they come back as `error`.
 *
 * `whileClosing`, when given, turns the work's value into the run's value while the server shuts
 * down: the server is told to stop first, so its exit (tens of ms) overlaps work of the caller's own
 * that needs nothing more from it (counting what it sent). It runs within the same deadline; what
 * it throws is the run's `error`, at step `work`.
 */
export function runServer<T>(
  options: ServerRunOptions,
  work: (client: RawClient, deadline: Deadline, handshake: InitializeOutcome) => Promise<T>,
): Promise<ServerRun<T>>;
export function runServer<T, R>(
  options: ServerRunOptions,
  work: (client: RawClient, deadline: Deadline, handshake: InitializeOutcome) => Promise<T>,
  whileClosing: (value: T, deadline: Deadline) => R,
): Promise<ServerRun<R>>;
export async function runServer<T, R>(
  options: ServerRunOptions,
  work: (client: RawClient, deadline: Deadline, handshake: InitializeOutcome) => Promise<T>,
  whileClosing?: (value: T, deadline: Deadline) => R,
): Promise<ServerRun<T | R>> {
  const startedAt = performance.now();
  const launch = options.launch;
  const session = isRemoteSpec(launch)
    ? new RemoteSession({
        remote: launch,
        env: options.env,
        protocolVersion: options.protocolVersion,
        capabilities: options.clientCapabilities,
        maxFrameBytes: options.transport?.maxFrameBytes,
        bearerFor: options.bearerFor,
      })
    : new ServerSession({
        launch,
        transport: options.transport,
        protocolVersion: options.protocolVersion,
        capabilities: options.clientCapabilities,
      });
  const deadline = new Deadline(options.timeoutMs, options.label);
  const timings: ServerRunTimings = { startMs: 0, initializeMs: 0, workMs: 0, closeMs: 0, totalMs: 0 };
  const run: Partial<ServerRun<T | R>> = {};
  let step: NonNullable<ServerRun<T>['failedStep']> = 'start';
  let mark = startedAt;
  const lap = (): number => {
    const now = performance.now();
    const elapsed = round(now - mark);
    mark = now;
    return elapsed;
  };
  try {
    await session.start();
    timings.startMs = lap();
    step = 'initialize';
    const answer = session.initialize(deadline);
    options.whileStarting?.();
    const handshake = await answer;
    run.initialize = handshake;
    timings.initializeMs = lap();
    step = 'work';
    run.value = await work(session.client, deadline, handshake);
    timings.workMs = lap();
  } catch (error) {
    run.error = asError(error);
    run.failedStep = step;
    lap();
  }
  const closing = session.diagnostics();
  // Awaited below; a failure meanwhile must not count as unhandled.
  closing.catch(() => {});
  if (whileClosing && !run.error) {
    // One turn of the event loop first, so the end of the server's input is on its way before
    // the synchronous work starts.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      run.value = whileClosing(run.value as T, deadline);
    } catch (error) {
      delete run.value;
      run.error = asError(error);
      run.failedStep = step;
    }
    timings.workMs = round(timings.workMs + lap());
  }
  const diagnostics = await closing;
  timings.closeMs = lap();
  timings.totalMs = round(performance.now() - startedAt);
  return { ...run, ...diagnostics, timings };
}

function asError(error: unknown): McpctxError {
  if (error instanceof McpctxError) return error;
  return new McpctxError('IO', error instanceof Error ? error.message : String(error), {}, { cause: error });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
