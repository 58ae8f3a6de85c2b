import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { audit, type AuditOptions, type AuditPlatform } from '../audit/index.js';
import { DEFAULT_RUNS, DEFAULT_TIMEOUT_MS } from '../measure/index.js';
import { renderAudit } from './_audit-render.js';
import { measureProgress } from './_measure-progress.js';
import { exampleHelp } from './_help.js';
import { EXIT, type CliIo } from './_io.js';
import { parsePositiveInteger, parseTimeoutMs } from './_parse.js';

interface AuditFlags {
  config?: string[];
  home?: string;
  cwd?: string;
  platform?: AuditPlatform;
  systemRoot?: string;
  budget?: number;
  budgetFloorOk?: boolean;
  contextWindow?: number;
  verbose?: boolean;
  changed?: string;
  published?: string;
  suggest?: string;
  json?: boolean;
  measure: boolean;
  timeout?: number;
  runs?: number;
  concurrency?: number;
}

function parsePlatform(value: string): AuditPlatform {
  if (value === 'linux' || value === 'darwin' || value === 'win32') return value;
  throw new InvalidArgumentError('expected linux, darwin or win32');
}

function parseTokens(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected a whole number of tokens');
  return Number(value);
}

function parseWindow(value: string): number {
  const tokens = parseTokens(value);
  if (tokens < 1) throw new InvalidArgumentError('expected a positive number of tokens');
  return tokens;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function setupAudit(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Finds the MCP configs of Claude Code (~/.claude.json, <cwd>/.mcp.json, managed-mcp.json), Claude Desktop, Cursor, VS Code, Windsurf, Gemini CLI, Zed, Goose, Codex CLI and Kiro, lists every place consulted as read, absent or unreadable (with why, and the line and column of a parse error), and measures every server in them once (the same launch in two configs is one process). A url entry gets an initialize without its headers, carrying only the login mcpctx auth login URL stored for it (if any): 401/403 is remote-auth-wall with the challenge quoted and the login command. ${VAR} and ${env:VAR} expansions are reported as set, never evaluated. Env and header values are never printed or written, only their names.',
        'Totals are per config file (never merged across clients) and per session: Claude Code loads ~/.claude.json with <cwd>/.mcp.json, or managed-mcp.json alone when it exists; deniedMcpServers is applied, allowedMcpServers reported. Every request carries a session\'s total in its tools array, deferred or not; what deferral changes is what enters the context at session start.',
        'Claude Code\'s deferral posture is read from the shell and the env blocks of its settings files (managed and drop-ins, .claude/settings.local.json, .claude/settings.json, ~/.claude/settings.json): CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS, ENABLE_TOOL_SEARCH, ANTHROPIC_BASE_URL. Conflicts, unreadable files or values and undocumented values are refused, with why, rather than guessed. For auto / auto:N the threshold question is a range through the published Claude divergence band (0.19x-1.93x) against the stated context window; a server whose capture has a Claude count in --published RESULTS (or in its own measurement) is converted with that exact count, and a count computed from other bytes is named as stale and not used. Other clients: what their vendor has on record, with source and date.',
        '--changed RESULTS joins each measured server to RESULTS/capture-index.json by canonical hash, never by name: behind (with the tokens moving to current would add), current, or unidentified. --suggest RESULTS lists descriptions at or above the p90 of RESULTS/tool-shape.json.',
        '--budget N judges every session and fails closed: exit 1 when any session carries more than N, or when a total is unknown (composition refused, nothing measured, a file that cannot be read, no session at all) or only a floor under N; a floor already over N is a proven OVER. --budget-floor-ok accepts a floor under N, and says so.',
        'The report leads with the sessions (tokens every request carries, share of --context-window, deferred or not), then each server once by cost with where it is configured, the budget verdict and the problems; --verbose adds places, settings files, per-file totals, posture evidence, vendor sources and the conditions to check. Progress goes to stderr.',
        'Exit codes: 0 done (and --budget within for every session); 1 --budget over or not proven within; 2 usage; 3 the audit could not run.',
      ].join('\n\n'),
    )
    .option('--config <path>', 'audit this config file instead of discovering (repeatable; each is its own session) (default: discover every known client config)', collect)
    .option('--home <dir>', 'home folder to discover from (default: yours)')
    .option('--cwd <dir>', 'project folder for project configs (default: the current folder)')
    .option('--platform <name>', 'whose config paths to read: linux, darwin or win32 (default: this one)', parsePlatform)
    .option('--system-root <dir>', 'prefix of system-wide paths such as /etc/claude-code (default: /)')
    .option('--budget <tokens>', 'exit 1 unless every session is proven to carry at most this many tokens per request (default: no budget, exit 0)', parseTokens)
    .option('--budget-floor-ok', 'with --budget, accept a session whose total is only a floor under the budget (default: a floor fails the budget)')
    .option('--context-window <tokens>', 'the context window shares and the auto threshold are stated against (default: 200000)', parseWindow)
    .option('--verbose', 'print the details: places, settings files, per-file totals, composition, posture evidence, vendor sources (default: the answer only)')
    .option('--changed <results>', 'a results folder (capture-index.json): are the measured servers behind what was published? (default: not compared)')
    .option('--published <results>', 'a results folder (capture-index.json and records): servers whose capture has a Claude count there are converted exactly in the auto threshold (default: the divergence band for every server)')
    .option('--suggest <results>', 'a results folder (tool-shape.json): descriptions at or above its 90th percentile (default: no suggestions)')
    .option('--json', 'print one JSON object: every place read, every entry, measurements, sessions, posture and totals')
    .option('--no-measure', 'list what is configured without launching or contacting anything (default: measure every server)')
    .option('--timeout <ms>', `budget per capture in milliseconds (default: ${DEFAULT_TIMEOUT_MS})`, parseTimeoutMs)
    .option('--runs <n>', `captures per server (default: ${DEFAULT_RUNS})`, parsePositiveInteger)
    .option('--concurrency <n>', 'servers measured at once (default: 2)', parsePositiveInteger)
    .addHelpText('after', exampleHelp(io, 'audit --budget 20000'))
    .action(async (flags: AuditFlags) => {
      const options: AuditOptions = { measure: flags.measure, shellEnv: io.env };
      const roots: NonNullable<AuditOptions['roots']> = { cwd: resolve(io.cwd, flags.cwd ?? '.') };
      if (flags.home !== undefined) roots.home = resolve(io.cwd, flags.home);
      else if (io.env.HOME !== undefined && io.env.HOME !== '') roots.home = io.env.HOME;
      if (flags.platform !== undefined) roots.platform = flags.platform;
      if (flags.systemRoot !== undefined) roots.systemRoot = resolve(io.cwd, flags.systemRoot);
      options.roots = roots;
      if (flags.config !== undefined) options.configs = flags.config.map((path) => resolve(io.cwd, path));
      if (flags.budget !== undefined) options.budget = flags.budget;
      if (flags.budgetFloorOk === true) options.budgetFloorOk = true;
      if (flags.contextWindow !== undefined) options.contextWindow = flags.contextWindow;
      if (flags.changed !== undefined) options.changed = resolve(io.cwd, flags.changed);
      if (flags.published !== undefined) options.published = resolve(io.cwd, flags.published);
      if (flags.suggest !== undefined) options.suggest = resolve(io.cwd, flags.suggest);
      if (flags.timeout !== undefined) options.timeoutMs = flags.timeout;
      if (flags.runs !== undefined) options.runs = flags.runs;
      if (flags.concurrency !== undefined) options.concurrency = flags.concurrency;
      Object.assign(options, measureProgress(io));
      const report = await audit(options);
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderAudit(report, { verbose: flags.verbose === true }));
      setExit(report.budget !== undefined && report.budget.verdict !== 'within' ? EXIT.finding : EXIT.ok);
    });
}
