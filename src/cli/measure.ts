import { basename, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import { DEFAULT_RUNS, DEFAULT_TIMEOUT_MS, PROBE_CAPABILITIES, bandFor, checkProbeCapabilities, probeCapabilities, addClaudeDivergence, type ClaudeTokenCounter, checkMeasurementTarget, loadServersFile, measureServer, recordedLaunch, writeMeasurement, type MeasureOptions, type Measurement, type ServersFile } from '../measure/index.js';
import { printableText } from '../text/index.js';
import { DECLARABLE_CAPABILITIES, DEFAULT_PROTOCOL_VERSION, checkRemoteSpec, type RemoteAuthMode, type RemoteSpec } from '../mcp/index.js';
import { DEFAULT_CLAUDE_KEY_ENV, claudeCounter, type ClaudeFlags } from './_claude.js';
import { exampleHelp } from './_help.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';
import { formatCount, formatShare, renderTable } from './_table.js';
import { renderProbe } from './_probe-render.js';
import { MALFORMED_HEADER, collectEnv, collectHeader, parseCapabilities, parsePositiveInteger, parseTimeoutMs } from './_parse.js';

interface MeasureFlags extends ClaudeFlags {
  json?: boolean;
  out?: string;
  servers?: string;
  url?: string;
  header: Record<string, string>;
  transport?: NonNullable<RemoteSpec['transport']>;
  auth?: RemoteAuthMode;
  capabilities?: string[];
  probe?: string[];
  protocolVersion: string;
  timeout: number;
  runs: number;
  env: Record<string, string>;
  cwd?: string;
  name?: string;
  recordArgs?: boolean;
  scan?: boolean;
}

export function setupMeasure(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Launch an MCP server over stdio (or reach one over HTTP with --url), initialize it, list every tool (all pages) and count the catalog as it came off the wire: o200k_base tokens of JSON.stringify(tools) (methodology mcpctx-catalog/v1). Start, initialize, tools/list and the counting share one --timeout budget.',
        'The server gets a minimal environment (PATH, HOME, USER, SHELL, TERM, LANG) plus the --env values; values are never printed or written, only their names. Argument values that look like credentials (after --token, --api-key, --password, --secret, --auth...; --flag=value and NAME=value forms of those; a URL password; ghp_, sk-, xox?-, AKIA... tokens) are recorded as [redacted] unless --record-args. Every figure is counted on the bytes the server sent; if its catalog holds an --env value, the value is redacted in what is printed and written, and the record says so (verify then reports it as not re-derivable).',
        'Remote servers: --url URL measures a server over streamable HTTP, or over the older HTTP+SSE transport when the POST is refused with a 4xx and a GET gives an event stream (--transport forces one). --header NAME=ENV_NAME sends header NAME with the value of the environment variable ENV_NAME (--header Authorization=MY_TOKEN sends $MY_TOKEN, which should hold "Bearer ..."); only the header and variable names are recorded. A URL\'s user, password and credential-looking query values are not recorded. HTTP 401/403 gives the status remote-auth-wall, with the WWW-Authenticate challenge and what to do in the note. A server behind OAuth is measured with the login stored by mcpctx auth login URL (refreshed before it expires and after a 401); without one, the note gives that command. A redirect (301, 302, 303, 307, 308) is followed only on the URL\'s own origin (scheme, host and port), at most 5 in a row; 301, 302, 307 and 308 re-send the same method and body, 303 is fetched with GET. A redirect to another origin, or an HTTP+SSE endpoint event naming one, is refused before anything (headers included) is sent there: status redirect-refused.',
        'Statuses: measured, dynamic (the catalog changed between captures), auth-required, startup-failure, timeout, protocol-mismatch (the server refused by naming the protocol: no initialize handler, JSON-RPC -32601, as a 2026-07-28 server with server/discover, or a refused protocol version; the note quotes its data.supported when it sent one), remote-auth-wall, protocol-limit (the server answered but broke a bound of the harness: the bytes of a frame or event, the page count, the tool count, the catalog bytes, nesting; the note names the bound and the value), redirect-refused (sent to another origin, or more than 5 redirects). An empty tools/list is measured (zero tools), with a note saying whether the server declared a tools capability at initialize.',
        'The default name is the npm package with its scope (@eslint/mcp: eslint-mcp), else the script or command name. --out never replaces the measurement of another server (another command or arguments) under the same name: it refuses before measuring; pass --name. With --servers, each result is written as soon as it is known.',
        '--servers FILE takes a YAML or JSON list of servers, or an MCP client config with an "mcpServers" map (Claude Desktop, Cursor; VS Code\'s "servers" map too). An entry with url instead of command is a remote server: headers is a map of Header-Name: ENV_VAR_NAME (the variable\'s name, never the value), type sse forces HTTP+SSE, http or streamable-http streamable HTTP; without type the transport is detected.',
        'Claude divergence (method tools-delta/v1): --claude-model M projects the capture onto the three fields an Anthropic tool has (name, description, input_schema), asks count_tokens for a one-token message with and without those tools, and records the difference as claudeTokens in a claude block of measurement.json, beside the field-selection share (o200k of the projection against the whole capture) and the model id. The key is read from ANTHROPIC_API_KEY (or the variable --claude-key-env names) and is never printed or written; without it the flag is a usage error. --claude-base-url points at another endpoint (a proxy, a test server).',
        '--scan also runs the poisoning scan (rules MCP-P/H/E/S: docs/gateway.md, section Poisoning scan) over every string of every tool as captured and prints the findings per tool (rule id, path, reason, excerpt); with --json each measurement gains a scan field. It is heuristic, and findings never change the exit code.',
        `Capability probe: --probe ${PROBE_CAPABILITIES.join('|')} (repeatable, or a comma list) measures the server declaring nothing, then once per probed capability declaring that one alone, everything else identical, and reports per tool what changed (added, removed, tokens) and whether the status changed; --json prints the comparison. The client answers what it declares truthfully: roots/list with no roots, elicitation/create declined ({"action":"decline"}). sampling is refused: declaring it would claim this client can ask a model for a completion, and it cannot. A normal measurement declares nothing, so the published numbers do not depend on the probe.`,
        'Exit codes: 0 measured; 2 usage error (also a missing servers file, a name taken by another server, or --claude-model without a key); 3 a server could not be measured (its status says why), or count_tokens failed.',
      ].join('\n\n'),
    )
    .usage(`[options] -- <command> [args...]\n       ${invocationOf(io)} measure --url URL [--header NAME=ENV_NAME] [options]\n       ${invocationOf(io)} measure --servers FILE [--json] [--out DIR]`)
    .argument('[server...]', 'the command that starts the server, after --')
    .option('--servers <file>', 'measure every server of a list or an mcpServers map (YAML or JSON) in turn (default: the one server after --)')
    .option('--url <url>', 'measure the server at this URL over HTTP (streamable HTTP, or HTTP+SSE detected) (default: the server after --, over stdio)')
    .option(
      '--header <NAME=ENV_NAME>',
      'with --url: send header NAME with the value of environment variable ENV_NAME (repeatable; only names are recorded)',
      collectHeader,
      {} as Record<string, string>,
    )
    .option('--transport <kind>', 'with --url: auto, streamable-http or sse (default: auto: streamable HTTP, else HTTP+SSE)', parseTransport)
    .option(
      '--auth <mode>',
      'with --url: oauth (the server uses OAuth: send the login stored by mcpctx auth login URL, and say to log in when there is none) or none (never send a stored login) (default: the stored login when there is one)',
      parseAuthMode,
    )
    .option('--json', 'print the measurement object(s) exactly, as JSON')
    .option('--out <dir>', 'also write DIR/<name>/measurement.json, each as soon as it is measured (default: print only)')
    .option(
      '--capabilities <list>',
      `client capabilities to declare, comma-separated (${DECLARABLE_CAPABILITIES.join(', ')}) (default: none, {})`,
      parseCapabilities,
    )
    .option(
      '--probe <capability>',
      `compare a capture declaring nothing with one declaring this capability alone (${PROBE_CAPABILITIES.join(', ')}; repeatable or comma-separated; sampling is refused) (default: no probe, a normal measurement)`,
      collectProbe,
    )
    .option('--protocol-version <version>', 'protocol version to request', DEFAULT_PROTOCOL_VERSION)
    .option('--timeout <ms>', 'one budget per capture for start, initialize, tools/list and counting', parseTimeoutMs, DEFAULT_TIMEOUT_MS)
    .option('--runs <n>', 'captures to compare (a changing catalog is reported as dynamic)', parsePositiveInteger, DEFAULT_RUNS)
    .option('--env <NAME=VALUE>', 'pass a variable to the server (repeatable; the value is never recorded)', collectEnv, {} as Record<string, string>)
    .option('--cwd <dir>', 'working directory of the server; recorded as launch.cwd, relative to the current folder when inside it, else absolute (default: the current folder)')
    .option('--name <label>', 'label for the table and the output folder (default: the npm package, else the script or command name)')
    .option('--record-args', 'record the server arguments as given, credential-looking values included')
    .option('--scan', 'also scan every tool definition for poisoning (instructions aimed at the model, hidden Unicode, base64 runs)')
    .option('--claude-model <model>', 'also measure what the tools add to an Anthropic request on this model (count_tokens; tools-delta/v1) (default: not measured)')
    .option('--claude-key-env <NAME>', 'with --claude-model: the environment variable holding the Anthropic API key', DEFAULT_CLAUDE_KEY_ENV)
    .option('--claude-base-url <url>', 'with --claude-model: the Messages API base URL (default: https://api.anthropic.com)')
    .addHelpText('after', exampleHelp(io, 'measure -- npx -y @modelcontextprotocol/server-memory'))
    .action(async (server: string[], flags: MeasureFlags) => {
      setExit(await runMeasure(server, flags, io));
    });
}

async function runMeasure(server: string[], flags: MeasureFlags, io: CliIo): Promise<number> {
  if (flags.probe !== undefined) return runProbe(server, flags, io);
  const jobs = flags.servers ? await jobsFromFile(server, flags, io) : [flags.url === undefined ? jobFromFlags(server, flags, io) : jobFromUrl(server, flags, io)];
  const out = flags.out === undefined ? undefined : resolve(io.cwd, flags.out);
  // Before anything is measured: a result must not replace the file of another server.
  if (out !== undefined) {
    for (const job of jobs) await checkMeasurementTarget(out, job.name, recordedLaunch(job.launch, { recordArgs: job.recordArgs }));
  }
  const claude = flags.claudeModel === undefined ? undefined : claudeCounter(flags.claudeModel, flags, io);
  let claudeFailed = false;
  const measurements: Measurement[] = [];
  for (const [index, job] of jobs.entries()) {
    if (io.stderr.isTTY && jobs.length > 1) io.stderr.write(`measuring ${index + 1}/${jobs.length}: ${job.name}\n`);
    const measurement = await measureServer(job);
    if (claude !== undefined && !(await addClaudeBlock(measurement, flags.claudeModel ?? '', claude, io))) claudeFailed = true;
    measurements.push(measurement);
    // Written at once, so an interrupted list keeps everything measured so far.
    if (out !== undefined) io.stderr.write(`wrote ${await writeMeasurement(out, measurement)}\n`);
  }
  // Findings are information: they are printed, never turned into an exit code.
  // The scan's rules load only for --scan.
  const scanReport = flags.scan ? await import('./_scan-report.js') : undefined;
  const scans = scanReport ? measurements.map(scanReport.scanMeasurement) : undefined;
  if (flags.json) {
    const shown = scans === undefined ? measurements : measurements.map((measurement, index) => ({ ...measurement, scan: scans[index] ?? null }));
    io.stdout.write(`${JSON.stringify(flags.servers ? shown : shown[0], null, 2)}\n`);
  } else {
    io.stdout.write(summaryTable(measurements));
    for (const measurement of measurements) {
      // In a list, a plain "captures agree" on every row is noise; anything more is shown.
      const worthShowing = measurements.length === 1 || measurement.status !== 'measured' || measurement.note.includes(';');
      if (measurement.note && worthShowing) io.stdout.write(`${printableText(measurement.name, 'note')}: ${measurement.note}\n`);
    }
    const only = measurements.length === 1 ? measurements[0] : undefined;
    for (const measurement of measurements) {
      const block = measurement.claude;
      if (block === undefined) continue;
      io.stdout.write(
        `${printableText(measurement.name, 'note')}: on ${printableText(block.model, 'note')} the tools add ${formatCount(block.claudeTokens)} tokens to a request (count_tokens ${formatCount(block.withTools)} with, ${formatCount(block.withoutTools)} without); the three fields an Anthropic tool has are ${formatCount(block.projectedTokens)} o200k tokens, ${(block.fieldSelectionShare * 100).toFixed(1)}% of the capture\n`,
      );
    }
    if (only?.perTool && only.perTool.length > 0) io.stdout.write(`\n${perToolTable(only)}`);
    if (scanReport && scans) measurements.forEach((measurement, index) => io.stdout.write(`\n${scanReport.renderScan(measurement, scans[index] ?? null)}`));
    if (only?.stderrTail) io.stdout.write(`\nstderr (last ${only.stderrTail.length} chars):\n${only.stderrTail.trimEnd()}\n`);
  }
  const allMeasured = measurements.every((measurement) => measurement.status === 'measured' || measurement.status === 'dynamic');
  return allMeasured && !claudeFailed ? EXIT.ok : EXIT.failed;
}

/** `--probe`: one server, compared declaring nothing and declaring each probed capability alone. */
async function runProbe(server: string[], flags: MeasureFlags, io: CliIo): Promise<number> {
  const clashing = [
    flags.servers === undefined ? '' : '--servers',
    flags.capabilities === undefined ? '' : '--capabilities',
    flags.out === undefined ? '' : '--out',
    flags.claudeModel === undefined ? '' : '--claude-model',
    flags.scan ? '--scan' : '',
  ].filter((flag) => flag !== '');
  if (clashing.length > 0) {
    throw new McpctxError('USAGE', `--probe measures one server and declares one capability at a time against none; it does not take ${clashing.join(', ')}`);
  }
  const { capabilities: _none, ...job } = flags.url === undefined ? jobFromFlags(server, flags, io) : jobFromUrl(server, flags, io);
  const probe = await probeCapabilities({ ...job, probe: flags.probe ?? [] });
  io.stdout.write(flags.json ? `${JSON.stringify(probe, null, 2)}\n` : renderProbe(probe));
  const sides = [probe.baseline, ...probe.probes.map((result) => result.declared)];
  return sides.every((side) => side.status === 'measured' || side.status === 'dynamic') ? EXIT.ok : EXIT.failed;
}

/** `--probe roots --probe elicitation` or `--probe roots,elicitation`; sampling is refused with why. */
function collectProbe(value: string, previous: string[] | undefined): string[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  return checkProbeCapabilities([...(previous ?? []), ...names]);
}

/** The claude block for a measured server, reported on stderr when it cannot be added. False when count_tokens failed. */
async function addClaudeBlock(measurement: Measurement, model: string, count: ClaudeTokenCounter, io: CliIo): Promise<boolean> {
  try {
    if ((await addClaudeDivergence(measurement, model, count)) === 'redacted') {
      io.stderr.write(`${printableText(measurement.name, 'note')}: no claude divergence: the capture was redacted before recording, so its projection is not the server's\n`);
    }
    return true;
  } catch (error) {
    io.stderr.write(`${printableText(measurement.name, 'note')}: claude divergence failed: ${printableText(error instanceof Error ? error.message : String(error), 'note')}\n`);
    return false;
  }
}

function parseAuthMode(value: string): RemoteAuthMode {
  if (value === 'oauth' || value === 'none') return value;
  throw new InvalidArgumentError(`expected oauth or none, got "${value}"`);
}

function parseTransport(value: string): NonNullable<RemoteSpec['transport']> {
  if (value === 'auto' || value === 'streamable-http' || value === 'sse') return value;
  throw new InvalidArgumentError(`expected auto, streamable-http or sse, got "${value}"`);
}

function jobFromUrl(server: string[], flags: MeasureFlags, io: CliIo): MeasureOptions {
  if (server.length > 0) throw new McpctxError('USAGE', '--url and a server command after -- are exclusive; give one');
  const stdioOnly = [Object.keys(flags.env).length > 0 ? '--env' : '', flags.cwd === undefined ? '' : '--cwd', flags.recordArgs ? '--record-args' : ''].filter((flag) => flag !== '');
  if (stdioOnly.length > 0) {
    throw new McpctxError('USAGE', `${stdioOnly.join(', ')} ${stdioOnly.length === 1 ? 'is' : 'are'} for a server command, not --url; send credentials with --header NAME=ENV_NAME`);
  }
  if (MALFORMED_HEADER in flags.header) {
    throw new McpctxError('USAGE', '--header takes NAME=ENV_NAME: the header name and the name of the environment variable that holds its value (--header Authorization=MY_TOKEN sends $MY_TOKEN), never the value itself');
  }
  const launch: RemoteSpec = {
    url: flags.url ?? '',
    headers: flags.header,
    ...(flags.transport === undefined ? {} : { transport: flags.transport }),
    ...(flags.auth === undefined ? {} : { auth: flags.auth }),
  };
  checkRemoteSpec(launch);
  return {
    name: flags.name ?? defaultUrlName(launch.url),
    launch,
    env: io.env,
    capabilities: flags.capabilities,
    protocolVersion: flags.protocolVersion,
    timeoutMs: flags.timeout,
    runs: flags.runs,
  };
}

/** `https://mcp.example.com/sse` is `mcp.example.com`; a port is kept (`127.0.0.1-3000`). */
export function defaultUrlName(url: string): string {
  const parsed = new URL(url);
  return parsed.port === '' ? parsed.hostname : `${parsed.hostname}-${parsed.port}`;
}

function jobFromFlags(server: string[], flags: MeasureFlags, io: CliIo): MeasureOptions {
  if (Object.keys(flags.header).length > 0 || flags.transport !== undefined || flags.auth !== undefined) {
    throw new McpctxError('USAGE', '--header, --transport and --auth are for a remote server: give --url URL (or url: entries in a --servers file)');
  }
  const [command, ...args] = server;
  if (command === undefined) {
    throw new McpctxError('USAGE', `give the server command after --, e.g. ${invocationOf(io)} measure -- npx -y @modelcontextprotocol/server-memory, or use --servers FILE`);
  }
  return {
    // Named from the arguments as recorded, so a credential never becomes a folder name.
    name: flags.name ?? defaultName(command, recordedLaunch({ command, args }, { recordArgs: flags.recordArgs }).args),
    launch: { command, args, cwd: flags.cwd === undefined ? io.cwd : resolve(io.cwd, flags.cwd), env: flags.env },
    // The record names a --cwd inside the current folder relative to it, like a servers file's.
    cwdBase: io.cwd,
    capabilities: flags.capabilities,
    protocolVersion: flags.protocolVersion,
    timeoutMs: flags.timeout,
    runs: flags.runs,
    recordArgs: flags.recordArgs,
  };
}

async function jobsFromFile(server: string[], flags: MeasureFlags, io: CliIo): Promise<ServersFile['servers']> {
  if (server.length > 0) throw new McpctxError('USAGE', '--servers FILE and a server command are exclusive; give one');
  if (flags.url !== undefined) throw new McpctxError('USAGE', '--servers FILE and --url are exclusive; give one (a servers file takes url: entries)');
  if (Object.keys(flags.header).length > 0 || flags.transport !== undefined || flags.auth !== undefined) {
    throw new McpctxError('USAGE', '--header, --transport and --auth go with --url; in a servers file, give each url entry its headers:, type: and auth:');
  }
  const file = await loadServersFile(resolve(io.cwd, flags.servers ?? ''));
  // Flags given on the command line apply to every entry that does not set its own.
  return file.servers.map((entry) => ({
    ...entry,
    launch: 'url' in entry.launch ? entry.launch : { ...entry.launch, env: { ...flags.env, ...entry.launch.env } },
    env: io.env,
    capabilities: entry.capabilities ?? flags.capabilities,
    protocolVersion: entry.protocolVersion ?? flags.protocolVersion,
    timeoutMs: entry.timeoutMs ?? flags.timeout,
    runs: entry.runs ?? flags.runs,
    recordArgs: flags.recordArgs,
  }));
}

const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'pnpx', 'uvx']);
const PACKAGE_ARG = /^(@[\w.-]+\/)?[\w.-]+(@[\w.^~<>=-]+)?$/;

/**
 * A readable label that tells servers apart: the npm package a script lives in or a runner
 * fetches, scope included (`@eslint/mcp` is `eslint-mcp`, `@playwright/mcp` is `playwright-mcp`),
 * without its version; else the script or command name.
 */
export function defaultName(command: string, args: readonly string[]): string {
  for (const candidate of [command, ...args]) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(candidate);
    if (match?.[1]) return packageLabel(match[1]);
  }
  const runner = basename(command);
  const fetched = runner === 'pnpm' || runner === 'yarn' ? (args[0] === 'dlx' ? args.slice(1) : []) : PACKAGE_RUNNERS.has(runner) ? args : [];
  const packageArg = fetched.find((arg) => PACKAGE_ARG.test(arg) && !arg.startsWith('-'));
  if (packageArg) return packageLabel(packageArg);
  const script = args.find((arg) => /\.(c|m)?(j|t)s$|\.py$/.test(arg));
  return basename(script ?? command).replace(/\.[^.]+$/, '');
}

/** `@scope/name@1.2.3` as `scope-name`. */
function packageLabel(spec: string): string {
  return spec.replace(/(?<=.)@[^/]*$/, '').replace(/^@/, '').replace('/', '-');
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
