// The part of an install into Claude Code's files that does not depend on what is installed: a
// file edited with its original bytes kept before the first change and the edit recorded, and the
// undo that puts those bytes back (or, when the file changed since, removes only mcpctx's entries).
// `hook install` (PostToolUse hook and read_result server) and `optimizer install` (compaction
// hook) each keep their own record, so either can be installed and uninstalled in any order.
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { redact, unifiedDiff } from '../../text/index.js';
import { readDocument } from './_settings-edit.js';
import { keepBackup, readBytes, removeFile, sha256, writeReplacing, type InstallState, type InstalledFile } from './_install-state.js';

/** One file the command touched (or would touch). */
export interface FileReport {
  readonly file: string;
  readonly role: InstalledFile['role'];
  /** created, modified, unchanged; uninstall: restored (byte for byte), removed (install made it), entries-removed (changed since install: only mcpctx's entries went). */
  readonly change: 'created' | 'modified' | 'unchanged' | 'restored' | 'removed' | 'entries-removed';
  /** What was added, updated or removed in it. */
  readonly entries: readonly string[];
  readonly backup?: string;
  /** The change to a settings file as a unified diff, its env values redacted (not for a file restored from its backup). */
  readonly diff?: string;
}

export interface FileChange {
  readonly text: string;
  readonly entries: string[];
}

export interface EditPlace {
  /** The install record the backup sits beside. */
  readonly record: string;
  /** What the record knows of each file, updated by the edit. */
  readonly files: Record<string, InstalledFile>;
  readonly dryRun: boolean;
}

/**
 * Applies `change` to the file: unchanged text writes nothing; otherwise the bytes before the
 * first change are kept (once: a later install keeps the first backup) and the new text replaces
 * the file by a rename. A new file gets `mode`.
 */
export function editFile(place: EditPlace, file: string, role: InstalledFile['role'], mode: number, change: (text: string) => FileChange): FileReport {
  const before = readBytes(file);
  const text = before?.toString('utf8') ?? '';
  const changed = change(text);
  if (changed.text === text) return { file, role, change: 'unchanged', entries: [] };
  const known = place.files[file];
  const created = known?.created ?? before === undefined;
  let backup = known?.backup;
  if (!place.dryRun && known === undefined && before !== undefined) backup = keepBackup(place.record, role, before);
  if (!place.dryRun) writeReplacing(file, changed.text, mode);
  place.files[file] = { role, created, written: sha256(changed.text), ...(backup === undefined ? {} : { backup }) };
  return {
    file,
    role,
    change: before === undefined ? 'created' : 'modified',
    entries: changed.entries,
    ...(backup === undefined ? {} : { backup }),
    ...settingsDiff(role, file, text, changed.text),
  };
}

/**
 * Undoes `editFile` for one file: still exactly what install wrote, it gets its original bytes
 * back (or is removed, when install created it); changed since, `removeOurs` takes out only
 * mcpctx's entries and the rest stays.
 */
export function revertFile(
  known: InstalledFile | undefined,
  file: string,
  role: InstalledFile['role'],
  dryRun: boolean,
  removeOurs: (text: string) => FileChange,
  notes: string[],
): FileReport {
  const current = readBytes(file);
  if (current === undefined) return { file, role, change: 'unchanged', entries: [] };
  if (known !== undefined && sha256(current) === known.written) {
    if (known.created) {
      if (!dryRun) removeFile(file);
      return { file, role, change: 'removed', entries: ['the file install created'] };
    }
    const original = known.backup === undefined ? undefined : readBytes(known.backup);
    if (original === undefined) throw new McpctxError('IO', `The backup of ${file} (${known.backup ?? 'none'}) is gone; the file was left as it is.`, { file });
    if (!dryRun) writeReplacing(file, original, 0o644);
    return { file, role, change: 'restored', entries: ['the bytes before install'], ...(known.backup === undefined ? {} : { backup: known.backup }) };
  }
  const text = current.toString('utf8');
  const edited = removeOurs(text);
  if (edited.text === text) return { file, role, change: 'unchanged', entries: [] };
  if (!dryRun) writeReplacing(file, edited.text, 0o644);
  if (known !== undefined) notes.push(`${file} changed since install: its other changes are kept, only mcpctx's entries were removed.`);
  return { file, role, change: 'entries-removed', entries: edited.entries, ...settingsDiff(role, file, text, edited.text) };
}

/** After an uninstall: the backups and the record go. */
export function forgetInstall(record: string, state: InstallState | undefined, dryRun: boolean): void {
  if (dryRun || state === undefined) return;
  for (const known of Object.values(state.files)) if (known.backup !== undefined) removeFile(known.backup);
  removeFile(record);
}

/**
 * The diff of a settings file, its `env` values redacted: a printed diff shows lines around the
 * change, and those may hold tokens. MCP configs get none (their servers' env and headers).
 */
function settingsDiff(role: InstalledFile['role'], file: string, before: string, after: string): { diff?: string } {
  if (role !== 'settings') return {};
  const secrets: string[] = [];
  for (const text of [before, after]) {
    try {
      const env = (readDocument(text, file) as { env?: unknown }).env;
      if (isPlainObject(env)) for (const value of Object.values(env)) if (typeof value === 'string') secrets.push(value);
    } catch {
      // A file that does not parse was refused before any change.
    }
  }
  return { diff: redact(unifiedDiff(before, after, { before: file, after: file }), secrets) };
}
