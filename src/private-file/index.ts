// Files that hold whole tool results, session records or secrets (the gateway's --store and
// --receipts, the optimizer server's --store): created readable by their owner alone.
import { closeSync, constants, openSync, statSync } from 'node:fs';

/** Owner read and write, nobody else: the mode such a file is created with. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `file` empty with mode 0600 when it does not exist; an existing file (or one another
 * process creates meanwhile: O_EXCL) is left as it is. SQLite gives the -wal, -shm and -journal
 * files of a database the main file's mode, so creating the main file first covers them too.
 * The process umask is left alone (it is global): it can only take bits away from 0600.
 */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * A warning when `file` exists and its group or others may read or write it (a file made before
 * mcpctx created such files 0600, or by hand), naming the remedy; undefined otherwise and on
 * Windows, where the mode bits say nothing about who may read.
 */
export function sharedFileWarning(file: string, holds: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  return `${file} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}) and holds ${holds}; run chmod 600 on it (new files are created 0600)`;
}
