// `mcpctx optimizer install|uninstall --client claude-code`: the compaction hook (`mcpctx optimizer
// hook`, SessionStart matcher "compact") in Claude Code's settings of a scope, with its own install
// record beside `hook install`'s, so the two are installed and undone independently.
import { homedir } from 'node:os';
import { McpctxError } from '../../errors/index.js';
import { claudeCodeFiles, shellWord, type InstallReport, type McpctxProgram } from './_install.js';
import { editFile, forgetInstall, revertFile, type FileReport } from './_install-files.js';
import { readState, stateFile, writeState, type InstallScope, type InstalledFile } from './_install-state.js';
import { COMPACTION_HOOK, withHook, withoutHook } from './_settings-edit.js';

export interface CompactionHookInstallOptions {
  readonly scope: InstallScope;
  readonly cwd: string;
  /** Default: the user's home folder. */
  readonly home?: string;
  readonly program: McpctxProgram;
  /** Written as the hook's --budget; default none (the hook's own default, 8,000). */
  readonly budget?: number;
  /** Compute and report (with the diff), write nothing. */
  readonly dryRun?: boolean;
}

export interface CompactionHookUninstallOptions {
  readonly scope: InstallScope;
  readonly cwd: string;
  readonly home?: string;
  readonly dryRun?: boolean;
}

const ENTRY = `hooks.${COMPACTION_HOOK.event}: mcpctx optimizer hook`;

/**
 * Adds `optimizer hook` as a SessionStart command hook (matcher "compact") to the scope's
 * settings.json. Every other byte is kept; others' hooks stay; installing again changes nothing;
 * the bytes before the first change are kept for uninstall.
 */
export function installCompactionHook(options: CompactionHookInstallOptions): InstallReport {
  if (options.budget !== undefined && (!Number.isSafeInteger(options.budget) || options.budget < 1)) {
    throw new McpctxError('USAGE', `--budget must be a positive integer, got ${String(options.budget)}`);
  }
  const home = options.home ?? homedir();
  const { settings } = claudeCodeFiles(options.scope, options.cwd, home);
  const hookCommand = [options.program.node, options.program.main, 'optimizer', 'hook', ...(options.budget === undefined ? [] : ['--budget', String(options.budget)])]
    .map(shellWord)
    .join(' ');
  const record = stateFile(home, options.scope, options.cwd, 'optimizer-hook');
  const files: Record<string, InstalledFile> = { ...(readState(record)?.files ?? {}) };
  const dryRun = options.dryRun === true;
  const report = editFile({ record, files, dryRun }, settings, 'settings', 0o644, (text) => {
    const hooked = withHook(text, settings, hookCommand, COMPACTION_HOOK);
    return { text: hooked.text, entries: hooked.change === 'unchanged' ? [] : [`${ENTRY} ${hooked.change} (matcher ${COMPACTION_HOOK.matcher})`] };
  });
  if (!dryRun && report.change !== 'unchanged') {
    writeState(record, { version: 1, client: 'claude-code', scope: options.scope, ...(options.scope === 'project' ? { cwd: options.cwd } : {}), files });
  }
  return {
    client: 'claude-code',
    scope: options.scope,
    dryRun,
    files: [report],
    hookCommand,
    stateFile: record,
    notes: ['Restart Claude Code (or run /hooks) so it reads the new settings. The hook adds context after each compaction (auto or /compact).'],
  };
}

/** Undoes `installCompactionHook`: the settings' original bytes when the file is still what install wrote, else only the hook removed. */
export function uninstallCompactionHook(options: CompactionHookUninstallOptions): InstallReport {
  const home = options.home ?? homedir();
  const { settings } = claudeCodeFiles(options.scope, options.cwd, home);
  const record = stateFile(home, options.scope, options.cwd, 'optimizer-hook');
  const state = readState(record);
  const dryRun = options.dryRun === true;
  const notes: string[] = [];
  if (state === undefined) notes.push('No install record for this scope: only the mcpctx compaction hooks found in the settings were removed.');
  const report: FileReport = revertFile(state?.files[settings], settings, 'settings', dryRun, (text) => {
    const unhooked = withoutHook(text, settings, COMPACTION_HOOK);
    return { text: unhooked.text, entries: unhooked.removed > 0 ? [`${ENTRY}: ${unhooked.removed} removed`] : [] };
  }, notes);
  forgetInstall(record, state, dryRun);
  return { client: 'claude-code', scope: options.scope, dryRun, files: [report], stateFile: record, notes };
}
