import { resolve } from 'node:path';
import type { Command } from 'commander';
import { McpctxError } from '../errors/index.js';
// The config and the upstreams' surfaces are light; the gateway itself (sessions, shaping, trust,
// stores) is imported once the stdio client's servers are starting, so they boot while it loads,
// and what only the subcommands print with (the renderers, which use measure) when they run.
import { DEFAULT_TIMEOUTS, configForCommand, loadGatewayConfig, type GatewayConfig } from '../gateway/config/index.js';
import { prepareUpstreams } from '../gateway/upstream/index.js';
import { MCPCTX_CLIENT_INFO } from '../mcp/index.js';
import { setupGatewayWrap } from './_gateway-wrap.js';
import { exampleHelp } from './_help.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';
import { collectEnv, parsePositiveInteger, parseTimeoutMs } from './_parse.js';
import { ownValue } from '../json/index.js';
import type { SharedState } from '../gateway/state/index.js';

interface GatewayFlags {
  config?: string;
  http?: string;
  allowRemote?: boolean;
  allowHost: string[];
  allowOrigin: string[];
  maxSessions?: number;
  maxSessionsPerClient?: number;
  sessionIdle?: number;
  tokenEnv: string[];
  keyEnv?: string;
  store?: string;
  state?: string;
  stateEnv?: string;
  trustProxy: string[];
  storeTtl: number;
  storeMaxMb: number;
  receipts?: string;
  receiptsArgs?: boolean;
  requestTimeout: number;
  startupTimeout: number;
  env: Record<string, string>;
  cwd?: string;
}

const DEFAULT_STORE_TTL_MS = 60 * 60 * 1000;
const DEFAULT_STORE_MAX_MB = 256;
const MIN_SECRET_BYTES = 16;

/** A repeatable option's values, in the order given. */
function collectValues(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function setupGateway(command: Command, io: CliIo, setExit: (code: number) => void): void {
  const gateway = command
    .description(
      [
        'Sits between an MCP client and one or more MCP servers, relays every message faithfully, and applies per-tool rules in tokens: hide tools, shorten descriptions, project and page results with bound cursors, offload what is too big behind a handle (read_result), refuse with a remedy instead of truncating, offer search_tools instead of a full catalog, and write a receipt for every call.',
        `One stdio server without a config file:  ${invocationOf(io)} gateway -- npx -y @modelcontextprotocol/server-everything`,
        `Several servers and rules:                ${invocationOf(io)} gateway --config gateway.yaml   (see: ${invocationOf(io)} gateway check --help)`,
        'Client side: stdio by default; --http HOST:PORT serves streamable HTTP at http://HOST:PORT/mcp (loopback only, unless --allow-remote with a bearer token from --token-env). On loopback, requests must name the gateway in Host (localhost, 127.0.0.1 or [::1] on its port: a page using DNS rebinding is refused) and come from no page or a loopback page on its port; --allow-host and --allow-origin add more. Sessions are limited in total and per client (remote address); one with no stream open ends after --session-idle of silence, and at a limit a client\'s own longest-silent such session (silent for a minute) makes room for its new one.',
        'A team runs several instances behind a load balancer that routes by Mcp-Session-Id: --state redis://... shares offloaded results, pins and receipt counters, --key-env the key every instance signs handles with, --trust-proxy the balancer\'s address (docs/gateway-team.md).',
        'An upstream that cannot start (a command not found, a url nobody answers, a variable not set, an entry the gateway cannot serve, a server that exits or fails initialize) is logged on stderr and listed as unavailable; the others serve.',
        'Exit codes: 0 the client went away; 2 bad config or flags (every problem listed), or no upstream can start for a config mistake; 3 no upstream can be reached (each named with why), the port is in use, or a file cannot be opened. Nothing is left running on a failed start.',
      ].join('\n\n'),
    )
    .argument('[upstream...]', 'the command of one stdio upstream, after --')
    .option('--config <file>', 'the gateway config (YAML or JSON): mcpServers, allow, deny, capTokens, offload, search, tools; or a client\'s MCP config file as it is (default: the one upstream after --, default rules)')
    .option('--http <host:port>', 'serve streamable HTTP on this address instead of stdio; port 0 picks a free one (default: stdio)')
    .option('--allow-remote', 'allow a non-loopback --http address (needs --token-env)')
    .option('--token-env <NAME>', 'clients must send "Authorization: Bearer <value of NAME>"; repeat it to give each agent its own token, whose sessions and result handles the others cannot use (default: no token, loopback only)', collectValues, [] as string[])
    .option('--allow-host <host>', 'also accept this Host header value, as clients send it: NAME or NAME:PORT (repeatable); a loopback bind always accepts localhost, 127.0.0.1 and [::1] on its port, another bind only these when given', collectValues, [] as string[])
    .option('--allow-origin <origin>', 'also accept requests from pages of this origin, http[s]://HOST[:PORT] (repeatable); a loopback bind always accepts loopback origins on its port, another bind only these when given', collectValues, [] as string[])
    .option('--max-sessions <n>', 'HTTP sessions open at once, all clients together (default: 64)', parsePositiveInteger)
    .option('--max-sessions-per-client <n>', 'HTTP sessions one client (remote address) may hold (default: 16; on loopback, where every local process is one address, --max-sessions)', parsePositiveInteger)
    .option('--session-idle <ms>', 'an HTTP session with no stream open and no request in flight ends after this much silence (default: 300000)', parseTimeoutMs)
    .option('--key-env <NAME>', 'HMAC key for handles and cursors from this variable (>= 16 bytes), shared by instances behind a load balancer (default: a random key per process)')
    .option('--store <file>', 'keep offloaded results in this SQLite file (default: in memory)')
    .option('--state <url>', 'share offloaded results, pins and receipt counters with other instances in Redis, redis://[user:password@]host:port/db or rediss:// (needs --key-env, the same on every instance) (default: in this process, or --store)')
    .option('--state-env <NAME>', 'the --state URL from this variable, so a password stays out of the command line (default: --state)')
    .option('--trust-proxy <address>', 'a load balancer in front (its IP, repeatable): its requests count, per client, as the last X-Forwarded-For address (default: none)', collectValues, [] as string[])
    .option('--store-ttl <ms>', 'how long an offloaded result is kept', parseTimeoutMs, DEFAULT_STORE_TTL_MS)
    .option('--store-max-mb <n>', 'most megabytes of offloaded results kept; the oldest are evicted first', parsePositiveInteger, DEFAULT_STORE_MAX_MB)
    .option('--receipts <file>', 'append one JSON line per call and per tools/list (default: no receipts)')
    .option('--receipts-args', 'include argument values in receipts (they may hold secrets)')
    .option('--request-timeout <ms>', 'budget of one relayed request', parseTimeoutMs, DEFAULT_TIMEOUTS.requestMs)
    .option('--startup-timeout <ms>', 'budget for every upstream to start and answer initialize', parseTimeoutMs, DEFAULT_TIMEOUTS.startupMs)
    .option('--env <NAME=VALUE>', 'a variable for the upstream given after -- (repeatable; never recorded)', collectEnv, {} as Record<string, string>)
    .option('--cwd <dir>', 'working directory of the upstream given after -- (default: the current folder)')
    .addHelpText('after', exampleHelp(io, 'gateway -- npx -y @modelcontextprotocol/server-everything'))
    .action(async (upstream: string[], flags: GatewayFlags) => {
      setExit(await runGateway(upstream, flags, io));
    });

  gateway
    .command('check')
    .summary('validate a gateway config, start its upstreams and show what each rule matches')
    .description(
      [
        'Reads the config, validates every key, and prints the effective rules with defaults applied, then notes on what it read past. Env and header values are never printed, only their names.',
        'Then it starts every enabled upstream as the gateway would (--startup-timeout each), lists its tools, stops it, and shows each tool with the rules that apply to it; a rule that matches no tool of the upstreams it names is a warning (an error with --strict), and an upstream that cannot start is reported. --offline checks the config alone and starts nothing.',
        'Rules name tools by upstream and the name the server gives them, whatever the client is shown: SERVER/tool, SERVER__tool (SERVER a configured server, disabled ones included) or a bare tool for every upstream; * and ? globs in either part.',
        'Top-level keys: mcpServers ({NAME: {command, args, env, cwd} | {url, headers}}), separator ("__"), allow and deny (a list of rule keys, or {SERVER: [its tool names]}), capTokens (25000), offload (true), search ({enabled, topK, pinned}), tools ({KEY: {description, maxDescriptionTokens, dropOutputSchema, drop, project, format, pageTokens, maxTokens}}), pin, scan, confirmDestructive.',
        'A client\'s config file works as it is: Claude Desktop\'s claude_desktop_config.json, Claude Code\'s .mcp.json or ~/.claude.json, Cursor\'s mcp.json, Windsurf\'s mcp_config.json, Cline\'s cline_mcp_settings.json, VS Code\'s mcp.json (its servers map) or settings.json (mcp.servers). The client\'s own settings (globalShortcut, inputs, projects; autoApprove, alwaysAllow, timeout, envFile per server) are listed under notes and ignored, never errors; a key within a letter or two of a gateway key (capToken, comand) is an error naming the key it was likely meant to be. Per server, serverUrl and httpUrl are read as url, transportType as type; type sse is relayed over the older HTTP+SSE transport; a value from a VS Code ${input:ID} makes that server unavailable (the others serve).',
        'In command, args, env, url and headers, ${NAME}, ${env:NAME} and ${NAME:-default} come from the gateway\'s environment at start (a NAME that is not set, without a default, makes that server unavailable); ${workspaceFolder} is the folder holding .vscode/ (else the config\'s folder) and ${userHome} the home folder. A relative cwd, and a command with a folder in it (./server.js, bin/server), are resolved from the config\'s folder; a bare command (node, npx) is looked up on PATH.',
        'Exit codes: 0 valid (warnings are printed); 2 invalid (every problem listed with its path and reason), or with --strict a rule that matches no tool; 3 the file cannot be read, or an upstream could not start or list its tools.',
      ].join('\n\n'),
    )
    .argument('<file>', 'the gateway config')
    .option('--offline', 'do not start the upstreams: check the config alone')
    .option('--strict', 'a rule that matches no tool is an error (exit 2)')
    .option('--startup-timeout <ms>', 'budget for each upstream to start, initialize and list its tools', parseTimeoutMs, DEFAULT_TIMEOUTS.startupMs)
    .option('--json', 'print the effective rules and the check as JSON')
    .addHelpText('after', exampleHelp(io, 'gateway check gateway.yaml'))
    .action(async (file: string, flags: { json?: boolean; offline?: boolean; strict?: boolean; startupTimeout: number }) => {
      const config = await loadGatewayConfig(resolve(io.cwd, file));
      const [{ checkGateway }, { renderGatewayCheck }] = await Promise.all([import('../gateway/check/index.js'), import('./_gateway-render.js')]);
      const check = await checkGateway(config, { env: io.env, offline: flags.offline === true, startupTimeoutMs: flags.startupTimeout });
      io.stdout.write(flags.json ? `${JSON.stringify(check, null, 2)}\n` : renderGatewayCheck(check, flags.strict === true));
      const failed = check.upstreamChecks.some((upstream) => upstream.status === 'failed');
      setExit(flags.strict === true && check.unmatchedRules.length > 0 ? EXIT.usage : failed ? EXIT.failed : EXIT.ok);
    });

  gateway
    .command('pins')
    .summary('tool definitions pinned by hash, and the changes waiting for approval')
    .description(
      [
        'Reads the pin file a gateway with `pin: { file: PATH }` keeps: per upstream, every tool pinned by the sha256 of its canonical JSON (with its o200k tokens and the date), and every definition held back because it changed since it was pinned or was never pinned, with what changed field by field and its tokens before and after.',
        'Besides tools, a gateway pins each upstream\'s instructions and its prompts, resources and resource templates; they are named instructions, prompt:NAME, resource:URI and template:TEMPLATE (a tool may be named tool:NAME when a name is ambiguous).',
        '--approve NAME... pins the pending definitions named (NAME, or upstream/NAME when two upstreams have one pending), each only if it is still the definition the last listing showed; NAME@SHA (the hash the listing shows: 12 hex characters or more, or the whole sha256) pins only that definition. --approve-all pins every pending definition, only when each is the one last listed. --reject NAME... keeps a definition held without proposing it again until it changes. When any approval is refused (the definition changed since it was listed, or is not the hash given), nothing is changed and the listing shows the definitions as they are now. The file is updated under its lock (FILE.lock) and rewritten atomically; a running gateway applies it at its next check (a restart, the upstream\'s list_changed, a new session).',
        'Gateways sharing a state (--state redis://...) keep their pins there instead: give that URL in place of FILE (or --state-env NAME), and every instance applies the change at its next check.',
        'Exit codes: 0 done; 2 a name that is unknown or ambiguous, or an approval refused (nothing changed); 3 the file (or the shared state) cannot be read, locked or written (a gateway holds everything back while it cannot read it).',
      ].join('\n\n'),
    )
    .argument('[file]', 'the pin file, or the redis:// URL of a shared state (required unless --state-env)')
    .option('--state-env <NAME>', 'the shared state\'s URL from this variable, so a password stays out of the command line (default: FILE)')
    .option('--approve <names...>', 'pin these pending definitions, NAME or NAME@SHA (default: none)')
    .option('--approve-all', 'pin every pending definition, if each is the one last listed')
    .option('--reject <names...>', 'keep these pending definitions held, without proposing them again (default: none)')
    .option('--json', 'print the pins and pending changes as JSON')
    .addHelpText('after', exampleHelp(io, 'gateway pins pins.json --approve read_file'))
    .action(async (file: string | undefined, flags: { approve?: string[]; approveAll?: boolean; reject?: string[]; json?: boolean; stateEnv?: string }) => {
      const [{ managePins }, { renderPins }] = await Promise.all([import('../gateway/index.js'), import('./_gateway-render.js')]);
      const choices = {
        ...(flags.approve === undefined ? {} : { approve: flags.approve }),
        ...(flags.reject === undefined ? {} : { reject: flags.reject }),
        approveAll: flags.approveAll === true,
      };
      const listing = await withFileOrState(file, flags.stateEnv, io, {
        file: (path) => managePins({ file: path, ...choices }),
        state: (shared) => managePins({ document: shared.pins, ...choices }),
      });
      io.stdout.write(flags.json ? `${JSON.stringify(listing, null, 2)}\n` : renderPins(listing, invocationOf(io)));
      setExit(listing.refused.length > 0 ? EXIT.usage : EXIT.ok);
    });

  gateway
    .command('report')
    .summary('tokens in and out, and calls, per tool and action, from a receipts file')
    .argument('[file]', 'a receipts file written with --receipts, or the redis:// URL of a shared state (its counters: every instance\'s calls; required unless --state-env)')
    .option('--state-env <NAME>', 'the shared state\'s URL from this variable, so a password stays out of the command line (default: FILE)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'gateway report receipts.jsonl'))
    .action(async (file: string | undefined, flags: { json?: boolean; stateEnv?: string }) => {
      const [{ readGatewayReport }, { renderGatewayReport }] = await Promise.all([import('../gateway/index.js'), import('./_gateway-render.js')]);
      const report = await withFileOrState(file, flags.stateEnv, io, { file: (path) => readGatewayReport(path), state: (shared) => shared.report() });
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderGatewayReport(report));
      setExit(EXIT.ok);
    });

  setupGatewayWrap(gateway, io, setExit);
}

async function runGateway(upstream: readonly string[], flags: GatewayFlags, io: CliIo): Promise<number> {
  const config = await configFrom(upstream, flags, io);
  const front = flags.http === undefined ? undefined : parseHostPort(flags.http);
  if (flags.allowRemote && !front) throw new McpctxError('USAGE', '--allow-remote only applies with --http');
  const tokens = flags.tokenEnv.map((name) => secretFromEnv(name, io.env, '--token-env'));
  if (tokens.length > 0 && !front) throw new McpctxError('USAGE', '--token-env only applies with --http');
  const httpOnly = [
    ['--allow-host', flags.allowHost.length > 0],
    ['--allow-origin', flags.allowOrigin.length > 0],
    ['--max-sessions', flags.maxSessions !== undefined],
    ['--max-sessions-per-client', flags.maxSessionsPerClient !== undefined],
    ['--session-idle', flags.sessionIdle !== undefined],
    ['--trust-proxy', flags.trustProxy.length > 0],
  ] as const;
  const stray = httpOnly.filter(([, given]) => given && !front).map(([flag]) => flag);
  if (stray.length > 0) throw new McpctxError('USAGE', `${stray.join(', ')} only ${stray.length === 1 ? 'applies' : 'apply'} with --http`);
  const key = flags.keyEnv === undefined ? undefined : Buffer.from(secretFromEnv(flags.keyEnv, io.env, '--key-env'));
  const state = stateUrlFrom(flags, io.env);
  if (state !== undefined && flags.store !== undefined) throw new McpctxError('USAGE', '--store and --state both say where offloaded results go: give one (--state shares them between instances)');
  if (state !== undefined && key === undefined) {
    throw new McpctxError('USAGE', '--state shares handles and cursors between instances and restarts, so every instance must sign them with the same key: add --key-env NAME (at least 16 bytes)');
  }
  const log = (line: string): void => void io.stderr.write(`mcpctx gateway: ${line}\n`);
  // A stdio client has one session: its servers start now and boot while the gateway loads.
  const prepared = await prepareUpstreams(config, io.env, { start: front === undefined });
  const gateway = await import('../gateway/index.js').catch(async (error: unknown) => {
    await prepared.close();
    throw error;
  });
  const running = await gateway.startGateway({
    config,
    prepared,
    front: front
      ? {
          kind: 'http',
          host: front.host,
          port: front.port,
          allowRemote: flags.allowRemote,
          tokens,
          allowHosts: flags.allowHost,
          allowOrigins: flags.allowOrigin,
          maxSessions: flags.maxSessions,
          maxSessionsPerClient: flags.maxSessionsPerClient,
          sessionIdleMs: flags.sessionIdle,
          trustProxies: flags.trustProxy,
        }
      : { kind: 'stdio', input: process.stdin, output: process.stdout },
    env: io.env,
    storeFile: flags.store === undefined ? undefined : resolve(io.cwd, flags.store),
    state,
    storeTtlMs: flags.storeTtl,
    storeMaxBytes: flags.storeMaxMb * 1024 * 1024,
    receiptsFile: flags.receipts === undefined ? undefined : resolve(io.cwd, flags.receipts),
    receiptsArgs: flags.receiptsArgs,
    key,
    requestTimeoutMs: flags.requestTimeout,
    startupTimeoutMs: flags.startupTimeout,
    log,
    version: MCPCTX_CLIENT_INFO.version,
    invocation: io.invocationAnywhere,
  });
  const unavailable = prepared.unavailable.size === 0 ? '' : `; unavailable: ${[...prepared.unavailable.keys()].join(', ')}`;
  const names = `upstreams: ${prepared.resolved.map((spec) => spec.name).join(', ')}${unavailable}`;
  log(running.url ? `listening on ${running.url} (${names})` : `relaying stdio (${names})`);
  await running.done;
  await running.close();
  return EXIT.ok;
}

async function configFrom(upstream: readonly string[], flags: GatewayFlags, io: CliIo): Promise<GatewayConfig> {
  const [command, ...args] = upstream;
  if (flags.config !== undefined && command !== undefined) {
    throw new McpctxError('USAGE', 'give either --config FILE or one upstream command after --, not both');
  }
  if (flags.config !== undefined) return loadGatewayConfig(resolve(io.cwd, flags.config));
  if (command === undefined) {
    throw new McpctxError('USAGE', `no upstream: give --config FILE, or one stdio server after --, e.g. ${invocationOf(io)} gateway -- npx -y <package>`);
  }
  return configForCommand({ command, args, env: flags.env, cwd: flags.cwd === undefined ? undefined : resolve(io.cwd, flags.cwd) });
}

function parseHostPort(value: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (!match || host === undefined || !Number.isInteger(port) || port > 65_535) {
    throw new McpctxError('USAGE', `--http wants HOST:PORT (e.g. 127.0.0.1:8808, [::1]:0), got ${JSON.stringify(value)}`);
  }
  return { host, port };
}

const STATE_URL = /^rediss?:\/\//i;

/**
 * A subcommand's FILE argument, which may also name a shared state (a redis:// URL, or
 * --state-env NAME): runs the file or the state variant, closing the state's connection after.
 */
async function withFileOrState<T>(
  given: string | undefined,
  stateEnv: string | undefined,
  io: CliIo,
  run: { file: (path: string) => Promise<T>; state: (shared: SharedState) => Promise<T> },
): Promise<T> {
  if (given !== undefined && stateEnv !== undefined) throw new McpctxError('USAGE', 'give FILE (or a redis:// URL) or --state-env NAME, not both');
  const url = stateEnv !== undefined ? stateUrlFrom({ stateEnv }, io.env) : given !== undefined && STATE_URL.test(given) ? given : undefined;
  if (url === undefined) {
    if (given === undefined) throw new McpctxError('USAGE', 'give the file (or the redis:// URL of a shared state, or --state-env NAME)');
    return run.file(resolve(io.cwd, given));
  }
  const { openSharedState } = await import('../gateway/state/index.js');
  const shared = await openSharedState(url);
  try {
    return await run.state(shared);
  } finally {
    await shared.close();
  }
}

/** `--state URL` or `--state-env NAME` (not both); undefined for neither. */
function stateUrlFrom(flags: { state?: string; stateEnv?: string }, env: NodeJS.ProcessEnv): string | undefined {
  if (flags.state !== undefined && flags.stateEnv !== undefined) throw new McpctxError('USAGE', 'give --state URL or --state-env NAME, not both');
  if (flags.stateEnv === undefined) return flags.state;
  const value = ownValue(env, flags.stateEnv);
  if (value === undefined || value === '') throw new McpctxError('USAGE', `--state-env ${flags.stateEnv}: the variable is not set`, { variable: flags.stateEnv });
  return value;
}

function secretFromEnv(name: string, env: NodeJS.ProcessEnv, flag: string): string {
  const value = ownValue(env, name);
  if (value === undefined || value === '') throw new McpctxError('USAGE', `${flag} ${name}: the variable is not set`);
  if (Buffer.byteLength(value) < MIN_SECRET_BYTES) {
    throw new McpctxError('USAGE', `${flag} ${name}: the value is too short (at least ${MIN_SECRET_BYTES} bytes)`);
  }
  return value;
}
