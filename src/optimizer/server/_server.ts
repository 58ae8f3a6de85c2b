// The optimizer's MCP server: the tools of _server-tools.ts with argument schemas, a cap on what
// any result may put into the model's context, and refusals a model can act on.
import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { isMcpctxError } from '../../errors/index.js';
import { countTokens, isWithinTokenLimit } from '../../tokens/index.js';
import { ContextBuilder } from './_builder.js';
import { PreparedSession } from './_prepared.js';
import {
  DEFAULT_ERROR_LIMIT,
  DEFAULT_SEARCH_LIMIT,
  SOURCE_COLUMNS,
  getDecisions,
  getFileHistory,
  getRelevantErrors,
  ingestRecords,
  searchContext,
  summarizeContext,
  type ContextDetail,
  type ContextSummary,
  type ToolContext,
} from './_server-tools.js';
import type { RecordStore } from '../_store.js';
import type { ContextResult, OptimizerOptions } from '../_types.js';
import { MAX_SESSION_CHARS } from '../_validate.js';

/** No result of this server may put more o200k tokens than this into a model's context. */
export const MAX_RESULT_TOKENS = 25_000;
export const MAX_TOKEN_BUDGET = 1_000_000;
const MAX_QUERY_CHARS = 10_000;
const MAX_LIMIT = 100;
// A whole ingest batch is one JSON-RPC line; the SDK's default read buffer (10 MB) would close
// the connection on a batch holding a few large files.
const STDIO_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
// Past this size the exact figure in a refusal is not worth counting; it says "more than".
const EXACT_COUNT_MAX_CHARS = 16 * 1024 * 1024;
// No o200k token spans more than 128 UTF-16 code units (the longest in the vocabulary is 128 bytes
// of UTF-8), so a text longer than MAX_RESULT_TOKENS × 128 is over the cap whatever it says.
const O200K_MAX_TOKEN_CHARS = 128;

export interface OptimizerServerOptions {
  store: RecordStore;
  /** Options of the optimizer behind search_context and build_context (its maxRecordChars also bounds ingest). */
  optimizer?: OptimizerOptions;
  /** Reported to clients in `serverInfo`. */
  version?: string;
  /** Where unexpected failures are logged (never stdout: that is the protocol's). */
  log?: (line: string) => void;
}

/** The tools, for `--help` and the README. */
export const OPTIMIZER_TOOLS: readonly { name: string; args: string; summary: string }[] = [
  { name: 'ingest_records', args: '{messages?, toolOutputs?, errors?, files?, diffs?, testResults?, decisions?}', summary: 'store a batch of records, all or nothing; returns { added, total }' },
  { name: 'search_context', args: '{query, limit?}', summary: 'fragments ranked for the query (BM25, exact phrase first), with provenance' },
  { name: 'get_decisions', args: '{status?, limit?}', summary: 'decisions with ids: accepted, proposed, rejected, newest first within' },
  { name: 'get_relevant_errors', args: '{query?, limit?}', summary: 'errors, failed tests, non-zero exits: ranked by query, else newest first' },
  { name: 'get_file_history', args: '{path, limit?}', summary: 'snapshots, diffs and errors of one file, in time order' },
  { name: 'build_context', args: '{task, tokenBudget?, detail?, session?}', summary: 'the context with source tags, then one row per source; detail "full": buildContext\'s whole object' },
];

// ---------------------------------------------------------------------------------------------
// Argument schemas. Records are declared for the catalog only (z.unknown with their JSON Schema
// as metadata): parseSessionRecords is the one validator, and its messages name the record and
// field (`toolOutputs[1].exitCode`), where a second validator in front would answer first.

// Said once in the tool description rather than seven times here: the catalog is paid for on every turn.
const COMMON_PROPERTIES = { id: { type: 'string' }, timestamp: { type: 'string' }, priority: { type: 'number' }, session: { type: 'string' } };

function recordArray(description: string, properties: Record<string, object>, required: string[]) {
  const item = z.unknown().meta({ type: 'object', properties: { ...properties, ...COMMON_PROPERTIES }, required, additionalProperties: false });
  return z.array(item).optional().describe(description);
}

const text = { type: 'string' };
const ingestSchema = z.looseObject({
  messages: recordArray('conversation turns', { role: { enum: ['user', 'assistant', 'system', 'tool'] }, text }, ['role', 'text']),
  toolOutputs: recordArray(
    'tool and command runs (tool or command required)',
    { tool: text, command: text, output: text, exitCode: { type: 'integer' } },
    ['output'],
  ),
  errors: recordArray('errors with optional stack', { message: text, stack: text }, ['message']),
  files: recordArray('file snapshots', { path: text, content: text }, ['path', 'content']),
  diffs: recordArray('diffs of one file', { path: text, diff: text }, ['path', 'diff']),
  testResults: recordArray('test results', { name: text, status: { enum: ['passed', 'failed', 'skipped'] }, output: text }, ['name', 'status']),
  decisions: recordArray('decisions taken or weighed', { text, status: { enum: ['accepted', 'rejected', 'proposed'] } }, ['text', 'status']),
});

const queryText = (what: string) => z.string().min(1).max(MAX_QUERY_CHARS).describe(what);
const limitArg = (fallback: string) => z.number().int().min(1).max(MAX_LIMIT).optional().describe(`1..${MAX_LIMIT}, default ${fallback}`);

// ---------------------------------------------------------------------------------------------

interface TextResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

function refusal(message: string): TextResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Whether `value`'s strings (keys included) hold more than `limit` characters: a lower bound on the
 * length of its JSON text, found without building it.
 */
function holdsMoreTextThan(value: unknown, limit: number): boolean {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && total <= limit) {
    const item = pending.pop();
    if (typeof item === 'string') total += item.length;
    else if (Array.isArray(item)) for (const element of item) pending.push(element);
    else if (typeof item === 'object' && item !== null) {
      for (const [key, field] of Object.entries(item)) {
        total += key.length;
        pending.push(field);
      }
    }
  }
  return total > limit;
}

/**
 * Results are compact JSON text only (build_context adds its context as a plain block), no
 * structuredContent: a mirror would put the same bytes into the context twice, and the text is
 * what every client shows the model. A result whose
 * text alone is certainly over the cap is refused before it is serialized: past V8's longest
 * string (about 2^29 characters) `JSON.stringify` would throw, after building hundreds of MB.
 */
export function jsonResult(tool: string, value: unknown, remedy: string): TextResult {
  if (holdsMoreTextThan(value, MAX_RESULT_TOKENS * O200K_MAX_TOKEN_CHARS)) return tooLarge(tool, `more than ${MAX_RESULT_TOKENS.toLocaleString('en-US')} tokens`, remedy);
  const json = JSON.stringify(value);
  if (isWithinTokenLimit(json, MAX_RESULT_TOKENS) !== false) return { content: [{ type: 'text', text: json }] };
  const size = json.length <= EXACT_COUNT_MAX_CHARS ? `${countTokens(json).toLocaleString('en-US')} tokens` : `more than ${MAX_RESULT_TOKENS.toLocaleString('en-US')} tokens`;
  return tooLarge(tool, size, remedy);
}

function tooLarge(tool: string, size: string, remedy: string): TextResult {
  return refusal(
    `RESULT_TOO_LARGE: ${tool} would return ${size}, over this server's cap of ${MAX_RESULT_TOKENS.toLocaleString('en-US')} tokens per result, so nothing was returned. ${remedy}`,
  );
}

/** Runs a tool; a refusal from the library (bad records, bad argument, store trouble) comes back as an isError result, never a crash. */
function answering<A>(tool: string, log: (line: string) => void, remedyFor: (code: string) => string, work: (args: A) => TextResult): (args: A) => TextResult {
  return (args) => {
    try {
      return work(args);
    } catch (error) {
      if (isMcpctxError(error)) return refusal(`${error.code}: ${asSentence(error.message)}${remedyFor(error.code)}`);
      log(`${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return refusal(`INTERNAL: ${tool} failed unexpectedly (${error instanceof Error ? error.message : String(error)}); the server logged the details on its stderr.`);
    }
  };
}

/** `answering` for a tool whose work is asynchronous (build_context waits for its worker). */
function answeringAsync<A>(tool: string, log: (line: string) => void, work: (args: A) => Promise<TextResult>): (args: A) => Promise<TextResult> {
  return async (args) => {
    try {
      return await work(args);
    } catch (error) {
      if (isMcpctxError(error)) return refusal(`${error.code}: ${asSentence(error.message)}`);
      log(`${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return refusal(`INTERNAL: ${tool} failed unexpectedly (${error instanceof Error ? error.message : String(error)}); the server logged the details on its stderr.`);
    }
  };
}

const noRemedy = (): string => '';

function logToStderr(line: string): void {
  process.stderr.write(`mcpctx optimizer: ${line}\n`);
}

function asSentence(message: string): string {
  return /[.!?)]$/.test(message) ? message : `${message}.`;
}

/**
 * An McpServer with the optimizer's six tools over `store`. The caller connects a transport and
 * owns the store. The store is read once, here (a damaged one throws before anything is served);
 * the records are then held in memory and each ingest is appended to the store and to them.
 * build_context runs in a worker thread, terminated when the server closes.
 */
export function createOptimizerServer(options: OptimizerServerOptions): McpServer {
  const maxRecordChars = options.optimizer?.maxRecordChars;
  const session = new PreparedSession(options.store, maxRecordChars === undefined ? {} : { maxRecordChars });
  const builder = new ContextBuilder(() => session.given(), options.optimizer);
  const context: ToolContext = maxRecordChars === undefined ? { session, builder } : { session, builder, maxRecordChars };
  const log = options.log ?? logToStderr;
  const server = new McpServer(
    { name: 'mcpctx-optimizer', version: options.version ?? '0.0.0' },
    {
      instructions:
        'Session memory for a coding agent: ingest_records stores what happened (messages, tool outputs, errors, files, diffs, test results, decisions); ' +
        'build_context returns a compact context for a task within a token budget, every fragment tagged [source: fragment | record | label]; ' +
        'the get_* tools and search_context look up stored records by id, path or query.',
    },
  );
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'ingest_records',
    {
      description:
        'Store a batch of session records for the other tools. Any record may carry id (unique; derived from the content when absent), timestamp (ISO 8601) and priority (0..1). ' +
        'All or nothing: a malformed record, or an id already stored, refuses the whole batch with a message naming it (toolOutputs[1].exitCode). Returns {added, total}.',
      inputSchema: ingestSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    answering(
      'ingest_records',
      log,
      (code) => (code === 'INVALID_RECORDS' ? ' Nothing was stored; fix that record and send the whole batch again.' : ''),
      (args) => jsonResult('ingest_records', ingestRecords(context, args), ''),
    ),
  );

  server.registerTool(
    'search_context',
    {
      description:
        'Stored fragments ranked for a free-text query by BM25 over their text and label (identifiers also match by their parts: parseExpression, src/a.ts), best first; ' +
        'a fragment holding the query verbatim (or a "quoted phrase" of it) ranks above all others. Returns {records, total, hits: [{fragmentId, recordId, kind, origin, label, timestamp?, score, phrase, text}]}; ids are those of build_context\'s source tags.',
      inputSchema: z.strictObject({ query: queryText('what to look for: words, identifiers, paths, error text'), limit: limitArg(String(DEFAULT_SEARCH_LIMIT)) }),
      annotations: readOnly,
    },
    answeringAsync('search_context', log, async ({ query, limit }) => {
      const chosen = limit ?? DEFAULT_SEARCH_LIMIT;
      return jsonResult('search_context', await searchContext(context, query, chosen), `Pass a smaller limit (this call: ${chosen}) or a narrower query.`);
    }),
  );

  server.registerTool(
    'get_decisions',
    {
      description: 'Stored decisions with their record ids: accepted, then proposed, then rejected; newest first within each.',
      inputSchema: z.strictObject({ status: z.enum(['accepted', 'proposed', 'rejected']).optional().describe('only this status'), limit: limitArg('all') }),
      annotations: readOnly,
    },
    answering('get_decisions', log, noRemedy, ({ status, limit }) =>
      jsonResult('get_decisions', getDecisions(context, { status, limit }), 'Filter with status, or pass a smaller limit (the first decisions in this order are kept).'),
    ),
  );

  server.registerTool(
    'get_relevant_errors',
    {
      description: 'Errors, failed test results and tool runs with a non-zero exit code: ranked for query when given (as search_context), else newest first.',
      inputSchema: z.strictObject({ query: queryText('rank the failures for this text').optional(), limit: limitArg(String(DEFAULT_ERROR_LIMIT)) }),
      annotations: readOnly,
    },
    answeringAsync('get_relevant_errors', log, async ({ query, limit }) =>
      jsonResult(
        'get_relevant_errors',
        await getRelevantErrors(context, { query, limit }),
        `Pass a smaller limit (this call: ${limit ?? DEFAULT_ERROR_LIMIT})${query === undefined ? ', or a query to rank the failures' : ' or a narrower query'}; or look at one file with get_file_history.`,
      ),
    ),
  );

  server.registerTool(
    'get_file_history',
    {
      description:
        'Snapshots and diffs of one file, plus errors whose message or stack names it, oldest first, each with its record id. Paths compare with / and \\ alike; a path matches the same path under more folders.',
      inputSchema: z.strictObject({ path: queryText('the file, e.g. src/parser.ts'), limit: limitArg('all (the newest are kept)') }),
      annotations: readOnly,
    },
    answering('get_file_history', log, noRemedy, ({ path, limit }) =>
      jsonResult('get_file_history', getFileHistory(context, path, limit), 'Pass a smaller limit: the newest entries are kept.'),
    ),
  );

  server.registerTool(
    'build_context',
    {
      description:
        'A compact context for a task from the stored records within tokenBudget tokens, every fragment tagged [source: fragment id | record id | label]. ' +
        `detail "summary" (default): two text blocks, the context itself, then {sources: {columns: [${SOURCE_COLUMNS.join(', ')}], mandatoryReasons, rows}, omitted: {total, byReason}, merges, stats, conflict?, note?}, ` +
        "a row per fragment in the context's order (its record id and label are in its source tag; mandatory: the index in mandatoryReasons of why it had to be kept, or null); " +
        '"full": the whole result with score breakdowns, every omission and merge, and the report. The context is never cut to fit the server\'s cap: lists are dropped first, then the budget is lowered (said in note).',
      inputSchema: z.strictObject({
        task: queryText('what the context is for'),
        tokenBudget: z.number().int().min(1).max(MAX_TOKEN_BUDGET).optional().describe('tokens the context may use, default 8000'),
        detail: z.enum(['summary', 'full']).optional(),
        session: z
          .string()
          .min(1)
          .max(MAX_SESSION_CHARS)
          .optional()
          .describe("the task's session: mandatory content of other sessions is kept only when it touches the task"),
      }),
      annotations: readOnly,
    },
    answeringAsync('build_context', log, ({ task, tokenBudget, detail, session }) => answerBuildContext(builder, { task, tokenBudget, session }, detail ?? 'summary')),
  );

  // Whoever closes the server (its transport closing, or close()) ends the worker with it.
  server.server.onclose = () => {
    session.close();
    void builder.close();
  };
  return server;
}

export interface StdioServeOptions extends OptimizerServerOptions {
  input?: Readable;
  output?: Writable;
}

/** Serves the optimizer over stdio until the client closes stdin (or the connection fails); never closes the store. */
export async function serveOptimizerStdio(options: StdioServeOptions): Promise<void> {
  const server = createOptimizerServer(options);
  const transport = new StdioServerTransport(options.input ?? process.stdin, options.output ?? process.stdout, { maxBufferSize: STDIO_MAX_MESSAGE_BYTES });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  // A message over the read buffer or a broken pipe ends the connection; say why on stderr.
  const log = options.log ?? logToStderr;
  transport.onerror = (error) => log(`stdio: ${error.message}`);
  await server.connect(transport);
  await closed;
  await server.close();
}

/** Whether a tool result fits this server's cap: the JSON text, or undefined with its size. */
function fitting(value: unknown): { text: string } | { tokens: number } {
  if (holdsMoreTextThan(value, MAX_RESULT_TOKENS * O200K_MAX_TOKEN_CHARS)) return { tokens: Number.POSITIVE_INFINITY };
  const json = JSON.stringify(value);
  if (isWithinTokenLimit(json, MAX_RESULT_TOKENS) !== false) return { text: json };
  return { tokens: json.length <= EXACT_COUNT_MAX_CHARS ? countTokens(json) : Number.POSITIVE_INFINITY };
}

// Lowering the budget when the context alone is over the cap: a few tries, each aiming a little under.
const BUDGET_RETRIES = 3;
const BUDGET_AIM = 0.95;

/**
 * build_context's answer under the cap, never by cutting the context: over the cap, "full" falls
 * back to the summary, the summary drops its source rows, and then (for a budget up to the cap,
 * when no mandatory conflict makes the context as large as it is) the context is built again
 * with a smaller budget. Only a context that cannot get smaller is refused.
 */
async function answerBuildContext(
  builder: ContextBuilder,
  { task, tokenBudget, session }: { task: string; tokenBudget: number | undefined; session: string | undefined },
  detail: ContextDetail,
): Promise<TextResult> {
  let result: ContextResult = await builder.build(task, tokenBudget, session);
  const asked = result.report.budget;
  const notes: string[] = [];
  for (let attempt = 0; ; attempt++) {
    if (detail === 'full' && notes.length === 0) {
      const whole = fitting(result);
      if ('text' in whole) return { content: [{ type: 'text', text: whole.text }] };
      notes.push(`detail "full" would be ${formatTokens(whole.tokens)} tokens, over the cap of ${formatTokens(MAX_RESULT_TOKENS)}: this is the summary`);
    }
    const { context, ...summary } = summarizeContext(result);
    const note = (): string | undefined => (notes.length === 0 ? undefined : `${notes.join('; ')}.`);
    const listed = fittingBeside(context, { ...summary, ...optional('note', note()) });
    if ('blocks' in listed) return { content: listed.blocks };
    const { sources: _dropped, ...bare } = summary;
    notes.push(`${summary.sources?.rows.length ?? 0} source rows left out to stay under the cap (the context's source tags name each fragment)`);
    const unlisted = fittingBeside(context, { ...bare, ...optional('note', note()) });
    if ('blocks' in unlisted) return { content: unlisted.blocks };
    const budget = result.report.budget;
    if (attempt >= BUDGET_RETRIES || asked > MAX_RESULT_TOKENS || result.report.selection.conflict !== undefined || !Number.isFinite(unlisted.tokens)) {
      return tooLarge(
        'build_context',
        Number.isFinite(unlisted.tokens) ? `${formatTokens(unlisted.tokens)} tokens` : `more than ${formatTokens(MAX_RESULT_TOKENS)} tokens`,
        `Pass a smaller tokenBudget (this call: ${formatTokens(asked)}; the context itself is ${formatTokens(result.stats.tokensOut)} tokens).`,
      );
    }
    const lower = Math.max(1, Math.floor((budget * MAX_RESULT_TOKENS * BUDGET_AIM) / unlisted.tokens));
    notes.length = 0;
    notes.push(`built with tokenBudget ${formatTokens(lower)} instead of ${formatTokens(asked)}: at ${formatTokens(asked)} the answer would be over the cap of ${formatTokens(MAX_RESULT_TOKENS)} tokens`);
    result = await builder.build(task, lower, session);
  }
}

/**
 * The summary's two blocks under the cap: the context as it is, then the rest as JSON. The context
 * travels as plain text, not as a JSON string: escaping its newlines and quotes cost about 6% more
 * tokens on generated sessions, and up to a fifth on quote-heavy code.
 */
function fittingBeside(context: string, rest: Omit<ContextSummary, 'context'>): { blocks: TextResult['content'] } | { tokens: number } {
  const contextTokens = context.length <= EXACT_COUNT_MAX_CHARS ? countTokens(context) : Number.POSITIVE_INFINITY;
  const room = MAX_RESULT_TOKENS - contextTokens;
  const json = JSON.stringify(rest);
  const restTokens = room < 0 ? false : isWithinTokenLimit(json, room);
  if (restTokens !== false) {
    return { blocks: [{ type: 'text', text: context }, { type: 'text', text: json }] };
  }
  return { tokens: contextTokens + (json.length <= EXACT_COUNT_MAX_CHARS ? countTokens(json) : Number.POSITIVE_INFINITY) };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function formatTokens(count: number): string {
  return count.toLocaleString('en-US');
}
