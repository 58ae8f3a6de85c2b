import { Option, type Command } from 'commander';
import {
  LIMIT_NOTE,
  MAX_HOOK_INPUT_BYTES,
  RESULTS_SERVER_NAME,
  installClaudeCode,
  openHookShaper,
  readBoundedInput,
  runPostToolUse,
  serveResultsStdio,
  uninstallClaudeCode,
  type InstallScope,
} from '../host/claude-code/index.js';
import { MCPCTX_CLIENT_INFO } from '../mcp/index.js';
import { exampleHelp } from './_help.js';
import { builtMain, renderInstallReport } from './_install-report.js';
import { EXIT, type CliIo } from './_io.js';
import { parsePositiveInteger } from './_parse.js';

interface PlaceFlags {
  rules?: string;
  store?: string;
}

interface InstallFlags extends PlaceFlags {
  client: string;
  scope: InstallScope;
  maxMcpOutputTokens?: number;
  dryRun?: boolean;
  json?: boolean;
}

const RULES_HELP = 'a gateway config or host rules file (YAML or JSON): capTokens, offload, tools: entries (default: no rules, only the 25,000-token cap)';
const STORE_HELP = 'the folder of kept results and their key, shared by the hook and the read_result server (default: $MCPCTX_HOST_STORE, else ~/.cache/mcpctx/host-results)';

export function setupHook(command: Command, io: CliIo, setExit: (code: number) => void): void {
  const hook = command
    .description(
      [
        "Shapes MCP tool results inside Claude Code, with the gateway's rules, before the model reads them: a PostToolUse command hook (post-tool-use), the read_result server that reads what the hook kept (results-server), and the install that adds both to Claude Code (install, uninstall).",
        LIMIT_NOTE,
      ].join('\n\n'),
    )
    .addHelpText('after', exampleHelp(io, 'hook install --client claude-code --rules examples/gateway/gateway.yaml'));

  hook
    .command('post-tool-use')
    .summary("Claude Code's PostToolUse command hook: reads the hook JSON on stdin, prints the shaped result")
    .description(
      [
        'Reads the PostToolUse hook input Claude Code writes on stdin (tool_name mcp__<server>__<tool>, tool_response, optionally mcp_server.name) and shapes tool_response with the rules: projected, formatted, or over the cap or a tool\'s pageTokens kept in the store behind a handle while the model gets a preview (items, next_cursor) and reads on with read_result. Nothing is cut silently.',
        'Prints {"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":...}} when the result changed; nothing when it did not, for a tool that is not an MCP tool, for read_result\'s own pages, and when Claude Code\'s own limit fired first (its "saved to file" notice goes to the model untouched).',
        `Never blocks Claude Code: input that is not the hook's JSON, over ${(MAX_HOOK_INPUT_BYTES / 1024 / 1024).toFixed(0)} MiB or nested deeper than 512 levels, bad rules or a store that fails leave the result as it came: exit 0, no output, one line on stderr (shown in Claude Code's verbose mode). Exit code: always 0.`,
        'Each call appends one JSON line to the log (0600): time, tool, action, form, tokensBefore, tokensAfter, handle, and Claude Code\'s notice when there was one. The result itself is never logged.',
      ].join('\n\n'),
    )
    .option('--rules <file>', RULES_HELP)
    .option('--store <dir>', STORE_HELP)
    .option('--log <file>', 'the log, one JSON line a call (default: <store>/hook-log.jsonl)')
    .addHelpText('after', exampleHelp(io, 'hook post-tool-use --rules gateway.yaml < hook-input.json'))
    .action(async (flags: PlaceFlags & { log?: string }) => {
      try {
        const input = await readBoundedInput(io.stdin ?? process.stdin);
        const outcome = await runPostToolUse({ input, cwd: io.cwd, env: io.env, ...definedPlaces(flags), ...(flags.log === undefined ? {} : { logFile: flags.log }) });
        if (outcome.warning !== undefined) io.stderr.write(`mcpctx hook: ${outcome.warning}\n`);
        if (outcome.answer !== undefined) io.stdout.write(`${JSON.stringify(outcome.answer)}\n`);
      } catch (error) {
        // Exit 2 would hand stderr to the model: whatever failed, the result goes as it came.
        io.stderr.write(`mcpctx hook: the result was left as it came: ${(error as Error).message}\n`);
      }
      setExit(EXIT.ok);
    });

  hook
    .command('results-server')
    .summary('serve read_result over stdio (MCP) for what the hook kept')
    .description(
      [
        `An MCP server over stdio with one tool, read_result {handle, cursor?, path?, query?}: pages through a result the hook kept, or reads one value (path) or a JMESPath selection (query) of it. Claude Code lists it as mcp__${RESULTS_SERVER_NAME}__read_result. Give it the same --store (and --rules, for the page size) as the hook.`,
        'The server exits when its stdin closes. stdout carries only protocol messages. Exit codes: 0 stdin closed; 2 bad rules; 3 the store folder cannot be used.',
      ].join('\n\n'),
    )
    .option('--store <dir>', STORE_HELP)
    .option('--rules <file>', RULES_HELP)
    .addHelpText('after', exampleHelp(io, 'hook results-server --rules gateway.yaml'))
    .action(async (flags: PlaceFlags) => {
      const { shaper, storeDir } = await openHookShaper({ cwd: io.cwd, env: io.env, ...definedPlaces(flags) });
      try {
        io.stderr.write(`mcpctx hook results-server: serving read_result on stdio, results in ${storeDir}\n`);
        await serveResultsStdio(shaper, { version: MCPCTX_CLIENT_INFO.version, log: (line) => io.stderr.write(`mcpctx hook results-server: ${line}\n`) });
      } finally {
        shaper.close();
      }
      setExit(EXIT.ok);
    });

  const clientOption = (): Option => new Option('--client <name>', 'the agent to install into').choices(['claude-code']).makeOptionMandatory();
  const scopeOption = (): Option =>
    new Option('--scope <scope>', 'user: ~/.claude/settings.json and ~/.claude.json; project: <cwd>/.claude/settings.json and <cwd>/.mcp.json').choices(['user', 'project']).default('user');

  hook
    .command('install')
    .summary("add the hook and the read_result server to Claude Code's settings")
    .description(
      [
        `Adds a PostToolUse command hook (matcher mcp__.*) that runs this mcpctx with absolute paths to Claude Code's settings, and the read_result server as "${RESULTS_SERVER_NAME}" to its MCP config. Every other byte of each file is kept (comments included); others' hooks stay; installing again adds nothing. Missing files are created.`,
        "The bytes of each file before its first change are kept under ~/.claude/mcpctx/ (0600), with a record of what was done; uninstall puts them back byte for byte when the file is still what install wrote.",
        LIMIT_NOTE,
        'Exit codes: 0 installed (or nothing to change); 2 bad flags, bad rules, or a file that cannot be edited safely (left as it is); 3 a file cannot be written.',
      ].join('\n\n'),
    )
    .addOption(clientOption())
    .addOption(scopeOption())
    .option('--rules <file>', RULES_HELP)
    .option('--store <dir>', STORE_HELP)
    .option('--max-mcp-output-tokens <n>', "also set env.MAX_MCP_OUTPUT_TOKENS in the same settings file, so results over Claude Code's default 25,000 reach the hook (default: left as it is)", parsePositiveInteger)
    .option('--dry-run', 'say what would change, write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'hook install --client claude-code --scope project --rules gateway.yaml'))
    .action(async (flags: InstallFlags) => {
      const report = await installClaudeCode({
        scope: flags.scope,
        cwd: io.cwd,
        env: io.env,
        ...(io.env.HOME === undefined || io.env.HOME === '' ? {} : { home: io.env.HOME }),
        program: { node: process.execPath, main: builtMain('hook install') },
        ...definedPlaces(flags),
        ...(flags.maxMcpOutputTokens === undefined ? {} : { maxMcpOutputTokens: flags.maxMcpOutputTokens }),
        dryRun: flags.dryRun === true,
      });
      io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderInstallReport(report, 'mcpctx hook install'));
      setExit(EXIT.ok);
    });

  hook
    .command('uninstall')
    .summary('take the hook and the read_result server out of Claude Code again')
    .description(
      'Puts back each file install changed, byte for byte, when it is still what install wrote (a file install created is removed). A file changed since (Claude Code rewrites ~/.claude.json all the time) keeps those changes and loses only mcpctx\'s hook, server and MAX_MCP_OUTPUT_TOKENS (set back to what it was). Exit codes: 0 done; 2 bad flags or a file that cannot be edited safely; 3 a file cannot be written or a backup is gone.',
    )
    .addOption(clientOption())
    .addOption(scopeOption())
    .option('--dry-run', 'say what would change, write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'hook uninstall --client claude-code'))
    .action((flags: InstallFlags) => {
      const report = uninstallClaudeCode({
        scope: flags.scope,
        cwd: io.cwd,
        ...(io.env.HOME === undefined || io.env.HOME === '' ? {} : { home: io.env.HOME }),
        dryRun: flags.dryRun === true,
      });
      io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderInstallReport(report, 'mcpctx hook uninstall'));
      setExit(EXIT.ok);
    });
}

function definedPlaces(flags: PlaceFlags): { rulesFile?: string; storeDir?: string } {
  return { ...(flags.rules === undefined ? {} : { rulesFile: flags.rules }), ...(flags.store === undefined ? {} : { storeDir: flags.store }) };
}
