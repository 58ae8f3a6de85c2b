import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import { MCPCTX_CLIENT_INFO } from '../mcp/index.js';
import { DEFAULT_TOKEN_BUDGET } from '../optimizer/index.js';
import {
  CLAUDE_CODE_CONTEXT_CHARS,
  MAX_RESULT_TOKENS,
  MAX_TRANSCRIPT_BYTES,
  MemoryRecordStore,
  OPTIMIZER_TOOLS,
  SqliteRecordStore,
  readTranscriptFile,
  runCompactionHook,
  serveOptimizerStdio,
  type RecordStore,
} from '../optimizer/server/index.js';
import { exampleHelp } from './_help.js';
import { preferSmallHeap } from './_heap.js';
import { builtMain, renderInstallReport } from './_install-report.js';
import { parsePositiveInteger } from './_parse.js';
import { EXIT, type CliIo } from './_io.js';
import { formatCount } from './_table.js';

interface HookFlags {
  budget?: number;
  task?: string;
}

interface InstallFlags {
  client: 'claude-code';
  scope: 'user' | 'project';
  budget?: number;
  dryRun?: boolean;
  json?: boolean;
}

interface ServeFlags {
  store?: string;
  create?: boolean;
}

export function setupOptimizer(command: Command, io: CliIo, setExit: (code: number) => void): void {
  const optimizer = command
    .description('The context optimizer as an MCP server (serve): a coding session records what happens, and asks for a compact, task-specific context with provenance; and as Claude Code\'s compaction hook (hook, install, uninstall).')
    .addHelpText('after', exampleHelp(io, 'optimizer serve --store .mcpctx/session.db'));
  optimizer
    .command('serve')
    .summary('serve the context optimizer over stdio (MCP)')
    .description(
      [
        'An MCP server over stdio with the context optimizer\'s tools. Records are kept in memory, or with --store in a SQLite file, so they survive a restart.',
        `Tools:\n${OPTIMIZER_TOOLS.map(toolHelp).join('\n')}`,
        `No result is over ${formatCount(MAX_RESULT_TOKENS)} tokens: above that a tool refuses with what to change (a smaller tokenBudget or limit, a narrower query).`,
        `Add it to Claude Code: claude mcp add mcpctx-optimizer -- ${io.invocationAnywhere ?? 'mcpctx'} optimizer serve --store .mcpctx/session.db`,
        'The store is checked when it opens (PRAGMA quick_check, and every stored record read back): a damaged store is refused and left as it was, never served or appended to. A missing file is created; an existing empty (0-byte) file is refused unless --create, since it is more often a store that lost its content than a new one.',
        'The server exits when its stdin closes. stdout carries only protocol messages; diagnostics go to stderr. Exit codes: 0 stdin closed; 3 the store could not be opened (not a store, damaged, an empty file without --create).',
      ].join('\n\n'),
    )
    .option('--store <file>', 'keep the records in this SQLite file, created with its folder if missing (default: in memory, gone when the server exits)')
    .option('--create', 'with --store: also turn an existing empty (0-byte) file into a new store')
    .addHelpText('after', exampleHelp(io, 'optimizer serve --store .mcpctx/session.db'))
    .action(async (flags: ServeFlags) => {
      setExit(await runServe(flags, io));
    });

  optimizer
    .command('hook')
    .summary("Claude Code's compaction hook: after a compaction, adds the optimizer's context for the task")
    .description(
      [
        'Reads the hook input Claude Code writes on stdin. On SessionStart with source "compact" (after an automatic or a /compact compaction) it reads the transcript named by transcript_path, builds a context for the task (--task, else the transcript\'s last user request) within --budget tokens, heading included, and prints {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"..."}}, which Claude Code adds to the model\'s context.',
        'Other SessionStart sources (startup, resume, clear, fork) and PreCompact print nothing and exit 0: PreCompact cannot add context, its only answer is to block the compaction, which this hook never does.',
        `Claude Code moves an additionalContext over ${formatCount(CLAUDE_CODE_CONTEXT_CHARS)} characters to a file and gives the model a preview and the path; a --budget near 2,500 keeps it inline.`,
        `Never blocks: input that is not the hook's JSON (over 1 MiB), a transcript that cannot be read (or is over ${formatCount(MAX_TRANSCRIPT_BYTES / 1024 / 1024)} MiB), no task, or a budget with no room after the heading print nothing and one line on stderr. When the session's mandatory facts alone are over the budget, the best-ranked that fit are printed and stderr says how many did not. Exit codes: 0 context printed or nothing to add; 3 nothing added because of a problem (Claude Code shows stderr's first line as a non-blocking hook error). Never 2.`,
      ].join('\n\n'),
    )
    .option('--budget <n>', `tokens the added context may use (default: ${formatCount(DEFAULT_TOKEN_BUDGET)})`, parsePositiveInteger)
    .option('--task <text>', "what the context is for (default: the transcript's last user request)")
    .addHelpText('after', exampleHelp(io, 'optimizer hook --budget 2500 < session-start.json'))
    .action(async (flags: HookFlags) => {
      preferSmallHeap();
      const outcome = await runCompactionHook({
        stdin: io.stdin ?? process.stdin,
        readFile: readTranscriptFile,
        ...(flags.budget === undefined ? {} : { budget: flags.budget }),
        ...(flags.task === undefined ? {} : { task: flags.task }),
      });
      if (outcome.stderr !== undefined) io.stderr.write(`mcpctx optimizer hook: ${outcome.stderr}\n`);
      if (outcome.stdout !== undefined) io.stdout.write(outcome.stdout);
      setExit(outcome.exitCode === 0 ? EXIT.ok : EXIT.failed);
    });

  const clientOption = (): Option => new Option('--client <name>', 'the agent to install into').choices(['claude-code']).makeOptionMandatory();
  const scopeOption = (): Option => new Option('--scope <scope>', 'user: ~/.claude/settings.json; project: <cwd>/.claude/settings.json').choices(['user', 'project']).default('user');

  optimizer
    .command('install')
    .summary("add the compaction hook to Claude Code's settings")
    .description(
      [
        'Adds a SessionStart command hook with matcher "compact" that runs this mcpctx\'s optimizer hook with absolute paths. Every other byte of settings.json is kept (comments included); others\' hooks stay, mcpctx hook install\'s included; installing again adds nothing. A missing file is created.',
        'The bytes of the file before its first change are kept under ~/.claude/mcpctx/ (0600) with a record of what was done, apart from hook install\'s record; uninstall puts them back byte for byte when the file is still what install wrote. --dry-run prints the diff and writes nothing.',
        'Exit codes: 0 installed (or nothing to change); 2 bad flags or a settings file that cannot be edited safely (left as it is); 3 the file cannot be written.',
      ].join('\n\n'),
    )
    .addOption(clientOption())
    .addOption(scopeOption())
    .option('--budget <n>', `written into the hook command as its --budget (default: none, the hook uses ${formatCount(DEFAULT_TOKEN_BUDGET)})`, parsePositiveInteger)
    .option('--dry-run', 'print the diff, write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'optimizer install --client claude-code --scope project --budget 2500 --dry-run'))
    .action(async (flags: InstallFlags) => {
      const { installCompactionHook } = await import('../host/claude-code/index.js');
      const report = installCompactionHook({
        scope: flags.scope,
        cwd: io.cwd,
        ...homeOf(io),
        program: { node: process.execPath, main: builtMain('optimizer install') },
        ...(flags.budget === undefined ? {} : { budget: flags.budget }),
        dryRun: flags.dryRun === true,
      });
      io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderInstallReport(report, 'mcpctx optimizer install'));
      setExit(EXIT.ok);
    });

  optimizer
    .command('uninstall')
    .summary('take the compaction hook out of Claude Code again')
    .description(
      'Puts settings.json back byte for byte when it is still what install wrote (a file install created is removed). A file changed since keeps those changes and loses only the compaction hook. Exit codes: 0 done; 2 bad flags or a file that cannot be edited safely; 3 a file cannot be written or a backup is gone.',
    )
    .addOption(clientOption())
    .addOption(scopeOption())
    .option('--dry-run', 'print the diff, write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'optimizer uninstall --client claude-code'))
    .action(async (flags: InstallFlags) => {
      const { uninstallCompactionHook } = await import('../host/claude-code/index.js');
      const report = uninstallCompactionHook({ scope: flags.scope, cwd: io.cwd, ...homeOf(io), dryRun: flags.dryRun === true });
      io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderInstallReport(report, 'mcpctx optimizer uninstall'));
      setExit(EXIT.ok);
    });

}

function homeOf(io: CliIo): { home?: string } {
  return io.env.HOME === undefined || io.env.HOME === '' ? {} : { home: io.env.HOME };
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
