import { type McpctxError } from '../errors/index.js';
import {
  listAllTools,
  runServer,
  type InitializeOutcome,
  type LaunchSpec,
  type ServerDiagnostics,
  type StdioTransportOptions,
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
export interface Capture extends ServerDiagnostics {
  initialize?: InitializeOutcome;
  tools?: unknown[];
  pageCount?: number;
  error?: McpctxError;
  /** Which step the error happened in. */
  failedStep?: 'start' | 'initialize' | 'tools/list';
  timings: CaptureTimings;
}

/** Launches the server once, initializes, lists every tool, and always shuts it down. */
export async function captureCatalog(options: CaptureOptions): Promise<Capture> {
  const run = await runServer({ ...options, label: 'measurement' }, (client, deadline) =>
    listAllTools(client, { deadline, maxPages: options.maxPages, maxTools: options.maxTools }),
  );
  const { initialize, value: pages, error, failedStep, timings } = run;
  return {
    ...(initialize ? { initialize } : {}),
    ...(pages ? { tools: pages.tools, pageCount: pages.pageCount } : {}),
    ...(error ? { error } : {}),
    ...(failedStep ? { failedStep: failedStep === 'work' ? 'tools/list' : failedStep } : {}),
    exit: run.exit,
    endedOnItsOwn: run.endedOnItsOwn,
    stderrTail: run.stderrTail,
    stderrBytes: run.stderrBytes,
    nonJsonLines: run.nonJsonLines,
    strayResponses: run.strayResponses,
    timings: {
      startMs: timings.startMs,
      initializeMs: timings.initializeMs,
      listMs: timings.workMs,
      closeMs: timings.closeMs,
      totalMs: timings.totalMs,
    },
  };
}
