import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { McpctxError, isMcpctxError } from '../errors/index.js';
import { MCPCTX_CLIENT_INFO } from '../mcp/index.js';
import { ContextOptimizer, DEFAULT_TOKEN_BUDGET, parseOptimizerInput, type ContextResult } from '../optimizer/index.js';
import { MAX_RESULT_TOKENS, MemoryRecordStore, OPTIMIZER_TOOLS, SqliteRecordStore, serveOptimizerStdio, type RecordStore } from '../optimizer/server/index.js';
import { EXIT, type CliIo } from './_io.js';
import { lineAndColumn } from '../tokens/index.js';
import { jsonSyntaxErrorOffset } from './_json-position.js';
import { parsePositiveInteger } from './_parse.js';
import { formatCount } from './_table.js';

interface ServeFlags {
  store?: string;
  create?: boolean;
}

interface OptimizeFlags {
  input: string;
  task?: string;
  budget?: number;
  counter: 'o200k' | 'chars/4';
  json?: boolean;
  failOnConflict?: boolean;
}

const INPUT_FORMAT = [
  'Input format (JSON): {"task": "...", "tokenBudget": 8000, "messages": [...], "toolOutputs": [...], "errors": [...], "files": [...], "diffs": [...], "testResults": [...], "decisions": [...]}; every array is optional.',
  '  messages     {role: user|assistant|system|tool, text}',
  '  toolOutputs  {tool and/or command, output, exitCode?}',
  '  errors       {message, stack?}',
  '  files        {path, content}',
  '  diffs        {path, diff}',
  '  testResults  {name, status: passed|failed|skipped, output?}',
  '  decisions    {text, status: accepted|rejected|proposed}',
  'Every record may also carry id (unique), timestamp (ISO 8601) and priority (0..1).',
].join('\n');

export function registerOptimizer(program: Command, io: CliIo, setExit: (code: number) => void): void {
  const optimizer = program
    .command('optimizer')
    .summary("the context optimizer's MCP server")
    .description('The context optimizer as an MCP server: a coding session records what happens, and asks for a compact, task-specific context with provenance.');
  optimizer
    .command('serve')
    .summary('serve the context optimizer over stdio (MCP)')
    .description(
      [
        'An MCP server over stdio with the context optimizer\'s tools. Records are kept in memory, or with --store in a SQLite file, so they survive a restart.',
        `Tools:\n${OPTIMIZER_TOOLS.map(toolHelp).join('\n')}`,
        `No result is over ${formatCount(MAX_RESULT_TOKENS)} tokens: above that a tool refuses with what to change (a smaller tokenBudget or limit, a narrower query).`,
        'Add it to Claude Code: claude mcp add mcpctx-optimizer -- npx mcpctx optimizer serve --store .mcpctx/session.db',
        'The store is checked when it opens (PRAGMA quick_check, and every stored record read back): a damaged store is refused and left as it was, never served or appended to. A missing file is created; an existing empty (0-byte) file is refused unless --create, since it is more often a store that lost its content than a new one.',
        'The server exits when its stdin closes. stdout carries only protocol messages; diagnostics go to stderr. Exit codes: 0 stdin closed; 3 the store could not be opened (not a store, damaged, an empty file without --create).',
      ].join('\n\n'),
    )
    .option('--store <file>', 'keep the records in this SQLite file (created with its folder if missing); default: in memory, gone when the server exits')
    .option('--create', 'with --store: also turn an existing empty (0-byte) file into a new store')
    .action(async (flags: ServeFlags) => {
      setExit(await runServe(flags, io));
    });

  program
    .command('optimize')
    .summary('one compact, task-specific context from a JSON file of session records')
    .description(
      [
        'Build a context for a task from a coding session\'s records, within a token budget: the most relevant fragments, each tagged [source: fragment id | record id | label], duplicates and repeated runs merged, constraints and accepted decisions always kept. When not everything relevant fits, a long tool output or file view is shown as the lines that bear on the task (with 3 lines around each, error lines always), and each run of hidden lines is marked "[… N lines not shown …]".',
        'Prints the context text; with --json, the whole result (context, sources with score breakdowns, omitted with reasons, report, stats).',
        INPUT_FORMAT,
        'A budget conflict (the mandatory fragments alone are over the budget; all of them are still included) is a result: the context is printed, a warning goes to stderr, and the exit code is 0 (1 with --fail-on-conflict).',
        'Exit codes: 0 printed; 1 budget conflict with --fail-on-conflict; 2 usage error or an input file that is not valid JSON in the input format; 3 the file could not be read.',
      ].join('\n\n'),
    )
    .requiredOption('--input <file>', 'the records (and optionally task and tokenBudget) as JSON')
    .option('--task <text>', "what the context is for (overrides the file's task)")
    .option('--budget <n>', `tokens the context may use (overrides the file's tokenBudget; default ${formatCount(DEFAULT_TOKEN_BUDGET)})`, parsePositiveInteger)
    .addOption(new Option('--counter <name>', 'token counter: o200k (exact) or chars/4 (an estimate)').choices(['o200k', 'chars/4']).default('o200k'))
    .option('--json', 'print the whole result as JSON')
    .option('--fail-on-conflict', 'exit 1 when the mandatory fragments do not fit the budget')
    .action(async (flags: OptimizeFlags) => {
      setExit(await runOptimize(flags, io));
    });
}

/** Two or three lines under 80 columns, so the help does not wrap mid-signature. */
function toolHelp(tool: { name: string; args: string; summary: string }): string {
  const signature = `  ${tool.name} ${tool.args}`;
  return `${signature.length <= 78 ? signature : `  ${tool.name}\n    ${tool.args}`}\n    ${tool.summary}`;
}

async function runServe(flags: ServeFlags, io: CliIo): Promise<number> {
  if (flags.create === true && flags.store === undefined) throw new McpctxError('USAGE', '--create needs --store <file>');
  const store: RecordStore = flags.store === undefined ? new MemoryRecordStore() : SqliteRecordStore.open(resolve(io.cwd, flags.store), { create: flags.create === true });
  try {
    const where = flags.store === undefined ? 'in memory' : resolve(io.cwd, flags.store);
    io.stderr.write(`mcpctx optimizer: serving on stdio, records ${where} (${formatCount(store.count())} stored)\n`);
    // The protocol needs the process's own stdin and stdout streams, not the CLI's writers.
    await serveOptimizerStdio({
      store,
      version: MCPCTX_CLIENT_INFO.version,
      log: (line) => io.stderr.write(`mcpctx optimizer: ${line}\n`),
    });
  } finally {
    store.close();
  }
  return EXIT.ok;
}

async function runOptimize(flags: OptimizeFlags, io: CliIo): Promise<number> {
  const file = resolve(io.cwd, flags.input);
  const document = await readInputFile(file);
  const optimizer = new ContextOptimizer({ counter: flags.counter });
  let result: ContextResult;
  try {
    result = optimizer.buildContext(parseOptimizerInput(withOverrides(document, flags, file)));
  } catch (error) {
    // The file is the user's to fix, as a bad flag would be.
    if (isMcpctxError(error, 'INVALID_RECORDS') || isMcpctxError(error, 'INVALID_ARGUMENT')) {
      throw new McpctxError('USAGE', `${file}: ${error.message}`, { file, ...error.data }, { cause: error });
    }
    throw error;
  }
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    io.stdout.write(result.context.endsWith('\n') ? result.context : `${result.context}\n`);
    if (io.stderr.isTTY) io.stderr.write(`${summaryLine(result)}\n`);
  }
  const conflict = result.report.selection.conflict;
  if (conflict === undefined) return EXIT.ok;
  io.stderr.write(`mcpctx: warning: ${conflict.code}: ${conflict.message}\n`);
  return flags.failOnConflict ? EXIT.finding : EXIT.ok;
}

async function readInputFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new McpctxError('IO', `cannot read input file ${file}: ${(error as Error).message}`, { file });
  }
  // Editors on Windows may start the file with a byte order mark; it is not part of the JSON.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8's message quotes a slice of the file, sometimes without a position; say where instead.
    const offset = jsonSyntaxErrorOffset(text);
    if (offset === undefined) throw new McpctxError('USAGE', `${file} is not valid JSON: ${(error as Error).message}`, { file });
    const { line, column } = lineAndColumn(text, offset);
    const found = offset < text.length ? `unexpected ${JSON.stringify(text.slice(offset, offset + 1))}` : 'the file ends too early';
    throw new McpctxError('USAGE', `${file} is not valid JSON: ${found} at line ${line}, column ${column}`, { file, offset, line, column });
  }
}

/** The file's content with --task and --budget applied; a task must come from one of them. */
function withOverrides(document: unknown, flags: OptimizeFlags, file: string): unknown {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new McpctxError('USAGE', `${file} must hold a JSON object with record arrays (and optionally task and tokenBudget), got ${Array.isArray(document) ? 'an array' : String(document === null ? 'null' : typeof document)}`, { file });
  }
  const input: Record<string, unknown> = { ...document };
  if (flags.task !== undefined) input.task = flags.task;
  if (flags.budget !== undefined) input.tokenBudget = flags.budget;
  if (input.task === undefined) {
    throw new McpctxError('USAGE', `no task: ${file} has no "task" field; give one with --task "what the context is for"`, { file });
  }
  return input;
}

function summaryLine(result: ContextResult): string {
  const { stats } = result;
  const estimate = stats.exact ? '' : ` (${stats.counter} estimates)`;
  return (
    `${formatCount(stats.tokensIn)} tokens in, ${formatCount(stats.tokensOut)} out of a budget of ${formatCount(stats.budget)}${estimate}; ` +
    `${formatCount(stats.selected)} fragments kept, ${formatCount(stats.omitted)} omitted`
  );
}
