import { McpctxError } from '../errors/index.js';
import {
  listAllTools,
  runServer,
  type InitializeOutcome,
  type LaunchSpec,
  type ServerDiagnostics,
  type StdioTransportOptions,
} from '../mcp/index.js';
import { countTokensStoppable, nestsDeeperThan } from '../tokens/index.js';
import { catalogCost, nestingError, refuseDeepNesting, withInstructions, type CatalogCost } from './_catalog-cost.js';

export interface CaptureOptions {
  launch: LaunchSpec;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  /** One budget for start, initialize, every tools/list page and the counting. */
  timeoutMs: number;
  maxPages?: number;
  maxTools?: number;
  transport?: StdioTransportOptions;
}

export interface CaptureTimings {
  startMs: number;
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
}

/**
 * Launches the server once, initializes, lists every tool, counts the catalog, and always shuts it
 * down. The counting runs within the same budget as the rest: a catalog that cannot be counted in
 * time ends as a `DEADLINE` error at step `counting`. Whatever the server sent, this returns.
 */
export async function captureCatalog(options: CaptureOptions): Promise<Capture> {
  let step: 'tools/list' | 'counting' = 'tools/list';
  let listMs = 0;
  let countMs = 0;
  const run = await runServer({ ...options, label: 'measurement' }, async (client, deadline) => {
    let mark = performance.now();
    const pages = await listAllTools(client, { deadline, maxPages: options.maxPages, maxTools: options.maxTools });
    refuseDeepNesting(pages.tools, 'the tools/list result');
    listMs = elapsedSince(mark);
    mark = performance.now();
    step = 'counting';
    const cost = catalogCost(pages.tools, null, { shouldStop: () => deadline.expired });
    countMs = elapsedSince(mark);
    if (!cost) throw deadline.error("the catalog's token count");
    return { ...pages, cost };
  });
  const { value, failedStep, timings } = run;
  let error = run.error;
  let initialize = run.initialize;
  let capturedFailedStep: Capture['failedStep'] = failedStep === 'work' ? step : failedStep;
  // The handshake is kept in the file: nothing recursive may touch it if it nests too deep.
  if (initialize && nestsDeeperThan(initialize.result)) {
    initialize = undefined;
    if (!error) {
      error = nestingError('the initialize result');
      capturedFailedStep = 'initialize';
    }
  }
  let cost = value?.cost;
  if (cost && !error) {
    // runServer gives the work no handshake, so the instructions are counted here, on what is
    // left of the same budget (start, initialize and the work spent the rest).
    const mark = performance.now();
    const endsAt = mark + options.timeoutMs - (timings.startMs + timings.initializeMs + timings.workMs);
    const instructions = initialize?.instructions;
    const instructionsTokens = instructions === undefined ? 0 : countTokensStoppable(instructions, { shouldStop: () => performance.now() >= endsAt });
    countMs += elapsedSince(mark);
    if (instructionsTokens === undefined) {
      cost = undefined;
      error = new McpctxError('DEADLINE', `measurement exceeded its ${options.timeoutMs} ms budget while counting the server's instructions`, {
        budgetMs: options.timeoutMs,
        label: 'measurement',
        waitingFor: "the instructions' token count",
      });
      capturedFailedStep = 'counting';
    } else {
      cost = withInstructions(cost, instructionsTokens);
    }
  }
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
