import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import {
  DEFAULT_RUNS,
  DEFAULT_TIMEOUT_MS,
  bandFor,
  loadServersFile,
  measureServer,
  writeMeasurement,
  type MeasureOptions,
  type Measurement,
} from '../measure/index.js';
import { DECLARABLE_CAPABILITIES, DEFAULT_PROTOCOL_VERSION } from '../mcp/index.js';
import { EXIT, type CliIo } from './_io.js';
import { formatCount, formatShare, renderTable } from './_table.js';
import { collectEnv, parseCapabilities, parsePositiveInteger, parseTimeoutMs } from './_parse.js';

interface MeasureFlags {
  json?: boolean;
  out?: string;
  servers?: string;
  capabilities?: string[];
  protocolVersion: string;
  timeout: number;
  runs: number;
  env: Record<string, string>;
  cwd?: string;
  name?: string;
}

export function registerMeasure(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('measure')
    .summary("count a server's tool catalog in o200k_base tokens")
    .description(
      [
        'Launch an MCP server over stdio, initialize it, list every tool (all pages) and count the catalog as it came off the wire: o200k_base tokens of JSON.stringify(tools) (methodology mcpctx-catalog/v1).',
        'The server gets a minimal environment (PATH, HOME, USER, SHELL, TERM, LANG) plus the --env values; values are never printed or written, only their names.',
        'Statuses: measured, dynamic (the catalog changed between captures), auth-required, startup-failure, timeout, protocol-mismatch.',
        'Exit codes: 0 measured; 2 usage error; 3 a server could not be measured (its status says why).',
      ].join('\n\n'),
    )
    .usage('[options] -- <command> [args...]\n       mcpctx measure --servers FILE [--json] [--out DIR]')
    .argument('[server...]', 'the command that starts the server, after --')
    .option('--servers <file>', 'measure every server of a YAML list (name, command, args, env, cwd) in turn')
    .option('--json', 'print the measurement object(s) exactly, as JSON')
    .option('--out <dir>', 'also write DIR/<name>/measurement.json')
    .option(
      '--capabilities <list>',
      `client capabilities to declare, comma-separated (${DECLARABLE_CAPABILITIES.join(', ')}); none by default`,
      parseCapabilities,
    )
    .option('--protocol-version <version>', 'protocol version to request', DEFAULT_PROTOCOL_VERSION)
    .option('--timeout <ms>', 'one budget per capture for start, initialize and tools/list', parseTimeoutMs, DEFAULT_TIMEOUT_MS)
    .option('--runs <n>', 'captures to compare (a changing catalog is reported as dynamic)', parsePositiveInteger, DEFAULT_RUNS)
    .option('--env <NAME=VALUE>', 'pass a variable to the server (repeatable; the value is never recorded)', collectEnv, {} as Record<string, string>)
    .option('--cwd <dir>', 'working directory of the server')
    .option('--name <label>', 'label for the table and the output folder')
    .action(async (server: string[], flags: MeasureFlags) => {
      setExit(await runMeasure(server, flags, io));
    });
}

async function runMeasure(server: string[], flags: MeasureFlags, io: CliIo): Promise<number> {
  const jobs = flags.servers ? await jobsFromFile(server, flags, io) : [jobFromFlags(server, flags, io)];
  const measurements: Measurement[] = [];
  for (const [index, job] of jobs.entries()) {
    if (io.stderr.isTTY && jobs.length > 1) io.stderr.write(`measuring ${index + 1}/${jobs.length}: ${job.name}\n`);
    measurements.push(await measureServer(job));
  }
  const written: string[] = [];
  if (flags.out !== undefined) {
    for (const measurement of measurements) written.push(await writeMeasurement(resolve(io.cwd, flags.out), measurement));
  }
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(flags.servers ? measurements : measurements[0], null, 2)}\n`);
  } else {
    io.stdout.write(summaryTable(measurements));
    for (const measurement of measurements) {
      // In a list, a plain "captures agree" on every row is noise; anything more is shown.
      const worthShowing = measurements.length === 1 || measurement.status !== 'measured' || measurement.note.includes(';');
      if (measurement.note && worthShowing) io.stdout.write(`${measurement.name}: ${measurement.note}\n`);
    }
    const only = measurements.length === 1 ? measurements[0] : undefined;
    if (only?.perTool && only.perTool.length > 0) io.stdout.write(`\n${perToolTable(only)}`);
    if (only?.stderrTail) io.stdout.write(`\nstderr (last ${only.stderrTail.length} chars):\n${only.stderrTail.trimEnd()}\n`);
  }
  for (const file of written) io.stderr.write(`wrote ${file}\n`);
  const allMeasured = measurements.every((measurement) => measurement.status === 'measured' || measurement.status === 'dynamic');
  return allMeasured ? EXIT.ok : EXIT.failed;
}

function jobFromFlags(server: string[], flags: MeasureFlags, io: CliIo): MeasureOptions {
  const [command, ...args] = server;
  if (command === undefined) {
    throw new McpctxError('USAGE', 'give the server command after --, e.g. mcpctx measure -- npx -y @modelcontextprotocol/server-memory, or use --servers FILE');
  }
  return {
    name: flags.name ?? defaultName(command, args),
    launch: { command, args, cwd: flags.cwd === undefined ? io.cwd : resolve(io.cwd, flags.cwd), env: flags.env },
    capabilities: flags.capabilities,
    protocolVersion: flags.protocolVersion,
    timeoutMs: flags.timeout,
    runs: flags.runs,
  };
}

async function jobsFromFile(server: string[], flags: MeasureFlags, io: CliIo): Promise<MeasureOptions[]> {
  if (server.length > 0) throw new McpctxError('USAGE', '--servers FILE and a server command are exclusive; give one');
  const entries = await loadServersFile(resolve(io.cwd, flags.servers ?? ''));
  // Flags given on the command line apply to every entry that does not set its own.
  return entries.map((entry) => ({
    ...entry,
    launch: { ...entry.launch, env: { ...flags.env, ...entry.launch.env } },
    capabilities: entry.capabilities ?? flags.capabilities,
    protocolVersion: entry.protocolVersion ?? flags.protocolVersion,
    timeoutMs: entry.timeoutMs ?? flags.timeout,
    runs: entry.runs ?? flags.runs,
  }));
}

/** A readable label: the npm package a script lives in, else the script or command name. */
export function defaultName(command: string, args: readonly string[]): string {
  const candidates = [command, ...args];
  for (const candidate of candidates) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(candidate);
    if (match?.[1]) return match[1].replace(/^@[^/]+\//, '');
  }
  const packageArg = args.find((arg) => /^(@[\w.-]+\/)?[\w.-]+(@[\w.^~-]+)?$/.test(arg) && !arg.startsWith('-') && arg !== '-y');
  if ((command === 'npx' || command === 'bunx' || command === 'uvx') && packageArg) {
    return packageArg.replace(/^@[^/]+\//, '').replace(/@.*$/, '');
  }
  const script = args.find((arg) => /\.(c|m)?(j|t)s$|\.py$/.test(arg));
  return basename(script ?? command).replace(/\.[^.]+$/, '');
}

function summaryTable(measurements: readonly Measurement[]): string {
  return renderTable(
    [
      { header: 'server' },
      { header: 'status' },
      { header: 'tools', align: 'right' },
      { header: 'tokens', align: 'right' },
      { header: 'band' },
      { header: 'session-start', align: 'right' },
    ],
    measurements.map((measurement) => [
      measurement.name,
      measurement.status,
      formatCount(measurement.toolCount),
      formatCount(measurement.totalTokens),
      measurement.totalTokens === null ? '-' : bandFor(measurement.totalTokens),
      formatCount(measurement.sessionStart?.total),
    ]),
  );
}

function perToolTable(measurement: Measurement): string {
  const total = measurement.totalTokens ?? 0;
  const tools = [...(measurement.perTool ?? [])].sort((a, b) => b.tokens - a.tokens || a.name.localeCompare(b.name));
  return renderTable(
    [
      { header: 'tool' },
      { header: 'tokens', align: 'right' },
      { header: 'share', align: 'right' },
      { header: 'description', align: 'right' },
      { header: 'input schema', align: 'right' },
      { header: 'output schema', align: 'right' },
    ],
    tools.map((tool) => [
      tool.name,
      formatCount(tool.tokens),
      formatShare(tool.tokens, total),
      formatCount(tool.descriptionTokens),
      formatCount(tool.inputSchemaTokens),
      tool.outputSchemaTokens === undefined ? '-' : formatCount(tool.outputSchemaTokens),
    ]),
  );
}
