#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { McpctxError } from '../errors/index.js';
import { MCPCTX_CLIENT_INFO } from '../mcp/index.js';
import { COMMANDS, commandToLoad } from './_commands.js';
import { optionDescription } from './_help.js';
import { invocationAnywhere, invocationFrom } from './_invocation.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';

const USAGE_ERROR_CODES = new Set<string>(['USAGE', 'INVALID_CONFIG', 'OUTPUT_CONFLICT', 'RESUME_MISMATCH']);
/** Commands that run a server given after `--`; an option of the server's read as theirs gets a hint. */
const SERVER_COMMANDS = new Set(['measure', 'inspect-result', 'gateway']);

/** Runs the CLI against the given io and returns the exit code; never exits the process itself. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command(invocationOf(io))
    .description('Measure, cut and prove the tokens MCP servers put into a model context.')
    .version(MCPCTX_CLIENT_INFO.version, '-V, --version')
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .configureHelp({ optionDescription });
  const setExit = (code: number): void => {
    exitCode = code;
  };

  try {
    // Every command is listed (for --help and for commander's "did you mean"); only the one
    // this command line runs is loaded and set up. Commands inherit exitOverride and the output.
    const running = commandToLoad(argv);
    for (const entry of COMMANDS) {
      const command = program.command(entry.name).summary(entry.summary);
      if (entry === running) (await entry.load())(command, io, setExit);
    }
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      if (error.exitCode === 0) return EXIT.ok;
      const command = argv.find((arg) => !arg.startsWith('-'));
      if (error.code === 'commander.unknownOption' && command !== undefined && SERVER_COMMANDS.has(command) && !argv.includes('--')) {
        io.stderr.write(`hint: put the server command after --, e.g. ${invocationOf(io)} ${command} [options] -- npx -y <package>\n`);
      }
      return EXIT.usage;
    }
    if (error instanceof McpctxError) {
      io.stderr.write(`mcpctx: ${error.message}\n`);
      return USAGE_ERROR_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
    }
    io.stderr.write(`mcpctx: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.failed;
  }
  return exitCode;
}

function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

/**
 * A stream that goes quiet once its reader is gone: `mcpctx measure ... | head -1` closes the pipe
 * early, and the next write fails with EPIPE. That is the reader's choice, not an error: the
 * command runs to its end (servers shut down, files written) and prints nothing more.
 */
function quietWhenClosed(stream: NodeJS.WriteStream): CliIo['stderr'] {
  let closed = false;
  stream.on('error', () => {
    closed = true;
  });
  return {
    write: (text: string) => (closed ? false : stream.write(text)),
    isTTY: stream.isTTY,
  };
}

/** Resolves once everything written to `stream` so far has been handed to the system (or the stream failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
}

if (invokedDirectly()) {
  // Servers run in their own process groups, out of reach of the terminal's Ctrl-C. Exiting
  // through process.exit runs the library's exit hook, which kills every group still up.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    process.once(signal, () => process.exit(code));
  }
  const exitCode = await runCli(process.argv.slice(2), {
    stdout: quietWhenClosed(process.stdout),
    stderr: quietWhenClosed(process.stderr),
    cwd: process.cwd(),
    env: process.env,
    invocation: invocationFrom(process.argv[1] ?? 'mcpctx', process.cwd()),
    invocationAnywhere: invocationAnywhere(process.argv[1] ?? 'mcpctx', process.cwd()),
  });
  // Everything the command started has ended when runCli returns. Exiting here, once the output
  // is flushed, skips tearing down the heap (the tokenizer's tables alone are about 100 MB), which
  // a natural exit spends tens of milliseconds on.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(exitCode);
}
