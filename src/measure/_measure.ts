import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ClaudeDivergence } from './_claude-divergence.js';
import { McpctxError } from '../errors/index.js';
import {
  DEFAULT_PROTOCOL_VERSION,
  MIN_CAPTURE_SECRET_CHARS,
  Redactor,
  checkBudgetMs,
  checkRemoteSpec,
  clientCapabilitiesFor,
  isRemoteSpec,
  passedEnvNames,
  redactArgs,
  redactUrl,
  resolveRemoteHeaders,
  type LaunchSpec,
  type RemoteSpec,
  type StdioTransportOptions,
} from '../mcp/index.js';
import { isPlainObject } from '../json/index.js';
import { TOKENIZER } from '../tokens/index.js';
import { captureCatalog, type Capture, type CaptureTimings } from './_capture.js';
import type { CatalogCost } from './_catalog-cost.js';
import { METHODOLOGY } from './_catalog-tokens.js';
import { plural, printableText } from '../text/index.js';
import { classifyFailure, type MeasurementStatus, type RecordStatus } from './_status.js';

export { METHODOLOGY };
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RUNS = 2;

export interface MeasureOptions {
  /** Label of the server in tables and file names. */
  name: string;
  /**
   * A command to launch over stdio (`command`), or a server to reach over HTTP (`url`): tell them
   * apart with `'url' in launch`. A remote server's headers name environment variables, read from `env`.
   */
  launch: LaunchSpec | RemoteSpec;
  /** Where a remote server's header values are read; default process.env. Unused for stdio. */
  env?: NodeJS.ProcessEnv;
  /** Client capabilities to declare by name; none by default (`{}`). */
  capabilities?: readonly string[];
  protocolVersion?: string;
  /** One budget per capture for start, initialize, all tools/list pages and the counting. Default 30,000 ms. */
  timeoutMs?: number;
  /** Captures to compare; differing catalogs make the status `dynamic`. Default 2. */
  runs?: number;
  maxPages?: number;
  maxTools?: number;
  /**
   * Record `launch.args` as given. By default every argument value that looks like a credential
   * (after `--token`, `--api-key`, ...; `--password=...`; `API_KEY=...`; a URL's password; a
   * `ghp_`, `sk-`, `xox?-`, `AKIA` token) is recorded as `[redacted]`.
   */
  recordArgs?: boolean;
  /**
   * The folder a stdio launch's `cwd` is recorded relative to when it lies inside it: the servers
   * file's folder (loadServersFile sets it), or the caller's working directory (the default). A
   * cwd outside it is recorded as an absolute path.
   */
  cwdBase?: string;
  transport?: StdioTransportOptions;
  /** Where the server runs, recorded in `isolation.kind`: on this host (default) or in a container a sweep started. */
  isolationKind?: IsolationKind;
  /** Injected clock for `measuredAt` (tests). */
  now?: () => Date;
}

/** Where a measured server ran. Numbers taken under different kinds are not comparable over time. */
export type IsolationKind = 'host' | 'docker';

export interface AttemptSummary {
  outcome: 'captured' | 'failed';
  toolCount?: number;
  totalTokens?: number;
  canonicalSha256?: string;
  pageCount?: number;
  error?: { code: string; message: string };
  timings: CaptureTimings;
}

/** What of a stdio launch is recorded: the command and arguments (credentials withheld), variable names only. */
export interface RecordedStdioLaunch {
  command: string;
  args: string[];
  /** How many arguments had a value withheld as `[redacted]` (0 with `recordArgs`). */
  argsRedacted: number;
  envNames: string[];
  /**
   * The directory the server was started in, which a catalog may depend on (a server that names its
   * folder in a description): relative to the servers file's folder (or the caller's directory)
   * when inside it, `.` for that folder itself, otherwise absolute. Absent from records made before it existed.
   */
  cwd?: string;
}

/** What of a remote server is recorded: its URL (no user, password or credential-looking query value), header and variable names only. */
export interface RecordedRemoteLaunch {
  url: string;
  /** Names of the headers configured (sorted), never their values. */
  headerNames: string[];
  /** Names of the variables the header values are read from (sorted). */
  envNames: string[];
}

/** What of the launch is recorded; a remote one has `url`, a stdio one `command`. */
export type RecordedLaunch = RecordedStdioLaunch | RecordedRemoteLaunch;

/**
 * Set when strings of the captured catalog or instructions held a secret and were redacted before
 * the file was written. The figures are the server's real ones, counted before redaction, so they
 * cannot be re-derived from the file; `verify` says so.
 */
export interface CaptureRedaction {
  /** Strings (values or keys) of `rawToolsCapture` and `serverInstructions` that were redacted. */
  strings: number;
  /** Names of the secrets found: env variable names, or `arg<index>` for a credential in the arguments. */
  secrets: string[];
}

/** The published record of one measurement (`measurement.json`); field names are part of the contract. */
export interface Measurement {
  methodology: typeof METHODOLOGY;
  name: string;
  status: RecordStatus;
  note: string;
  totalTokens: number | null;
  toolCount: number | null;
  canonicalSha256: string | null;
  canonicalBytes: number | null;
  rawToolsCapture: unknown[] | null;
  captureRedaction: CaptureRedaction | null;
  perTool: CatalogCost['perTool'] | null;
  sessionStart: CatalogCost['sessionStart'] | null;
  serverInstructions: string | null;
  serverInfo: unknown;
  serverCapabilities: unknown;
  clientCapabilities: Record<string, unknown>;
  requestedProtocolVersion: string;
  negotiatedProtocolVersion?: string;
  launch: RecordedLaunch;
  /** `kind` is absent from records made before it existed: unknown, never assumed to be `host`. */
  isolation: { kind?: IsolationKind; mode: 'minimal-env' | 'inherited-env'; platform: string; arch: string; node: string };
  tokenizer: { name: string; version: string; encoding: string };
  measuredAt: string;
  timings: CaptureTimings & { elapsedMs: number };
  attempts: AttemptSummary[];
  stderrTail?: string;
  /** Claude divergence (tools-delta/v1), only when measured with a Claude model (`measure --claude-model`). */
  claude?: ClaudeDivergence;
}

/**
 * Measures one server's tool catalog: `runs` captures, each a fresh launch; the first failure ends
 * it with the status that names why; differing catalogs across captures give `dynamic`. Every
 * figure is counted on the bytes the server sent; secrets are redacted only from what is recorded.
 * Returns a measurement for anything the server does; throws only for bad options.
 */
export async function measureServer(options: MeasureOptions): Promise<Measurement> {
  const runs = options.runs ?? DEFAULT_RUNS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(runs) || runs < 1) throw new McpctxError('USAGE', `runs must be a positive integer, got ${runs}`);
  checkBudgetMs(timeoutMs, 'timeoutMs');
  const clientCapabilities = clientCapabilitiesFor(options.capabilities ?? []);
  const protocolVersion = options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION;
  const launch = options.launch;
  const remote = isRemoteSpec(launch);
  if (remote) checkRemoteSpec(launch);
  const remoteSecrets = remote ? [...resolveRemoteHeaders(launch, options.env).secrets, ...redactUrl(launch.url).secrets] : [];
  const redactor = remote ? new Redactor(remoteSecrets) : Redactor.forLaunch(launch);
  const captureRedactor = remote ? new Redactor(remoteSecrets, MIN_CAPTURE_SECRET_CHARS) : Redactor.forLaunch(launch, process.env, MIN_CAPTURE_SECRET_CHARS);
  const measuredAt = (options.now ?? (() => new Date()))().toISOString();
  const started = performance.now();

  const captures: Capture[] = [];
  for (let run = 0; run < runs; run += 1) {
    const capture = await captureCatalog({
      launch,
      env: options.env,
      protocolVersion,
      clientCapabilities,
      timeoutMs,
      maxPages: options.maxPages,
      maxTools: options.maxTools,
      transport: options.transport,
    });
    captures.push(capture);
    if (!capture.cost) break;
  }

  const first = captures[0];
  if (!first) throw new McpctxError('USAGE', 'no capture was made');
  const last = captures[captures.length - 1] ?? first;
  const failure = last.cost ? undefined : classifyFailure(last, timeoutMs);
  const cost = failure ? undefined : first.cost;
  const dynamic = new Set(captures.map((capture) => capture.cost?.canonicalSha256)).size > 1;
  const status: MeasurementStatus = failure ? failure.status : dynamic ? 'dynamic' : 'measured';
  const recorded = recordForFile(first, cost, captureRedactor);
  const note = [
    failure ? failure.note + (captures.length > 1 ? ` (capture ${captures.length} of ${runs})` : '') : measuredNote(captures, dynamic, recorded),
    ...remoteNotes(last),
  ].join('; ');

  // Built field by field in the documented order: the file is read by people too.
  const measurement: Measurement = {
    methodology: METHODOLOGY,
    name: options.name,
    status,
    note: redactor.text(printableText(note, 'note')),
    totalTokens: cost?.totalTokens ?? null,
    toolCount: cost?.toolCount ?? null,
    canonicalSha256: cost?.canonicalSha256 ?? null,
    canonicalBytes: cost?.canonicalBytes ?? null,
    rawToolsCapture: cost ? recorded.tools : null,
    captureRedaction: cost && recorded.redaction.strings > 0 ? recorded.redaction : null,
    perTool: cost ? recorded.perTool : null,
    sessionStart: cost?.sessionStart ?? null,
    serverInstructions: recorded.instructions,
    serverInfo: recorded.serverInfo,
    serverCapabilities: recorded.serverCapabilities,
    clientCapabilities,
    requestedProtocolVersion: protocolVersion,
    ...(first.initialize?.negotiatedProtocolVersion === undefined ? {} : { negotiatedProtocolVersion: first.initialize.negotiatedProtocolVersion }),
    launch: recordedLaunch(launch, { recordArgs: options.recordArgs, cwdBase: options.cwdBase }),
    isolation: {
      kind: options.isolationKind ?? 'host',
      // A remote server gets nothing of our environment but the headers named.
      mode: !remote && launch.inheritEnv ? 'inherited-env' : 'minimal-env',
      platform: process.platform,
      arch: process.arch,
      node: process.version,
    },
    tokenizer: { ...TOKENIZER },
    measuredAt,
    timings: { ...first.timings, elapsedMs: Math.round(performance.now() - started) },
    attempts: captures.map((capture) => attemptSummary(capture, redactor)),
    // A remote server has no stderr to show.
    ...(failure && !remote ? { stderrTail: redactor.text(printableText(last.stderrTail, 'lines')) } : {}),
  };
  return measurement;
}

/**
 * What a measurement records of its launch: env values scrubbed from the command and arguments,
 * argument values that look like credentials withheld unless `recordArgs`, variable names only.
 * For a remote server: the URL without user, password, fragment or credential-looking query
 * values, and the names of the headers and of the variables they are read from.
 */
export interface RecordedLaunchOptions {
  recordArgs?: boolean;
  /** See `MeasureOptions.cwdBase`; default the process's working directory. */
  cwdBase?: string;
}

export function recordedLaunch(launch: LaunchSpec, options?: RecordedLaunchOptions): RecordedStdioLaunch;
export function recordedLaunch(launch: RemoteSpec, options?: RecordedLaunchOptions): RecordedRemoteLaunch;
export function recordedLaunch(launch: LaunchSpec | RemoteSpec, options?: RecordedLaunchOptions): RecordedLaunch;
export function recordedLaunch(launch: LaunchSpec | RemoteSpec, { recordArgs = false, cwdBase }: RecordedLaunchOptions = {}): RecordedLaunch {
  if (isRemoteSpec(launch)) {
    const headers = launch.headers ?? {};
    return {
      url: redactUrl(launch.url).url,
      headerNames: Object.keys(headers).sort(),
      envNames: [...new Set(Object.values(headers))].sort(),
    };
  }
  // Env values only: the credential-shaped arguments are `redactArgs`' to withhold (or, with recordArgs, to keep).
  const envValues = Redactor.forLaunch({ env: launch.env, inheritEnv: launch.inheritEnv });
  const args = launch.args ?? [];
  const withheld = recordArgs ? { args: [...args], redacted: 0 } : redactArgs(args);
  return {
    command: envValues.text(launch.command),
    args: withheld.args.map((arg) => envValues.text(arg)),
    argsRedacted: withheld.redacted,
    envNames: passedEnvNames(launch),
    cwd: envValues.text(recordedCwd(launch.cwd, cwdBase)),
  };
}

/**
 * The launch directory as recorded. A home path (/home/alice/...) is personal and says nothing
 * another machine can use, so a directory inside `base` is recorded relative to it, as a servers
 * file writes it (POSIX separators, `.` for `base` itself); one outside stays absolute.
 */
function recordedCwd(cwd: string | undefined, base: string | undefined): string {
  const baseDir = resolve(base ?? process.cwd());
  const dir = resolve(baseDir, cwd ?? baseDir);
  const inside = relative(baseDir, dir);
  if (inside === '') return '.';
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return dir;
  return inside.split(sep).join('/');
}

interface RecordedCapture {
  tools: unknown[];
  perTool: CatalogCost['perTool'];
  instructions: string | null;
  serverInfo: unknown;
  serverCapabilities: unknown;
  redaction: CaptureRedaction;
  /** Strings of serverInfo and serverCapabilities redacted (not figures, but said in the note). */
  handshakeRedactions: number;
}

/**
 * Secrets never leave the process, even when the server puts them in its catalog: what the file
 * keeps of the capture is redacted here, after counting, so every figure stays the server's own.
 */
function recordForFile(capture: Capture, cost: CatalogCost | undefined, redactor: Redactor): RecordedCapture {
  const tools = redactor.json(capture.tools ?? []);
  const instructions = capture.initialize?.instructions;
  const cleanInstructions = instructions === undefined ? null : redactor.text(instructions);
  const handshake = redactor.json({ serverInfo: capture.initialize?.serverInfo ?? null, serverCapabilities: capture.initialize?.serverCapabilities ?? null });
  const { serverInfo, serverCapabilities } = handshake.value as { serverInfo: unknown; serverCapabilities: unknown };
  const instructionsRedacted = instructions !== undefined && cleanInstructions !== instructions;
  const secrets = new Set([...tools.names, ...(instructionsRedacted ? redactor.secretsIn(instructions) : [])]);
  return {
    tools: tools.value as unknown[],
    perTool: (cost?.perTool ?? []).map((tool) => ({ ...tool, name: redactor.text(tool.name) })),
    instructions: cleanInstructions,
    serverInfo,
    serverCapabilities,
    redaction: {
      strings: tools.replaced + (instructionsRedacted ? 1 : 0),
      secrets: [...secrets].sort(),
    },
    handshakeRedactions: handshake.replaced,
  };
}

function measuredNote(captures: readonly Capture[], dynamic: boolean, { redaction, handshakeRedactions }: RecordedCapture): string {
  const parts: string[] = [];
  const first = captures[0];
  if (dynamic) {
    const runs = captures.map(
      ({ cost }, index) =>
        `run ${index + 1}: ${plural(cost?.toolCount ?? 0, 'tool')}, ${plural(cost?.totalTokens ?? 0, 'token')}, sha256 ${cost?.canonicalSha256.slice(0, 12)}`,
    );
    parts.push(`the catalog changed between captures (${runs.join('; ')}); figures are from run 1`);
  } else {
    parts.push(captures.length === 1 ? 'one capture' : `${captures.length} captures agree`);
  }
  const handshake = first?.initialize;
  if (first?.cost?.toolCount === 0) parts.push(zeroToolsNote(handshake?.serverCapabilities));
  if (handshake?.negotiatedProtocolVersion !== undefined && handshake.negotiatedProtocolVersion !== handshake.requestedProtocolVersion) {
    parts.push(`server answered protocol ${handshake.negotiatedProtocolVersion} to a request for ${handshake.requestedProtocolVersion}`);
  }
  if (handshake && handshake.negotiatedProtocolVersion === undefined) parts.push('server named no protocol version');
  if (first && first.nonJsonLines.count > 0) {
    parts.push(`stdout carried ${plural(first.nonJsonLines.count, 'non-JSON-RPC line')}, ignored; first: ${JSON.stringify(first.nonJsonLines.first)}`);
  }
  if (first && first.strayResponses.count > 0) {
    parts.push(`ignored ${plural(first.strayResponses.count, 'response')} whose id matched no request`);
  }
  if (redaction.strings > 0) {
    parts.push(
      `${plural(redaction.strings, 'string')} of the catalog held a secret (${redaction.secrets.join(', ')}) and ${redaction.strings === 1 ? 'is' : 'are'} redacted in this record; ` +
        'every figure is counted on the real bytes, so verify cannot re-derive them from the record',
    );
  }
  if (handshakeRedactions > 0) {
    parts.push(`${plural(handshakeRedactions, 'string')} of serverInfo and serverCapabilities held a secret and ${handshakeRedactions === 1 ? 'is' : 'are'} redacted`);
  }
  return parts.join('; ');
}

/**
 * An empty catalog is measured as it came, but a zero is what a broken harness would also get: the
 * note says whether the server had declared a `tools` capability (an own property) at initialize.
 */
function zeroToolsNote(serverCapabilities: unknown): string {
  const declared = isPlainObject(serverCapabilities) && Object.hasOwn(serverCapabilities, 'tools');
  return declared ? 'zero tools: the server declared a tools capability and listed none' : 'zero tools: the server declared no tools capability';
}

/** What a remote run adds to the note: headers left out for want of their variable, and the older transport when it was used. */
function remoteNotes(capture: Capture | undefined): string[] {
  const remote = capture?.remote;
  if (!remote) return [];
  const notes = remote.missingHeaders.map(({ header, envName }) => `header ${header} was not sent: the variable ${envName} is not set`);
  if (remote.transport === 'sse') notes.push(`served over the older HTTP+SSE transport${remote.detected ? ' (the streamable HTTP POST was refused)' : ''}`);
  return notes;
}

function attemptSummary(capture: Capture, redactor: Redactor): AttemptSummary {
  const cost = capture.cost;
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
    error: { code: capture.error?.code ?? 'IO', message: redactor.text(printableText(capture.error?.message ?? 'no catalog', 'note')) },
    timings: capture.timings,
  };
}
