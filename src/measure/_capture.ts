import { McpctxError } from '../errors/index.js';
import {
  BoundedStdioTransport,
  Deadline,
  RawClient,
  initialize,
  listAllTools,
  type ExitStatus,
  type InitializeOutcome,
  type LaunchSpec,
  type NonJsonLines,
  type StdioTransportOptions,
  type StrayResponses,
} from '../mcp/index.js';

export interface CaptureOptions {
  launch: LaunchSpec;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  /** One budget for start, initialize and every tools/list page. */
  timeoutMs: number;
  maxPages?: number;
  maxTools?: number;
  transport?: StdioTransportOptions;
}

export interface CaptureTimings {
  startMs: number;
  initializeMs: number;
  listMs: number;
  closeMs: number;
  totalMs: number;
}

/** What one launch of the server gave: the catalog, or the error that stopped it, plus diagnostics. */
export interface Capture {
  initialize?: InitializeOutcome;
  tools?: unknown[];
  pageCount?: number;
  error?: McpctxError;
  /** Which step the error happened in. */
  failedStep?: 'start' | 'initialize' | 'tools/list';
  /** How the server process ended (after our shutdown, when it had not ended by itself). */
  exit: ExitStatus;
  /** True when the server exited or closed its output before we shut it down. */
  endedOnItsOwn: boolean;
  stderrTail: string;
  stderrBytes: number;
  nonJsonLines: NonJsonLines;
  strayResponses: StrayResponses;
  timings: CaptureTimings;
}

/** Launches the server once, initializes, lists every tool, and always shuts it down. */
export async function captureCatalog(options: CaptureOptions): Promise<Capture> {
  const startedAt = performance.now();
  const transport = new BoundedStdioTransport(options.launch, options.transport);
  const client = new RawClient(transport, { rootsDeclared: 'roots' in options.clientCapabilities });
  const deadline = new Deadline(options.timeoutMs, 'measurement');
  const timings: CaptureTimings = { startMs: 0, initializeMs: 0, listMs: 0, closeMs: 0, totalMs: 0 };
  const capture: Partial<Capture> = {};
  let step: NonNullable<Capture['failedStep']> = 'start';
  let mark = startedAt;
  const lap = (): number => {
    const now = performance.now();
    const elapsed = round(now - mark);
    mark = now;
    return elapsed;
  };
  try {
    await client.start();
    timings.startMs = lap();
    step = 'initialize';
    capture.initialize = await initialize(client, {
      protocolVersion: options.protocolVersion,
      capabilities: options.clientCapabilities,
      deadline,
    });
    timings.initializeMs = lap();
    step = 'tools/list';
    const pages = await listAllTools(client, { deadline, maxPages: options.maxPages, maxTools: options.maxTools });
    timings.listMs = lap();
    capture.tools = pages.tools;
    capture.pageCount = pages.pageCount;
  } catch (error) {
    capture.error = asError(error);
    capture.failedStep = step;
    lap();
  }
  const endedOnItsOwn = transport.exit !== undefined || capture.error?.code === 'TRANSPORT_CLOSED';
  const exit = await transport.shutdown();
  timings.closeMs = lap();
  timings.totalMs = round(performance.now() - startedAt);
  return {
    ...capture,
    exit,
    endedOnItsOwn,
    stderrTail: transport.stderrTail,
    stderrBytes: transport.stderrBytes,
    nonJsonLines: transport.nonJsonLines,
    strayResponses: client.strayResponses,
    timings,
  };
}

function asError(error: unknown): McpctxError {
  if (error instanceof McpctxError) return error;
  return new McpctxError('IO', error instanceof Error ? error.message : String(error), {}, { cause: error });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
