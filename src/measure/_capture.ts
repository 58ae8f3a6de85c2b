import { type McpctxError } from '../errors/index.js';
import { bearerForRemote } from '../auth/index.js';
import {
  listAllTools,
  runServer,
  type BearerResolver,
  type InitializeOutcome,
  type LaunchSpec,
  type RemoteDiagnostics,
  type RemoteSpec,
  type ServerDiagnostics,
  type StdioTransportOptions,
} from '../mcp/index.js';
import { warmUpTokenizer } from '../tokens/index.js';
import { catalogCost, type CatalogCost } from './_catalog-cost.js';

export interface CaptureOptions {
  /** A command to launch over stdio, or a URL to reach over HTTP. */
  launch: LaunchSpec | RemoteSpec;
  /** Where a remote server's header values are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  /** One budget for start, initialize, every tools/list page and the counting. */
  timeoutMs: number;
  maxPages?: number;
  maxTools?: number;
  transport?: StdioTransportOptions;
  /** Where a remote server's stored OAuth login comes from; default the logins of `mcpctx auth login`. */
  bearerFor?: BearerResolver;
}

export interface CaptureTimings {
  startMs: number;
  /**
   * From sending `initialize` to reading its answer. The first capture of a process loads the
   * tokenizer meanwhile, in two steps of about 130 ms: an answer that comes during one is read
   * when it ends, so a server that answers sooner than that shows up to a step longer.
   */
  initializeMs: number;
  listMs: number;
  /** Counting the catalog's tokens (inside the budget). */
  countMs: number;
  closeMs: number;
  totalMs: number;
}

/** What one launch of the server gave: the catalog and its cost, or the error that stopped it, plus diagnostics. */
export interface Capture extends ServerDiagnostics {
  initialize?: InitializeOutcome;
  tools?: unknown[];
  /** The cost of `tools` (with the instructions), counted on the bytes as they came. */
  cost?: CatalogCost;
  pageCount?: number;
  error?: McpctxError;
  /** Which step the error happened in. */
  failedStep?: 'start' | 'initialize' | 'tools/list' | 'counting';
  timings: CaptureTimings;
  /** For a remote server: the transport used, and headers left out. */
  remote?: RemoteDiagnostics;
}

/**
 * Launches the server once (or opens one session with a remote server), initializes, lists every tool, counts the catalog, and always shuts it
 * down. The counting runs within the same budget as the rest: a catalog that cannot be counted in
 * time ends as a `DEADLINE` error at step `counting`. Whatever the server sent, this returns.
 */
export async function captureCatalog(options: CaptureOptions): Promise<Capture> {
  let step: 'tools/list' | 'counting' = 'tools/list';
  let listMs = 0;
  let countMs = 0;
  const run = await runServer(
    { ...options, bearerFor: options.bearerFor ?? bearerForRemote({ env: options.env }), label: 'measurement', whileStarting: () => void warmUpTokenizer() },
    async (client, deadline, handshake) => {
      const mark = performance.now();
      const pages = await listAllTools(client, { deadline, maxPages: options.maxPages, maxTools: options.maxTools });
      listMs = elapsedSince(mark);
      return { pages, instructions: handshake.instructions ?? null };
    },
    // Counted while the server exits: nothing more is needed from it.
    ({ pages, instructions }, deadline) => {
      const mark = performance.now();
      step = 'counting';
      const cost = catalogCost(pages.tools, instructions, { shouldStop: () => deadline.expired });
      countMs = elapsedSince(mark);
      if (!cost) throw deadline.error("the catalog's token count");
      return { ...pages, cost };
    },
  );
  const { value, initialize, error, failedStep, timings } = run;
  const capturedFailedStep: Capture['failedStep'] = failedStep === 'work' ? step : failedStep;
  const cost = value?.cost;
  return {
    ...(initialize ? { initialize } : {}),
    ...(value && cost && !error ? { tools: value.tools, pageCount: value.pageCount, cost } : {}),
    ...(error ? { error } : {}),
    ...(error && capturedFailedStep ? { failedStep: capturedFailedStep } : {}),
    exit: run.exit,
    endedOnItsOwn: run.endedOnItsOwn,
    stderrTail: run.stderrTail,
    stderrBytes: run.stderrBytes,
    nonJsonLines: run.nonJsonLines,
    strayResponses: run.strayResponses,
    ...(run.remote ? { remote: run.remote } : {}),
    timings: {
      startMs: timings.startMs,
      initializeMs: timings.initializeMs,
      listMs,
      countMs,
      closeMs: timings.closeMs,
      totalMs: timings.totalMs,
    },
  };
}

function elapsedSince(mark: number): number {
  return Math.round((performance.now() - mark) * 10) / 10;
}
