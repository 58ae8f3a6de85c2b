// What `hook install` did, so that `hook uninstall` can undo exactly that: per file, whether
// install created it, where its original bytes are kept, and the hash of what install wrote.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { PRIVATE_FILE_MODE } from '../../private-file/index.js';

export type InstallScope = 'user' | 'project';

export interface InstalledFile {
  readonly role: 'settings' | 'mcp-config';
  /** The file did not exist: uninstall removes it when it is still what install wrote. */
  readonly created: boolean;
  /** The copy of its bytes before the first change (absent when created). */
  readonly backup?: string;
  /** sha256 of the bytes install wrote last. */
  readonly written: string;
}

export interface InstallState {
  readonly version: 1;
  readonly client: 'claude-code';
  readonly scope: InstallScope;
  readonly cwd?: string;
  readonly files: Readonly<Record<string, InstalledFile>>;
  /** MAX_MCP_OUTPUT_TOKENS as install set it, and what it was before (absent: not set). */
  readonly maxOutput?: { readonly value: string; readonly previous?: string };
}

/** The folder of install records and backups: `~/.claude/mcpctx/` (0700: backups of ~/.claude.json may hold servers' secrets). */
export function stateDir(home: string): string {
  return join(home, '.claude', 'mcpctx');
}

/**
 * One record per install, scope (and project folder for the project scope): `install` for `hook
 * install`, `optimizer-hook` for the compaction hook, so each is undone on its own.
 */
export function stateFile(home: string, scope: InstallScope, cwd: string, install: 'install' | 'optimizer-hook' = 'install'): string {
  const name = scope === 'user' ? `${install}-user.json` : `${install}-project-${sha256(cwd).slice(0, 16)}.json`;
  return join(stateDir(home), name);
}

export function readState(file: string): InstallState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new McpctxError('IO', `Cannot read the install record ${file}: ${(error as Error).message}`, { file });
  }
  const value = JSON.parse(text) as unknown;
  if (!isPlainObject(value) || value.version !== 1 || !isPlainObject(value.files)) throw new McpctxError('IO', `${file} is not an install record mcpctx wrote; remove it to go on.`, { file });
  return value as unknown as InstallState;
}

export function writeState(file: string, state: InstallState): void {
  privateFolder(dirname(file));
  writePrivate(file, `${JSON.stringify(state, null, 2)}\n`);
}

export function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new McpctxError('IO', `Cannot remove ${file}: ${(error as Error).message}`, { file });
  }
}

/** A copy of `bytes` next to the record, 0600. */
export function keepBackup(recordFile: string, role: InstalledFile['role'], bytes: Buffer): string {
  const backup = recordFile.replace(/\.json$/, `.${role}.bak`);
  privateFolder(dirname(backup));
  writePrivate(backup, bytes);
  return backup;
}

/** The file's bytes, or undefined when it does not exist. */
export function readBytes(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new McpctxError('IO', `Cannot read ${file}: ${(error as Error).message}`, { file });
  }
}

/**
 * Replaces the file by a rename, so Claude Code never reads half of it; an existing file keeps its
 * mode, a new one gets `mode`.
 */
export function writeReplacing(file: string, bytes: string | Buffer, mode: number): void {
  let keep = mode;
  try {
    keep = statSync(file).mode & 0o777;
  } catch {
    // A new file.
  }
  const temporary = `${file}.mcpctx-${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temporary, bytes, { mode: keep });
    chmodSync(temporary, keep);
    renameSync(temporary, file);
  } catch (error) {
    removeFile(temporary);
    throw new McpctxError('IO', `Cannot write ${file}: ${(error as Error).message}`, { file });
  }
}

export function sha256(bytes: string | Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function privateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

function writePrivate(file: string, bytes: string | Buffer): void {
  writeReplacing(file, bytes, PRIVATE_FILE_MODE);
  chmodSync(file, PRIVATE_FILE_MODE);
}
