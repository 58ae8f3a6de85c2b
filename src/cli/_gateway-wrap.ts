// `mcpctx gateway wrap` and `gateway unwrap`: parse, call src/wrap, print. Exit codes: 0 done,
// 1 refused by the files' state (already wrapped, changed since, nothing to front), 2 usage,
// 3 a file cannot be read or written.
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { exampleHelp } from './_help.js';
import { EXIT, type CliIo } from './_io.js';
import { shellWord } from './_invocation.js';
import { measureProgress } from './_measure-progress.js';
import { parsePositiveInteger, parseTimeoutMs } from './_parse.js';

interface WrapFlags {
  client: string;
  scope?: string;
  dryRun?: boolean;
  measure: boolean;
  searchAbove?: number;
  cap?: number;
  deny: string[];
  launch?: string;
  home?: string;
  cwd?: string;
  timeout?: number;
  runs: number;
  json?: boolean;
}

function parseTokens(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected a whole number of tokens');
  return Number(value);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The unwrap that undoes this wrap, with the folders this run was given. */
function undoInvocation(io: CliIo, flags: { home?: string; cwd?: string }, plan: { client: string; scope: string }): string {
  const words = [io.invocation ?? 'mcpctx', 'gateway unwrap', '--client', plan.client, '--scope', plan.scope];
  if (flags.home !== undefined) words.push('--home', shellWord(resolve(io.cwd, flags.home)));
  if (flags.cwd !== undefined) words.push('--cwd', shellWord(resolve(io.cwd, flags.cwd)));
  return words.join(' ');
}

function rootsOf(flags: { home?: string; cwd?: string }, io: CliIo): { home?: string; cwd: string } {
  const roots: { home?: string; cwd: string } = { cwd: resolve(io.cwd, flags.cwd ?? '.') };
  if (flags.home !== undefined) roots.home = resolve(io.cwd, flags.home);
  else if (io.env.HOME !== undefined && io.env.HOME !== '') roots.home = io.env.HOME;
  return roots;
}

const EXIT_OF = { usage: EXIT.usage, state: EXIT.finding, io: EXIT.failed } as const;

function refuse(io: CliIo, json: boolean | undefined, refusal: { refused: string; kind: 'usage' | 'state' | 'io'; diff?: string }): number {
  if (json === true) io.stdout.write(`${JSON.stringify(refusal, null, 2)}\n`);
  else {
    io.stderr.write(`mcpctx gateway: refused: ${refusal.refused}\n`);
    if (refusal.diff !== undefined && refusal.diff !== '') io.stdout.write(refusal.diff);
  }
  return EXIT_OF[refusal.kind];
}

export function setupGatewayWrap(gateway: Command, io: CliIo, setExit: (code: number) => void): void {
  gateway
    .command('wrap')
    .summary("put the gateway in front of one client's servers, rewriting that client's config (backup beside it)")
    .description(
      [
        "Reads the client's config as audit does and fronts the servers of one place (--scope; when omitted, the one place of that client that has servers) that the client's session loads and mcpctx can launch. Disabled, denied, shadowed, builtin and unlaunchable entries stay in the file, listed with why.",
        'Writes, in this order: a backup beside the client file (FILE.mcpctx-backup, same mode; one that exists means already wrapped), the gateway config in your config folder (mcpctx/wrap/CLIENT-SCOPE-HASH.yaml, mode 0600: it holds env values copied from the client file), a manifest beside the client file (FILE.mcpctx-wrap.json), then the client file rewritten atomically with the fronted entries replaced by one entry, mcpctx-gateway. Comments and formatting of the file are kept. A failure midway removes what was written.',
        'Rules, as audit suggests them: search on when the fronted servers carry more than --search-above tokens (measured once, runs 1, progress on stderr; --no-measure leaves search off and says so), capTokens --cap, deny each --deny plus the client\'s own tool filters (Gemini excludeTools, Codex disabled_tools, Kiro/Windsurf disabledTools; Gemini includeTools and Codex enabled_tools become allow).',
        'Exit codes: 0 done (or planned, with --dry-run); 1 refused by the files\' state (already wrapped, no servers, a managed file); 2 usage (unknown client or scope, several places with servers); 3 a file cannot be read or written.',
      ].join('\n\n'),
    )
    .requiredOption('--client <name>', 'the client: claude-code, claude-desktop, cursor, vscode, windsurf, gemini-cli, zed, goose, codex-cli, kiro')
    .option('--scope <scope>', 'user, project, local or workspace (default: the one place of the client that has servers)')
    .option('--dry-run', 'print the diff of the client file and the gateway config as a new file, write nothing (default: write)')
    .option('--no-measure', 'start no server: search is left off (default: measure the fronted servers once)')
    .option('--search-above <tokens>', 'search on when the fronted servers carry more tokens than this (default: 10000)', parseTokens)
    .option('--cap <tokens>', "the gateway's capTokens (default: 25000)", parseTokens)
    .option('--deny <pattern>', 'deny this tool, SERVER/tool or a glob (repeatable)', collect, [] as string[])
    .option('--launch <command>', 'what the client runs to start the gateway, e.g. "npx -y mcpctx" (default: this node and this mcpctx\'s dist/cli/main.js)')
    .option('--home <dir>', 'home folder to read configs from (default: yours)')
    .option('--cwd <dir>', 'project folder for project configs (default: the current folder)')
    .option('--timeout <ms>', 'budget per server measured (default: 30000)', parseTimeoutMs)
    .option('--runs <n>', 'captures per server measured (default: 1)', parsePositiveInteger, 1)
    .option('--json', 'print the plan as JSON (default: text)')
    .addHelpText('after', exampleHelp(io, 'gateway wrap --client claude-desktop --dry-run'))
    .action(async (flags: WrapFlags) => {
      const { applyWrap, planWrap } = await import('../wrap/index.js');
      const { renderWrapPlan, wrapPlanJson } = await import('./_wrap-render.js');
      const launchWords = flags.launch?.trim().split(/\s+/).filter((word) => word !== '');
      if (launchWords !== undefined && launchWords.length === 0) {
        setExit(refuse(io, flags.json, { refused: '--launch is empty', kind: 'usage' }));
        return;
      }
      const plan = await planWrap({
        client: flags.client,
        ...(flags.scope === undefined ? {} : { scope: flags.scope }),
        roots: rootsOf(flags, io),
        env: io.env,
        measure: flags.measure,
        ...(flags.searchAbove === undefined ? {} : { searchAbove: flags.searchAbove }),
        ...(flags.cap === undefined ? {} : { capTokens: flags.cap }),
        deny: flags.deny,
        ...(launchWords === undefined ? {} : { launch: { command: launchWords[0] ?? '', args: launchWords.slice(1) } }),
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        runs: flags.runs,
        progress: measureProgress(io),
      });
      if ('refused' in plan) {
        setExit(refuse(io, flags.json, plan));
        return;
      }
      if (flags.dryRun !== true) {
        const applied = await applyWrap(plan);
        if ('refused' in applied) {
          setExit(refuse(io, flags.json, applied));
          return;
        }
      }
      const applied = flags.dryRun !== true;
      io.stdout.write(flags.json === true ? `${JSON.stringify(wrapPlanJson(plan, applied), null, 2)}\n` : renderWrapPlan(plan, applied, undoInvocation(io, flags, plan)));
      setExit(EXIT.ok);
    });

  gateway
    .command('unwrap')
    .summary('put back a client file gateway wrap rewrote, byte for byte')
    .description(
      [
        'Reads the manifest beside the client file. When the file is still exactly what wrap wrote (its sha256), the backup is restored atomically, and the backup, manifest and gateway config are removed.',
        'When the file changed since, nothing is touched: it says where the fronted entries are (the backup, under its key path) and shows the diff between the file as wrapped and as it is now. --merge then edits the file as it is now: the gateway entry out, the fronted entries back in from the backup (at the end of the server map), every other byte kept; refused when a fronted name is back in the file or the result would not read as intended.',
        'Exit codes: 0 restored; 1 not wrapped, or changed since; 2 usage (unknown client, several wrapped files without --scope); 3 a file cannot be read or written.',
      ].join('\n\n'),
    )
    .requiredOption('--client <name>', 'the client wrapped')
    .option('--scope <scope>', 'the scope wrapped (default: the one wrapped file of the client)')
    .option('--merge', 'when the file changed since wrap, take the gateway entry out and put the fronted entries back from the backup, keeping the rest as it is now (default: refuse)')
    .option('--home <dir>', 'home folder to read configs from (default: yours)')
    .option('--cwd <dir>', 'project folder for project configs (default: the current folder)')
    .option('--json', 'print the result as JSON (default: text)')
    .addHelpText('after', exampleHelp(io, 'gateway unwrap --client claude-desktop'))
    .action(async (flags: { client: string; scope?: string; merge?: boolean; home?: string; cwd?: string; json?: boolean }) => {
      const { unwrap } = await import('../wrap/index.js');
      const { renderUnwrap } = await import('./_wrap-render.js');
      const result = await unwrap({ client: flags.client, ...(flags.scope === undefined ? {} : { scope: flags.scope }), merge: flags.merge === true, roots: rootsOf(flags, io) });
      if ('refused' in result) {
        setExit(refuse(io, flags.json, result));
        return;
      }
      io.stdout.write(flags.json === true ? `${JSON.stringify(result, null, 2)}\n` : renderUnwrap(result));
      setExit(EXIT.ok);
    });
}
