/**
 * The auth file's lock: every read-modify-write of the file runs holding `FILE.lock` (a directory,
 * proper-lockfile) and re-reads the file inside, so two processes refreshing tokens at once never
 * lose each other's write. A holder that crashed leaves a lock whose mtime stops moving: after
 * `STALE_MS` it is taken over. Waiting is bounded: past the budget the caller gets an `IO` error.
 */
import lockfile from 'proper-lockfile';
import { McpctxError } from '../errors/index.js';

/** A lock whose mtime has not moved for this long belongs to a holder that is gone (proper-lockfile refreshes it every half of it). */
const STALE_MS = 5_000;
/** Longer than STALE_MS, so a crashed holder's lock is taken over within it; a token refresh under the lock is bounded by its own timeout. */
export const AUTH_LOCK_WAIT_MS = 30_000;
const RETRY_INTERVAL_MS = 25;

/** Runs `work` holding the auth file's lock (its folder must exist); `work`'s rejection passes through after the lock is released. */
export async function withAuthFileLock<T>(file: string, work: () => Promise<T>, waitMs: number = AUTH_LOCK_WAIT_MS): Promise<T> {
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: STALE_MS,
      retries: { retries: Math.max(1, Math.ceil(waitMs / RETRY_INTERVAL_MS)), factor: 1, minTimeout: RETRY_INTERVAL_MS, maxTimeout: RETRY_INTERVAL_MS, randomize: true },
      // The default throws from a timer and ends the process; a lock taken over while held is reported after the work.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw new McpctxError('IO', `Cannot lock the auth file ${file} within ${waitMs} ms (${(error as Error).message}): another mcpctx holds ${file}.lock, or its folder is not writable.`, { file, reason: 'lock-failed' }, { cause: error });
  }
  let result: T;
  try {
    result = await work();
  } finally {
    await release().catch(() => {});
  }
  if (compromised !== undefined) throw new McpctxError('IO', `The lock of the auth file ${file} was taken over while held (${compromised.message}).`, { file, reason: 'lock-compromised' });
  return result;
}
