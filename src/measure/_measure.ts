import { McpctxError } from '../errors/index.js';
import {
  DEFAULT_PROTOCOL_VERSION,
  MIN_CAPTURE_SECRET_CHARS,
  Redactor,
  checkBudgetMs,
  clientCapabilitiesFor,
  passedEnvNames,
  type LaunchSpec,
  type StdioTransportOptions,
} from '../mcp/index.js';
import { TOKENIZER } from '../tokens/index.js';
import { captureCatalog, type Capture, type CaptureTimings } from './_capture.js';
import { catalogCost, type CatalogCost } from './_catalog-cost.js';
import { classifyFailure, type MeasurementStatus } from './_status.js';

export const METHODOLOGY = 'mcpctx-catalog/v1';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RUNS = 2;

export interface MeasureOptions {
  /** Label of the server in tables and file names. */
  name: string;
  launch: LaunchSpec;
  /** Client capabilities to declare by name; none by default (`{}`). */
  capabilities?: readonly string[];
  protocolVersion?: string;
  /** One budget per capture for start, initialize and all tools/list pages. Default 30,000 ms. */
  timeoutMs?: number;
  /** Captures to compare; differing catalogs make the status `dynamic`. Default 2. */
  runs?: number;
  maxPages?: number;
  maxTools?: number;
  transport?: StdioTransportOptions;
  /** Injected clock for `measuredAt` (tests). */
  now?: () => Date;
}

export interface AttemptSummary {
  outcome: 'captured' | 'failed';
  toolCount?: number;
  totalTokens?: number;
  canonicalSha256?: string;
  pageCount?: number;
  error?: { code: string; message: string };
  timings: CaptureTimings;
}

/** The published record of one measurement (`measurement.json`); field names are part of the contract. */
export interface Measurement {
  methodology: typeof METHODOLOGY;
  name: string;
  status: MeasurementStatus;
  note: string;
  totalTokens: number | null;
  toolCount: number | null;
  canonicalSha256: string | null;
  canonicalBytes: number | null;
  rawToolsCapture: unknown[] | null;
  perTool: CatalogCost['perTool'] | null;
  sessionStart: CatalogCost['sessionStart'] | null;
  serverInstructions: string | null;
  serverInfo: unknown;
  serverCapabilities: unknown;
  clientCapabilities: Record<string, unknown>;
  requestedProtocolVersion: string;
  negotiatedProtocolVersion?: string;
  launch: { command: string; args: string[]; envNames: string[] };
  isolation: { mode: 'minimal-env' | 'inherited-env'; platform: string; arch: string; node: string };
  tokenizer: { name: string; version: string; encoding: string };
  measuredAt: string;
  timings: CaptureTimings & { elapsedMs: number };
  attempts: AttemptSummary[];
  stderrTail?: string;
}

/**
 * Measures one server's tool catalog: `runs` captures, each a fresh launch; the first failure ends
 * it with the status that names why; differing catalogs across captures give `dynamic`.
 */
export async function measureServer(options: MeasureOptions): Promise<Measurement> {
  const runs = options.runs ?? DEFAULT_RUNS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(runs) || runs < 1) throw new McpctxError('USAGE', `runs must be a positive integer, got ${runs}`);
  checkBudgetMs(timeoutMs, 'timeoutMs');
  const clientCapabilities = clientCapabilitiesFor(options.capabilities ?? []);
  const protocolVersion = options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION;
  const redactor = new Redactor(options.launch.env);
  const captureRedactor = new Redactor(options.launch.env, MIN_CAPTURE_SECRET_CHARS);
  const measuredAt = (options.now ?? (() => new Date()))().toISOString();
  const started = performance.now();

  const captures: Array<{ capture: Capture; cost?: CatalogCost; redactions: number }> = [];
  for (let run = 0; run < runs; run += 1) {
    const capture = await captureCatalog({
      launch: options.launch,
      protocolVersion,
      clientCapabilities,
      timeoutMs,
      maxPages: options.maxPages,
      maxTools: options.maxTools,
      transport: options.transport,
    });
    const scrubbed = scrubCapture(capture, captureRedactor);
    const tools = scrubbed.capture.tools;
    if (!tools) {
      captures.push(scrubbed);
      break;
    }
    captures.push({ ...scrubbed, cost: catalogCost(tools, instructionsOf(scrubbed.capture)) });
  }

  const first = captures[0];
  if (!first) throw new McpctxError('USAGE', 'no capture was made');
  const last = captures[captures.length - 1] ?? first;
  const handshake = first.capture.initialize;
  const failure = last.cost ? undefined : classifyFailure(last.capture, timeoutMs);
  const cost = failure ? undefined : first.cost;
  const dynamic = new Set(captures.map(({ cost: runCost }) => runCost?.canonicalSha256)).size > 1;
  const status: MeasurementStatus = failure ? failure.status : dynamic ? 'dynamic' : 'measured';
  const note = failure
    ? failure.note + (captures.length > 1 ? ` (capture ${captures.length} of ${runs})` : '')
    : measuredNote(captures, dynamic);

  // Built field by field in the documented order: the file is read by people too.
  const measurement: Measurement = {
    methodology: METHODOLOGY,
    name: options.name,
    status,
    note: redactor.text(note),
    totalTokens: cost?.totalTokens ?? null,
    toolCount: cost?.toolCount ?? null,
    canonicalSha256: cost?.canonicalSha256 ?? null,
    canonicalBytes: cost?.canonicalBytes ?? null,
    rawToolsCapture: cost ? (first.capture.tools ?? []) : null,
    perTool: cost?.perTool ?? null,
    sessionStart: cost?.sessionStart ?? null,
    serverInstructions: instructionsOf(first.capture),
    serverInfo: handshake?.serverInfo ?? null,
    serverCapabilities: handshake?.serverCapabilities ?? null,
    clientCapabilities,
    requestedProtocolVersion: protocolVersion,
    ...(handshake?.negotiatedProtocolVersion === undefined ? {} : { negotiatedProtocolVersion: handshake.negotiatedProtocolVersion }),
    launch: {
      command: redactor.text(options.launch.command),
      args: (options.launch.args ?? []).map((arg) => redactor.text(arg)),
      envNames: passedEnvNames(options.launch),
    },
    isolation: {
      mode: options.launch.inheritEnv ? 'inherited-env' : 'minimal-env',
      platform: process.platform,
      arch: process.arch,
      node: process.version,
    },
    tokenizer: { ...TOKENIZER },
    measuredAt,
    timings: { ...first.capture.timings, elapsedMs: Math.round(performance.now() - started) },
    attempts: captures.map(({ capture, cost: runCost }) => attemptSummary(capture, runCost, redactor)),
    ...(failure ? { stderrTail: redactor.text(last.capture.stderrTail) } : {}),
  };
  return measurement;
}

function instructionsOf(capture: Capture): string | null {
  return capture.initialize?.instructions ?? null;
}

/** Env values never leave the process, even when the server puts them in its catalog. */
function scrubCapture(capture: Capture, redactor: Redactor): { capture: Capture; redactions: number } {
  if (redactor.isEmpty) return { capture, redactions: 0 };
  const tools = capture.tools && redactor.json(capture.tools);
  const handshake = capture.initialize && redactor.json(capture.initialize);
  return {
    capture: {
      ...capture,
      tools: tools?.value as unknown[] | undefined,
      initialize: handshake?.value as Capture['initialize'],
    },
    redactions: (tools?.replaced ?? 0) + (handshake?.replaced ?? 0),
  };
}

function measuredNote(captures: Array<{ capture: Capture; cost?: CatalogCost; redactions: number }>, dynamic: boolean): string {
  const parts: string[] = [];
  const first = captures[0]?.capture;
  if (dynamic) {
    const runs = captures.map(({ cost }, index) => `run ${index + 1}: ${cost?.toolCount} tools, ${cost?.totalTokens} tokens, sha256 ${cost?.canonicalSha256.slice(0, 12)}`);
    parts.push(`the catalog changed between captures (${runs.join('; ')}); figures are from run 1`);
  } else {
    parts.push(`${captures.length} capture(s) agree`);
  }
  const handshake = first?.initialize;
  if (handshake?.negotiatedProtocolVersion !== undefined && handshake.negotiatedProtocolVersion !== handshake.requestedProtocolVersion) {
    parts.push(`server answered protocol ${handshake.negotiatedProtocolVersion} to a request for ${handshake.requestedProtocolVersion}`);
  }
  if (handshake && handshake.negotiatedProtocolVersion === undefined) parts.push('server named no protocol version');
  if (first && first.nonJsonLines.count > 0) {
    parts.push(`stdout carried ${first.nonJsonLines.count} non-JSON-RPC line(s), ignored; first: ${JSON.stringify(first.nonJsonLines.first)}`);
  }
  if (first && first.strayResponses.count > 0) {
    parts.push(`ignored ${first.strayResponses.count} response(s) whose id matched no request`);
  }
  const redactions = captures[0]?.redactions ?? 0;
  if (redactions > 0) parts.push(`${redactions} string(s) in the capture held an env value and were redacted before counting`);
  return parts.join('; ');
}

function attemptSummary(capture: Capture, cost: CatalogCost | undefined, redactor: Redactor): AttemptSummary {
  if (cost) {
    return {
      outcome: 'captured',
      toolCount: cost.toolCount,
      totalTokens: cost.totalTokens,
      canonicalSha256: cost.canonicalSha256,
      pageCount: capture.pageCount,
      timings: capture.timings,
    };
  }
  return {
    outcome: 'failed',
    error: { code: capture.error?.code ?? 'IO', message: redactor.text(capture.error?.message ?? 'no catalog') },
    timings: capture.timings,
  };
}
