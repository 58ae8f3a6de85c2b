import { McpctxError, isMcpctxError, type McpctxErrorCode } from '../errors/index.js';
import {
  DEFAULT_PROTOCOL_VERSION,
  MIN_CAPTURE_SECRET_CHARS,
  Redactor,
  checkBudgetMs,
  clientCapabilitiesFor,
  listAllTools,
  runServer,
  type Deadline,
  type ExitStatus,
  type LaunchSpec,
  type RawClient,
  type ServerRun,
  type StdioTransportOptions,
} from '../mcp/index.js';
import type { FieldSpec } from '../shape/index.js';
import { TOKENIZER } from '../tokens/index.js';
import type { FieldCost } from './_field-cost.js';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan } from '../json/index.js';
import { DEFAULT_TIMEOUT_MS } from './_measure.js';
import { resultCost, type ContentCost, type ResultCost, type ResultEstimate, type ResultPayload } from './_result-cost.js';
import { noProjection, type ProjectionSuggestion } from './_suggest-projection.js';

export interface InspectResultOptions {
  launch: LaunchSpec;
  /** The tool to call. */
  tool: string;
  /** Its arguments; `{}` by default. */
  arguments?: Record<string, unknown>;
  /** Client capabilities to declare by name; none by default (`{}`). */
  capabilities?: readonly string[];
  protocolVersion?: string;
  /** One budget for start, initialize and the call. Default 30,000 ms. */
  timeoutMs?: number;
  transport?: StdioTransportOptions;
}

/**
 * What became of the call:
 * - `analysed`: the result was analysed;
 * - `tool-error`: the tool answered with `isError: true` (analysed too; `errorText` says what it said);
 * - `unknown-tool`: the server's catalog (tools/list) has no such tool, whether it answered with a
 *   JSON-RPC error or with `isError` (`details.availableTools` lists the catalog);
 * - `rpc-error`: the call was answered with a JSON-RPC error;
 * - `timeout`: no answer within the budget;
 * - `startup-failure`: the server could not be started or initialized;
 * - `server-exited`: the server exited or closed its output during the call;
 * - `over-limit`: a bound was hit (`details.limit`: a line over the frame size, a result nested
 *   deeper than MAX_JSON_DEPTH, too many notifications);
 * - `protocol-error`: the server broke the protocol (a result that is not an object, a response
 *   with neither result nor error, a line that is not UTF-8, ...).
 */
export type InspectionStatus =
  | 'analysed'
  | 'tool-error'
  | 'unknown-tool'
  | 'rpc-error'
  | 'timeout'
  | 'startup-failure'
  | 'server-exited'
  | 'over-limit'
  | 'protocol-error';

export const INSPECTION_STATUSES: readonly InspectionStatus[] = Object.freeze([
  'analysed',
  'tool-error',
  'unknown-tool',
  'rpc-error',
  'timeout',
  'startup-failure',
  'server-exited',
  'over-limit',
  'protocol-error',
]);

/** The facts behind a status; every member is present, null when it does not apply. */
export interface InspectionDetails {
  /** The step that failed; null when the call was answered with a result. */
  step: 'start' | 'initialize' | 'tools/call' | null;
  /** The McpctxError code behind a failed step (`DEADLINE`, `FRAME_TOO_LARGE`, `RPC_ERROR`, ...). */
  errorCode: McpctxErrorCode | null;
  /** A JSON-RPC error reply's code and message. */
  rpcCode: number | null;
  rpcMessage: string | null;
  /** The server's tool names (tools/list, at most 20 pages), asked when the call was refused or answered with isError; null when not asked or not answered. */
  availableTools: string[] | null;
  /** Which bound was hit (`over-limit`). */
  limit: 'frame-bytes' | 'nesting-depth' | 'notifications' | null;
  /** How the server ended, when it failed to start or ended during the call. */
  serverExit: ExitStatus | null;
  /** The end of the server's stderr, when it failed to start or ended during the call. */
  stderrTail: string | null;
}

/** One tool result, as `mcpctx inspect-result --json` prints it. With no result to analyse, `content`, `payload` and `estimate` are null and `fields` is empty. */
export interface ResultInspection {
  tool: string;
  status: InspectionStatus;
  /** The status in words. */
  note: string;
  details: InspectionDetails;
  isError: boolean;
  errorText: string | null;
  content: ContentCost | null;
  payload: ResultPayload | null;
  fields: FieldCost[];
  estimate: ResultEstimate | null;
  /** With no result to analyse, no suggestion and a note saying so. */
  suggestion: ProjectionSuggestion;
  notes: string[];
  /** Strings of this inspection that held a value passed in the server's env and were redacted (no figure changes: every count is of the real bytes). */
  redactions: number;
  tokenizer: { name: string; version: string; encoding: string };
}

/** How many tool names a note lists. */
const LISTED_TOOLS = 30;
const LISTED_PAGES = 20;

/** What the call gave: a result, or a JSON-RPC error; with the catalog's names when they were asked. */
type CallOutcome =
  | { kind: 'result'; result: unknown; availableTools: string[] | null }
  | { kind: 'rpc-error'; error: McpctxError; availableTools: string[] | null };

/**
 * Launches the server, initializes it, calls one tool with `tools/call` through the raw client and
 * analyses the result exactly as it came off the wire (see `resultCost`); the server is always shut
 * down. Whatever the server does, the answer is an inspection with a status (see
 * InspectionStatus); only a caller's mistake (no tool name, arguments that are not an object, a
 * budget out of range, an unknown capability) throws, as USAGE. Figures are counted on the
 * server's real bytes; env values are redacted from every string returned afterwards.
 */
export async function inspectResult(options: InspectResultOptions): Promise<ResultInspection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (typeof options.tool !== 'string' || options.tool === '') throw new McpctxError('USAGE', 'name the tool to call');
  if (options.arguments !== undefined && !isPlainObject(options.arguments)) {
    throw new McpctxError('USAGE', 'the tool arguments must be a JSON object');
  }
  checkBudgetMs(timeoutMs, 'timeoutMs');
  const clientCapabilities = clientCapabilitiesFor(options.capabilities ?? []);
  const tool = options.tool;
  const run = await runServer(
    {
      launch: options.launch,
      protocolVersion: options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION,
      clientCapabilities,
      timeoutMs,
      label: 'inspect-result',
      transport: options.transport,
    },
    (client, deadline) => callTool(client, deadline, tool, options.arguments ?? {}),
  );
  const inspection = run.value === undefined || run.error ? failedRun(run, tool, timeoutMs) : answered(run.value, tool);
  if (run.nonJsonLines.count > 0) {
    inspection.notes.push(`stdout carried ${run.nonJsonLines.count} non-JSON-RPC line(s), ignored; first: ${JSON.stringify(run.nonJsonLines.first)}`);
  }
  if (run.strayResponses.count > 0) inspection.notes.push(`ignored ${run.strayResponses.count} response(s) whose id matched no request`);
  return redacted(inspection, options.launch.env);
}

/** `tools/call`; when the server refuses it or answers isError, asks `tools/list` whether the tool exists at all. */
async function callTool(client: RawClient, deadline: Deadline, name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  let result: unknown;
  try {
    result = await client.request('tools/call', { name, arguments: args }, deadline);
  } catch (error) {
    if (!isMcpctxError(error, 'RPC_ERROR')) throw error;
    return { kind: 'rpc-error', error, availableTools: await toolNames(client, deadline) };
  }
  const isError = isPlainObject(result) && result.isError === true;
  return { kind: 'result', result, availableTools: isError ? await toolNames(client, deadline) : null };
}

/** The catalog's tool names; null when the server cannot say (only a hint: the call's own answer is what is reported). */
async function toolNames(client: RawClient, deadline: Deadline): Promise<string[] | null> {
  try {
    const { tools } = await listAllTools(client, { deadline, maxPages: LISTED_PAGES });
    return tools.flatMap((tool) => (isPlainObject(tool) && typeof tool.name === 'string' ? [tool.name] : []));
  } catch {
    return null;
  }
}

function answered(outcome: CallOutcome, tool: string): ResultInspection {
  const unknown = outcome.availableTools !== null && !outcome.availableTools.includes(tool);
  const details = { ...NO_DETAILS, step: null, availableTools: outcome.availableTools };
  if (outcome.kind === 'rpc-error') {
    const data = outcome.error.data;
    const rpc = {
      ...details,
      step: 'tools/call' as const,
      errorCode: outcome.error.code,
      rpcCode: typeof data.rpcCode === 'number' ? data.rpcCode : null,
      rpcMessage: typeof data.rpcMessage === 'string' ? data.rpcMessage : null,
    };
    const reply = replyText(rpc);
    if (unknown) return empty(tool, 'unknown-tool', `${noSuchTool(tool, outcome.availableTools ?? [])}. It answered: ${reply}`, rpc);
    return empty(tool, 'rpc-error', `tools/call ${tool} failed: ${reply}`, rpc);
  }
  const result = outcome.result;
  if (!isPlainObject(result)) {
    const kind = Array.isArray(result) ? 'an array' : result === null ? 'null' : `a ${typeof result}`;
    return empty(tool, 'protocol-error', `the tools/call result is ${kind}, not an object; it is not analysed`, details);
  }
  // Checked before anything walks or stringifies it: the stack would overflow first.
  if (nestsDeeperThan(result)) {
    return empty(tool, 'over-limit', `the result nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels; it is not analysed`, {
      ...details,
      limit: 'nesting-depth',
    });
  }
  let cost: ResultCost;
  try {
    cost = resultCost(result);
  } catch (error) {
    return empty(tool, 'protocol-error', `the result could not be analysed: ${error instanceof Error ? error.message : String(error)}`, details);
  }
  let status: InspectionStatus = 'analysed';
  let note = `analysed ${plural(cost.content.blocks.length, 'content block')}${cost.content.structuredTokens === null ? '' : ' and structuredContent'}: ${cost.content.totalTokens} tokens`;
  if (cost.isError && unknown) {
    status = 'unknown-tool';
    note = `${noSuchTool(tool, outcome.availableTools ?? [])}. It answered with isError: ${JSON.stringify(firstLine(cost.errorText ?? ''))}`;
  } else if (cost.isError) {
    status = 'tool-error';
    note = `the tool answered with isError: true: ${JSON.stringify(firstLine(cost.errorText ?? ''))}`;
  }
  return {
    ...base(tool, status, note, details),
    isError: cost.isError,
    errorText: cost.errorText,
    content: cost.content,
    payload: cost.payload,
    fields: cost.fields,
    estimate: cost.estimate,
    suggestion: cost.suggestion,
    notes: [...cost.notes],
    redactions: 0,
    tokenizer: { ...TOKENIZER },
  };
}

/** A run that ended without an answer to the call: the status names why. */
function failedRun(run: ServerRun<CallOutcome>, tool: string, timeoutMs: number): ResultInspection {
  const error = run.error ?? new McpctxError('PROTOCOL', 'the server gave no answer to the call');
  const step = run.failedStep === 'start' || run.failedStep === 'initialize' ? run.failedStep : 'tools/call';
  const data = error.data;
  const stderrTail = run.stderrTail.trim();
  const ended = step !== 'tools/call' || run.endedOnItsOwn;
  const details: InspectionDetails = {
    ...NO_DETAILS,
    step,
    errorCode: error.code,
    rpcCode: typeof data.rpcCode === 'number' ? data.rpcCode : null,
    rpcMessage: typeof data.rpcMessage === 'string' ? data.rpcMessage : null,
    serverExit: ended ? run.exit : null,
    stderrTail: ended && stderrTail !== '' ? stderrTail : null,
  };
  if (error.code === 'DEADLINE') {
    return empty(tool, 'timeout', `no answer to ${step} within the ${timeoutMs} ms budget shared by start, initialize and the call`, details);
  }
  if (error.code === 'FRAME_TOO_LARGE') {
    const note = `${step} ${tool}: ${error.message}; the result is too large to inspect whole: narrow the call (fewer items, a smaller page)`;
    return empty(tool, 'over-limit', step === 'tools/call' ? note : `${step}: ${error.message}`, { ...details, limit: 'frame-bytes' });
  }
  if (error.code === 'TOO_MANY_NOTIFICATIONS') return empty(tool, 'over-limit', `${step}: ${error.message}`, { ...details, limit: 'notifications' });
  if (error.code === 'NESTING_TOO_DEEP') {
    return empty(tool, 'over-limit', `${step === 'tools/call' ? `tools/call ${tool}` : step}: ${error.message}`, { ...details, limit: 'nesting-depth' });
  }
  if (step === 'start') return empty(tool, 'startup-failure', `could not start the server: ${error.message}`, details);
  if (step === 'initialize') return empty(tool, 'startup-failure', `the server failed to initialize: ${error.message}`, details);
  if (error.code === 'TRANSPORT_CLOSED' || run.endedOnItsOwn) {
    return empty(tool, 'server-exited', `the server ${describeExit(run.exit)} during tools/call ${tool}: ${error.message}`, details);
  }
  return empty(tool, 'protocol-error', `tools/call ${tool}: ${error.message}`, details);
}

const NO_DETAILS: InspectionDetails = Object.freeze({
  step: null,
  errorCode: null,
  rpcCode: null,
  rpcMessage: null,
  availableTools: null,
  limit: null,
  serverExit: null,
  stderrTail: null,
});

function base(tool: string, status: InspectionStatus, note: string, details: InspectionDetails): Pick<ResultInspection, 'tool' | 'status' | 'note' | 'details'> {
  return { tool, status, note, details };
}

/** An inspection with no result to analyse. */
function empty(tool: string, status: InspectionStatus, note: string, details: InspectionDetails): ResultInspection {
  return {
    ...base(tool, status, note, details),
    isError: false,
    errorText: null,
    content: null,
    payload: null,
    fields: [],
    estimate: null,
    suggestion: noProjection('there is no result to analyse'),
    notes: [],
    redactions: 0,
    tokenizer: { ...TOKENIZER },
  };
}

function noSuchTool(tool: string, names: readonly string[]): string {
  const listed = names.slice(0, LISTED_TOOLS).join(', ') + (names.length > LISTED_TOOLS ? `, ... (${names.length} in all)` : '');
  return `the server has no tool "${tool}"; its tools: ${names.length === 0 ? '(none)' : listed}`;
}

/** "Unknown tool: x (code -32602)": the server's words and code. */
function replyText(details: InspectionDetails): string {
  const text = details.rpcMessage ?? 'error reply';
  return details.rpcCode === null ? text : `${text} (code ${details.rpcCode})`;
}

function describeExit(exit: ExitStatus): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (exit.code === null) return 'closed its output';
  return `exited with code ${exit.code}`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length < text.length ? `${line} …` : line;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Env values never leave the process, but redaction never changes a figure: everything was counted
 * on the real bytes before this. Diagnostic text (notes, error text, the server's words, tool
 * names) is scrubbed of values of 3+ characters; names taken from the result's structure (field
 * paths, the suggestion) of values of 8+ characters, as captures are (short values would shred
 * ordinary field names).
 */
function redacted(inspection: ResultInspection, env: Readonly<Record<string, string>> | undefined): ResultInspection {
  const text = new Scrubber(new Redactor(env));
  const names = new Scrubber(new Redactor(env, MIN_CAPTURE_SECRET_CHARS));
  const { details, content, payload, suggestion } = inspection;
  const out: ResultInspection = {
    ...inspection,
    tool: text.scrub(inspection.tool),
    note: text.scrub(inspection.note),
    details: {
      ...details,
      rpcMessage: text.maybe(details.rpcMessage),
      availableTools: details.availableTools?.map((name) => text.scrub(name)) ?? null,
      stderrTail: text.maybe(details.stderrTail),
    },
    errorText: text.maybe(inspection.errorText),
    content: content && {
      ...content,
      blocks: content.blocks.map((block) => ({ ...block, type: names.scrub(block.type) })),
      duplicateWrapperKey: names.maybe(content.duplicateWrapperKey),
    },
    payload: payload && { ...payload, path: payload.path.map((key) => names.scrub(key)) },
    fields: inspection.fields.map((field) => ({ ...field, path: names.scrub(field.path), parent: names.maybe(field.parent) })),
    suggestion: {
      ...suggestion,
      spec: suggestion.spec.map((spec) => scrubSpec(spec, names)),
      fields: suggestion.fields.map((field) => ({
        ...field,
        name: names.scrub(field.name),
        source: names.scrub(field.source),
        rule: names.scrub(field.rule),
        ...(field.truncatedFlag === undefined ? {} : { truncatedFlag: names.scrub(field.truncatedFlag) }),
      })),
      dropped: suggestion.dropped.map((field) => ({ path: names.scrub(field.path), reason: names.scrub(field.reason) })),
      note: text.maybe(suggestion.note),
    },
    notes: inspection.notes.map((note) => text.scrub(note)),
  };
  out.redactions = text.count + names.count;
  if (out.redactions > 0) {
    out.notes.push(`${out.redactions} string(s) of this report held an env value and were redacted; every figure is counted on the server's real bytes`);
  }
  return out;
}

function scrubSpec(spec: FieldSpec, names: Scrubber): FieldSpec {
  if (typeof spec === 'string') return names.scrub(spec);
  return {
    path: typeof spec.path === 'string' ? names.scrub(spec.path) : spec.path.map((key) => names.scrub(key)),
    ...(spec.as === undefined ? {} : { as: names.scrub(spec.as) }),
    ...(spec.maxChars === undefined ? {} : { maxChars: spec.maxChars }),
  };
}

/** A Redactor that counts the strings it changed. */
class Scrubber {
  count = 0;

  constructor(private readonly redactor: Redactor) {}

  scrub(text: string): string {
    const clean = this.redactor.text(text);
    if (clean !== text) this.count += 1;
    return clean;
  }

  maybe(text: string | null): string | null {
    return text === null ? null : this.scrub(text);
  }
}
