#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { McpctxError } from '../errors/index.js';
import { MCPCTX_CLIENT_INFO } from '../mcp/index.js';
import { EXIT, type CliIo } from './_io.js';
import { registerInspectResult } from './inspect-result.js';
import { registerMeasure } from './measure.js';
import { registerOptimizer } from './optimizer.js';
import { registerVerify } from './verify.js';

const USAGE_ERROR_CODES = new Set<string>(['USAGE', 'INVALID_CONFIG']);

/** Runs the CLI against the given io and returns the exit code; never exits the process itself. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('mcpctx')
    .description('Measure, cut and prove the tokens MCP servers put into a model context.')
    .version(MCPCTX_CLIENT_INFO.version, '-V, --version')
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  const setExit = (code: number): void => {
    exitCode = code;
  };
  registerMeasure(program, io, setExit);
  registerVerify(program, io, setExit);
  registerInspectResult(program, io, setExit);
  registerOptimizer(program, io, setExit);
  for (const command of program.commands) command.exitOverride().configureOutput(program.configureOutput());

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
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

if (invokedDirectly()) {
  // Servers run in their own process groups, out of reach of the terminal's Ctrl-C. Exiting
  // through process.exit runs the library's exit hook, which kills every group still up.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    process.once(signal, () => process.exit(code));
  }
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
  });
}
