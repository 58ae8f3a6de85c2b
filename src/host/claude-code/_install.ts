import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { PRIVATE_FILE_MODE } from '../../private-file/index.js';
import { loadHostRules } from '../_rules.js';
import { hookStoreDir } from './_hook-shaper.js';
import { editFile, forgetInstall, revertFile, type FileChange, type FileReport } from './_install-files.js';
import { readState, stateFile, writeState, type InstallScope, type InstallState, type InstalledFile } from './_install-state.js';
import { RESULTS_SERVER_NAME } from './_results-server.js';
import { MAX_OUTPUT_VARIABLE, envValue, withEnv, withHook, withServer, withoutHook, withoutServer } from './_settings-edit.js';

export type { InstallScope } from './_install-state.js';
export type { FileReport } from './_install-files.js';

/** Where the install runs mcpctx from: absolute paths, so the hook works from any folder. */
export interface McpctxProgram {
  /** The node executable. */
  readonly node: string;
  /** This package's dist/cli/main.js. */
  readonly main: string;
}

export interface InstallOptions {
  readonly scope: InstallScope;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Default: the user's home folder. */
  readonly home?: string;
  readonly program: McpctxProgram;
  /** Rules file (relative to cwd); it is checked, then written as an absolute path. */
  readonly rulesFile?: string;
  /** Store folder (relative to cwd); default the host store folder, written as an absolute path. */
  readonly storeDir?: string;
  /** Sets env.MAX_MCP_OUTPUT_TOKENS in the same settings file (restored by uninstall). */
  readonly maxMcpOutputTokens?: number;
  /** Compute and report, write nothing. */
  readonly dryRun?: boolean;
}

export interface InstallReport {
  readonly client: 'claude-code';
  readonly scope: InstallScope;
  readonly dryRun: boolean;
  readonly files: readonly FileReport[];
  readonly hookCommand?: string;
  readonly server?: { readonly name: string; readonly command: string; readonly args: readonly string[] };
  readonly stateFile: string;
  readonly notes: readonly string[];
}

/** The two files each scope edits. */
export function claudeCodeFiles(scope: InstallScope, cwd: string, home: string): { settings: string; mcpConfig: string } {
  return scope === 'user'
    ? { settings: join(home, '.claude', 'settings.json'), mcpConfig: join(home, '.claude.json') }
    : { settings: join(cwd, '.claude', 'settings.json'), mcpConfig: join(cwd, '.mcp.json') };
}

/** The Claude Code limit note every install prints. */
export const LIMIT_NOTE =
  "Claude Code's own limit (MAX_MCP_OUTPUT_TOKENS, default 25,000) fires before any hook: a result over it reaches the hook as a \"saved to file\" notice, which is passed through and logged. The hook slims wasteful results under that limit; to let it shape larger ones, raise the limit (--max-mcp-output-tokens N).";

/**
 * Adds mcpctx's PostToolUse hook (matcher mcp__.*) to Claude Code's settings and its read_result
 * server (`mcpctx-results`) to the MCP config of the scope. Every other byte of each file is kept;
 * others' hooks stay; installing again changes nothing. The original bytes of each file are kept
 * before its first change, and the install is recorded for uninstall.
 */
export async function installClaudeCode(options: InstallOptions): Promise<InstallReport> {
  const home = options.home ?? homedir();
  const files = claudeCodeFiles(options.scope, options.cwd, home);
  const rules = options.rulesFile === undefined ? undefined : resolve(options.cwd, options.rulesFile);
  if (rules !== undefined) await loadHostRules(rules);
  if (options.maxMcpOutputTokens !== undefined && (!Number.isSafeInteger(options.maxMcpOutputTokens) || options.maxMcpOutputTokens < 1)) {
    throw new McpctxError('USAGE', `--max-mcp-output-tokens must be a positive integer, got ${String(options.maxMcpOutputTokens)}`);
  }
  const store = hookStoreDir({ cwd: options.cwd, env: options.env, home, ...(options.storeDir === undefined ? {} : { storeDir: options.storeDir }) });
  const placeArgs = ['--store', store, ...(rules === undefined ? [] : ['--rules', rules])];
  const hookCommand = [options.program.node, options.program.main, 'hook', 'post-tool-use', ...placeArgs].map(shellWord).join(' ');
  const server = { name: RESULTS_SERVER_NAME, command: options.program.node, args: [options.program.main, 'hook', 'results-server', ...placeArgs] };
  const record = stateFile(home, options.scope, options.cwd);
  const previous = readState(record);
  const state: { files: Record<string, InstalledFile>; maxOutput?: InstallState['maxOutput'] } = {
    files: { ...(previous?.files ?? {}) },
    ...(previous?.maxOutput === undefined ? {} : { maxOutput: previous.maxOutput }),
  };

  const reports: FileReport[] = [];
  const place = { record, files: state.files, dryRun: options.dryRun === true };
  const edit = (file: string, role: InstalledFile['role'], change: (text: string) => FileChange): void => {
    reports.push(editFile(place, file, role, role === 'mcp-config' && options.scope === 'user' ? PRIVATE_FILE_MODE : 0o644, change));
  };

  edit(files.settings, 'settings', (text) => {
    const hooked = withHook(text, files.settings, hookCommand);
    const entries = hooked.change === 'unchanged' ? [] : [`hooks.PostToolUse: mcpctx hook ${hooked.change} (matcher mcp__.*)`];
    if (options.maxMcpOutputTokens === undefined) return { text: hooked.text, entries };
    const value = String(options.maxMcpOutputTokens);
    const current = envValue(hooked.text, files.settings, MAX_OUTPUT_VARIABLE);
    if (current === value) return { text: hooked.text, entries };
    // The value before mcpctx first set it is what uninstall puts back.
    const before = state.maxOutput === undefined ? current : state.maxOutput.previous;
    state.maxOutput = { value, ...(before === undefined ? {} : { previous: before }) };
    return { text: withEnv(hooked.text, files.settings, MAX_OUTPUT_VARIABLE, value), entries: [...entries, `env.${MAX_OUTPUT_VARIABLE}: ${current ?? '(unset)'} -> ${value}`] };
  });
  edit(files.mcpConfig, 'mcp-config', (text) => {
    const added = withServer(text, files.mcpConfig, RESULTS_SERVER_NAME, { type: 'stdio', command: server.command, args: server.args, env: {} });
    return { text: added.text, entries: added.change === 'unchanged' ? [] : [`mcpServers.${RESULTS_SERVER_NAME}: read_result server ${added.change}`] };
  });

  if (!options.dryRun && reports.some((report) => report.change !== 'unchanged')) {
    writeState(record, { version: 1, client: 'claude-code', scope: options.scope, ...(options.scope === 'project' ? { cwd: options.cwd } : {}), ...state });
  }
  const notes = [LIMIT_NOTE, 'Restart Claude Code (or run /hooks and /mcp) so it reads the new settings.'];
  if (options.scope === 'project') notes.push(`Claude Code asks before it starts a server of a project's .mcp.json: approve ${RESULTS_SERVER_NAME} so the model can call read_result.`);
  return { client: 'claude-code', scope: options.scope, dryRun: options.dryRun === true, files: reports, hookCommand, server, stateFile: record, notes };
}

export interface UninstallOptions {
  readonly scope: InstallScope;
  readonly cwd: string;
  readonly home?: string;
  readonly dryRun?: boolean;
}

/**
 * Undoes `installClaudeCode`: a file still exactly as install wrote it gets its original bytes back
 * (or is removed, when install created it); a file changed since (Claude Code rewrites
 * ~/.claude.json all the time) keeps those changes and loses only mcpctx's entries. Without an
 * install record, mcpctx's entries are looked for and removed.
 */
export function uninstallClaudeCode(options: UninstallOptions): InstallReport {
  const home = options.home ?? homedir();
  const files = claudeCodeFiles(options.scope, options.cwd, home);
  const record = stateFile(home, options.scope, options.cwd);
  const state = readState(record);
  const notes: string[] = [];
  if (state === undefined) notes.push('No install record for this scope: only the mcpctx entries found in the files were removed.');
  const reports: FileReport[] = [];
  for (const [file, role] of [[files.settings, 'settings'], [files.mcpConfig, 'mcp-config']] as const) {
    reports.push(
      revertFile(state?.files[file], file, role, options.dryRun === true, (text) => {
        const entries: string[] = [];
        let edited = text;
        if (role === 'settings') {
          const unhooked = withoutHook(edited, file);
          edited = unhooked.text;
          if (unhooked.removed > 0) entries.push(`hooks.PostToolUse: ${unhooked.removed} mcpctx hook(s) removed`);
          const maxOutput = state?.maxOutput;
          if (maxOutput !== undefined && envValue(edited, file, MAX_OUTPUT_VARIABLE) === maxOutput.value) {
            edited = withEnv(edited, file, MAX_OUTPUT_VARIABLE, maxOutput.previous);
            entries.push(`env.${MAX_OUTPUT_VARIABLE}: ${maxOutput.value} -> ${maxOutput.previous ?? '(unset)'}`);
          }
        } else {
          const unserved = withoutServer(edited, file, RESULTS_SERVER_NAME);
          edited = unserved.text;
          if (unserved.removed > 0) entries.push(`mcpServers.${RESULTS_SERVER_NAME} removed`);
        }
        return { text: edited, entries };
      }, notes),
    );
  }
  forgetInstall(record, state, options.dryRun === true);
  return { client: 'claude-code', scope: options.scope, dryRun: options.dryRun === true, files: reports, stateFile: record, notes };
}

/** A word for Claude Code's shell (sh -c): plain when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
