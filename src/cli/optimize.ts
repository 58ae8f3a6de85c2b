import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { McpctxError, isMcpctxError, type McpctxErrorData } from '../errors/index.js';
import { ContextOptimizer, DEFAULT_TOKEN_BUDGET, type ContextResult, type OptimizerInput } from '../optimizer/index.js';
import { importTranscript, TRANSCRIPT_FORMATS, type TranscriptFormat, type TranscriptImport } from '../optimizer/transcripts/index.js';
import { lineAndColumn } from '../tokens/index.js';
import { exampleHelp } from './_help.js';
import { preferSmallHeap } from './_heap.js';
import { EXIT, type CliIo } from './_io.js';
import { jsonSyntaxErrorOffset } from './_json-position.js';
import { parsePositiveInteger } from './_parse.js';
import { formatCount } from './_table.js';

interface OptimizeFlags {
  input?: string;
  transcript?: string;
  format?: TranscriptFormat;
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

export function setupOptimize(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Build a context for a task from a coding session\'s records, within a token budget: the most relevant fragments, each tagged [source: fragment id | record id | label], duplicates and repeated runs merged, constraints and accepted decisions always kept. When not everything relevant fits, a long tool output, test run output or file view is shown as the lines that bear on the task (with 3 lines around each, error lines always), and each run of hidden lines is marked "[… N lines not shown …]".',
        'Prints the context text; with --json, the whole result (context, sources with score breakdowns, omitted with reasons, report, stats).',
        INPUT_FORMAT,
        'A budget conflict (the mandatory fragments alone are over the budget; all of them are still included) is a result: the context is printed, a warning goes to stderr, and the exit code is 0 (1 with --fail-on-conflict).',
        'With --transcript, the records come from an agent\'s session transcript (Claude Code ~/.claude/projects/<project>/<session>.jsonl, Codex CLI ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, SWE-agent .traj): user and assistant text, tool calls and results, file reads, edits as diffs, test runs and errors, each with the transcript\'s own id and time. What was imported (and skipped) is printed on stderr.',
        'Exit codes: 0 printed; 1 budget conflict with --fail-on-conflict; 2 usage error, an input file that is not valid JSON in the input format, or a transcript in no known format; 3 the file could not be read.',
      ].join('\n\n'),
    )
    .option('--input <file>', 'the records (and optionally task and tokenBudget) as JSON (default: none; give --input or --transcript)')
    .option('--transcript <file>', 'an agent\'s session transcript to read the records from: Claude Code session JSONL, Codex CLI rollout JSONL or a SWE-agent .traj (default: none; give --input or --transcript)')
    .addOption(new Option('--format <name>', 'the transcript\'s format (default: detected from its first lines)').choices([...TRANSCRIPT_FORMATS]))
    .option('--task <text>', "what the context is for, overriding the file's task (default: the file's task; for a transcript, its last user request)")
    .option('--budget <n>', `tokens the context may use, overriding the file's tokenBudget (default: the file's, else ${formatCount(DEFAULT_TOKEN_BUDGET)})`, parsePositiveInteger)
    .addOption(new Option('--counter <name>', 'token counter: o200k (exact) or chars/4 (an estimate)').choices(['o200k', 'chars/4']).default('o200k'))
    .option('--json', 'print the whole result as JSON')
    .option('--fail-on-conflict', 'exit 1 when the mandatory fragments do not fit the budget')
    .addHelpText('after', exampleHelp(io, 'optimize --input session.json --task "why does the parser test fail?" --budget 4000'))
    .action(async (flags: OptimizeFlags) => {
      setExit(await runOptimize(flags, io));
    });
}

async function runOptimize(flags: OptimizeFlags, io: CliIo): Promise<number> {
  if ((flags.input === undefined) === (flags.transcript === undefined)) {
    throw new McpctxError('USAGE', 'give exactly one of --input (records as JSON) and --transcript (an agent\'s session transcript)');
  }
  if (flags.format !== undefined && flags.transcript === undefined) throw new McpctxError('USAGE', '--format names a transcript\'s format; it needs --transcript');
  preferSmallHeap();
  let file: string;
  let document: unknown;
  if (flags.transcript !== undefined) {
    file = resolve(io.cwd, flags.transcript);
    const imported = await readTranscript(file, flags.format);
    io.stderr.write(`${importSummary(flags.transcript, imported)}\n`);
    document = transcriptInput(imported, flags, file);
  } else {
    file = resolve(io.cwd, flags.input as string);
    document = await readInputFile(file);
  }
  const optimizer = new ContextOptimizer({ counter: flags.counter });
  let result: ContextResult;
  try {
    // buildContext validates its input (INVALID_RECORDS naming record and field); a second copy here would only add to the peak.
    result = optimizer.buildContext(withOverrides(document, flags, file) as OptimizerInput);
  } catch (error) {
    // The file is the user's to fix, as a bad flag would be.
    if (isMcpctxError(error, 'INVALID_RECORDS') || isMcpctxError(error, 'INVALID_ARGUMENT')) {
      // USAGE documents the keys of both codes, which file holds the problem aside.
      const data = error.data as Omit<McpctxErrorData['USAGE'], 'file'>;
      throw new McpctxError('USAGE', `${file}: ${error.message}`, { file, ...data }, { cause: error });
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

/** Largest transcript read: a year of one agent's sessions is far less; a larger file is not one session. */
const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

async function readTranscript(file: string, format: TranscriptFormat | undefined): Promise<TranscriptImport> {
  let text: string;
  try {
    const size = (await stat(file)).size;
    if (size > MAX_TRANSCRIPT_BYTES) {
      throw new McpctxError('USAGE', `${file} is ${formatCount(size)} bytes, over the transcript limit of ${formatCount(MAX_TRANSCRIPT_BYTES)} (256 MiB); give one session's transcript`, { file });
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isMcpctxError(error)) throw error;
    throw new McpctxError('IO', `cannot read transcript ${file}: ${(error as Error).message}`, { file });
  }
  try {
    return importTranscript(text, format === undefined ? {} : { format });
  } catch (error) {
    if (isMcpctxError(error, 'INVALID_ARGUMENT')) throw new McpctxError('USAGE', `${file}: ${error.message}${format === undefined ? ' with --format' : ''}`, { file }, { cause: error });
    throw error;
  }
}

/** The optimizer's input from an imported transcript: its records (each carrying the session), the task from --task or the last user request. */
function transcriptInput(imported: TranscriptImport, flags: OptimizeFlags, file: string): unknown {
  const task = flags.task ?? imported.lastUserRequest;
  if (task === undefined) {
    throw new McpctxError('USAGE', `no task: ${file} holds no user request; give one with --task "what the context is for"`, { file });
  }
  const input: Record<string, unknown> = { ...imported.records, task };
  if (flags.budget !== undefined) input.tokenBudget = flags.budget;
  return input;
}

/** One line on what a transcript gave: records per kind, what was skipped, a line cut short. */
function importSummary(name: string, imported: TranscriptImport): string {
  const kinds = Object.entries(imported.records).map(([array, list]) => `${formatCount((list as unknown[]).length)} ${array}`);
  const skipped = Object.entries(imported.skipped).map(([type, count]) => `${type} ${formatCount(count)}`);
  const parts = [`mcpctx: imported ${name} (${imported.format}${imported.session === undefined ? '' : `, session ${imported.session}`}): ${kinds.length === 0 ? 'no records' : kinds.join(', ')}`];
  if (skipped.length > 0) parts.push(`skipped: ${skipped.join(', ')}`);
  if (imported.badLines.count > 0) parts.push(`${formatCount(imported.badLines.count)} lines not JSON (first at line ${imported.badLines.first.join(', ')})`);
  if (imported.truncatedLastLine !== undefined) {
    parts.push(`last line ${imported.truncatedLastLine.line} cut short (${formatCount(imported.truncatedLastLine.bytes)} bytes), not read`);
  }
  return parts.join('; ');
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
