import { McpctxError, isMcpctxError } from '../errors/index.js';
import {
  DEFAULT_PROTOCOL_VERSION,
  MIN_CAPTURE_SECRET_CHARS,
  Redactor,
  checkBudgetMs,
  clientCapabilitiesFor,
  listAllTools,
  runServer,
  type Deadline,
  type LaunchSpec,
  type RawClient,
  type ServerRun,
  type StdioTransportOptions,
} from '../mcp/index.js';
import { TOKENIZER } from '../tokens/index.js';
import { isPlainObject, nestsDeeperThan } from './_json-value.js';
import { DEFAULT_TIMEOUT_MS } from './_measure.js';
import { resultCost, tooDeep, type ResultCost } from './_result-cost.js';

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

/** The cost of one tool result, as `mcpctx inspect-result --json` prints it. */
export interface ResultInspection extends ResultCost {
  tool: string;
  tokenizer: { name: string; version: string; encoding: string };
}

/** How many tool names an unknown-tool error lists. */
const LISTED_TOOLS = 30;

/**
 * Launches the server, initializes it, calls one tool with `tools/call` through the raw client and
 * analyses the result exactly as it came off the wire (see `resultCost`); the server is always shut
 * down. A JSON-RPC error reply, a deadline, an oversized frame or a server that dies is thrown as
 * an `McpctxError` of that code (`RPC_ERROR`, `DEADLINE`, `FRAME_TOO_LARGE`, `TRANSPORT_CLOSED`,
 * `SPAWN_FAILED`, ...) whose `data` adds `step` (`start`, `initialize`, `tools/call`), `tool` and
 * `exit` to the original data (`rpcCode`, `rpcMessage`, and `availableTools` when the tool is
 * unknown), env values scrubbed from all of it. A result with `isError: true` is analysed like any
 * other. Env values of 8+ characters in the result are redacted before counting.
 */
export async function inspectResult(options: InspectResultOptions): Promise<ResultInspection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (typeof options.tool !== 'string' || options.tool === '') throw new McpctxError('USAGE', 'name the tool to call');
  if (options.arguments !== undefined && !isPlainObject(options.arguments)) {
    throw new McpctxError('USAGE', 'the tool arguments must be a JSON object');
  }
  checkBudgetMs(timeoutMs, 'timeoutMs');
  const clientCapabilities = clientCapabilitiesFor(options.capabilities ?? []);
  const redactor = new Redactor(options.launch.env);
  const run = await runServer(
    {
      launch: options.launch,
      protocolVersion: options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION,
      clientCapabilities,
      timeoutMs,
      label: 'inspect-result',
      transport: options.transport,
    },
    (client, deadline) => callTool(client, deadline, options.tool, options.arguments ?? {}),
  );
  if (run.error || !run.initialize) throw failure(run, options.tool, redactor);

  if (nestsDeeperThan(run.value)) throw tooDeep(`the result of ${redactor.text(options.tool)}`);
  // Servers echo their configuration: env values never reach the analysis or the output.
  const scrubbed = new Redactor(options.launch.env, MIN_CAPTURE_SECRET_CHARS).json(run.value);
  const cost = resultCost(scrubbed.value);
  const notes = [...cost.notes];
  if (scrubbed.replaced > 0) notes.push(`${scrubbed.replaced} string(s) in the result held an env value and were redacted before counting`);
  if (run.nonJsonLines.count > 0) {
    notes.push(`stdout carried ${run.nonJsonLines.count} non-JSON-RPC line(s), ignored; first: ${JSON.stringify(run.nonJsonLines.first)}`);
  }
  if (run.strayResponses.count > 0) notes.push(`ignored ${run.strayResponses.count} response(s) whose id matched no request`);
  return {
    tool: redactor.text(options.tool),
    isError: cost.isError,
    content: cost.content,
    payload: cost.payload,
    fields: cost.fields,
    estimate: cost.estimate,
    suggestion: cost.suggestion,
    notes: notes.map((note) => redactor.text(note)),
    tokenizer: { ...TOKENIZER },
  };
}

/** `tools/call`; when the server refuses it, asks `tools/list` whether the tool exists at all. */
async function callTool(client: RawClient, deadline: Deadline, name: string, args: Record<string, unknown>): Promise<unknown> {
  try {
    return await client.request('tools/call', { name, arguments: args }, deadline);
  } catch (error) {
    if (!isMcpctxError(error, 'RPC_ERROR')) throw error;
    const names = await toolNames(client, deadline);
    if (names === undefined || names.includes(name)) throw error;
    throw new McpctxError('RPC_ERROR', error.message, { ...error.data, unknownTool: true, availableTools: names });
  }
}

async function toolNames(client: RawClient, deadline: Deadline): Promise<string[] | undefined> {
  try {
    const { tools } = await listAllTools(client, { deadline, maxPages: 20 });
    return tools.flatMap((tool) => (isPlainObject(tool) && typeof tool.name === 'string' ? [tool.name] : []));
  } catch {
    return undefined; // only a hint: the call's own error is what is reported
  }
}

/** The error that ended the run, said in words, with env values scrubbed from everything it carries. */
function failure(run: ServerRun<unknown>, tool: string, redactor: Redactor): McpctxError {
  const error = run.error ?? new McpctxError('PROTOCOL', 'the server was not initialized');
  const data = error.data;
  let message: string;
  if (run.failedStep === 'start') {
    message = `could not start the server: ${error.message}`;
  } else if (run.failedStep === 'initialize') {
    message = `the server failed to initialize: ${error.message}`;
  } else if (data.unknownTool === true && Array.isArray(data.availableTools)) {
    const names = data.availableTools as string[];
    const listed = names.slice(0, LISTED_TOOLS).join(', ') + (names.length > LISTED_TOOLS ? `, ... (${names.length} in all)` : '');
    message = `the server has no tool "${tool}"; its tools: ${names.length === 0 ? '(none)' : listed}. It answered: ${reply(data)}`;
  } else if (error.code === 'RPC_ERROR') {
    message = `tools/call ${tool} failed: ${reply(data)}`;
  } else if (error.code === 'FRAME_TOO_LARGE') {
    message = `tools/call ${tool}: ${error.message}; the result is too large to inspect whole: narrow the call (fewer items, a smaller page)`;
  } else {
    message = `tools/call ${tool}: ${error.message}`;
  }
  const tail = run.stderrTail.trim();
  if (tail !== '' && (run.failedStep !== 'work' || run.endedOnItsOwn)) message += `\nserver stderr (last ${tail.length} chars):\n${tail}`;
  const step = run.failedStep === 'start' || run.failedStep === 'initialize' ? run.failedStep : 'tools/call';
  const scrubbed = redactor.json({ ...data, step, tool, exit: run.exit }).value as Record<string, unknown>;
  // No `cause`: the original error carries the unscrubbed text.
  return new McpctxError(error.code, redactor.text(message), scrubbed);
}

/** "Unknown tool: x (code -32602)": the server's words and code. */
function reply(data: Readonly<Record<string, unknown>>): string {
  const text = typeof data.rpcMessage === 'string' ? data.rpcMessage : 'error reply';
  return typeof data.rpcCode === 'number' ? `${text} (code ${data.rpcCode})` : text;
}
