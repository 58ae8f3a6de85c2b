import { resolve } from 'node:path';
import type { Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import { MCPCTX_CLIENT_INFO } from '../mcp/index.js';
import { MAX_RESULT_TOKENS, MemoryRecordStore, OPTIMIZER_TOOLS, SqliteRecordStore, serveOptimizerStdio, type RecordStore } from '../optimizer/server/index.js';
import { exampleHelp } from './_help.js';
import { EXIT, type CliIo } from './_io.js';
import { formatCount } from './_table.js';

interface ServeFlags {
  store?: string;
  create?: boolean;
}

export function setupOptimizer(command: Command, io: CliIo, setExit: (code: number) => void): void {
  const optimizer = command
    .description('The context optimizer as an MCP server: a coding session records what happens, and asks for a compact, task-specific context with provenance.')
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
