/** The file steps of wrap and unwrap: hashes, exclusive creates, and replacing a file atomically. */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, copyFile, lstat, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { sha256Hex } from '../tokens/index.js';

/** The file's identity in the manifest: the sha256 of its bytes. */
export function sha256(bytes: Buffer): string {
  return sha256Hex(bytes);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Creates `path` with `content`; fails with EEXIST when it exists (nothing is overwritten). */
export async function writeExclusive(path: string, content: string | Buffer, mode: number): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    await handle.writeFile(content);
    // The umask may have taken bits away from `mode`; it never adds any, so this only restores what was asked.
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

/** A copy of `source` at `path`, made only when nothing is there, with the source's mode. */
export async function copyExclusive(source: string, path: string): Promise<void> {
  const { mode } = await stat(source);
  await copyFile(source, path, constants.COPYFILE_EXCL);
  await chmod(path, mode & 0o7777);
}

/**
 * Replaces `target` with `content` through a temp file in its folder and a rename, so a reader
 * sees the old bytes or the new ones, never a half. The new file gets `mode` (default the target's).
 */
export async function replaceAtomically(target: string, content: string | Buffer, mode?: number): Promise<void> {
  const finalMode = mode ?? (await stat(target)).mode & 0o7777;
  const temp = join(dirname(target), `.${basename(target)}.mcpctx-${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeExclusive(temp, content, finalMode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function removeQuietly(path: string): Promise<void> {
  await rm(path, { force: true }).catch(() => undefined);
}
