/**
 * One file's read-modify-write under a lock across processes (proper-lockfile: `FILE.lock`, a
 * directory). A holder that crashed leaves a lock whose mtime stops moving: after `STALE_MS` it is
 * taken over. Waiting is bounded: past the budget the caller gets an `IO` error. Used by the pin
 * file and the auth file, whose callers re-read the file inside the lock.
 */
import lockfile from 'proper-lockfile';
import { McpctxError } from '../errors/index.js';

/** A lock whose mtime has not moved for this long belongs to a holder that is gone (proper-lockfile refreshes it every half of it). */
export const STALE_MS = 5_000;

export interface FileLockOptions {
  /** How long to wait for the lock; longer than STALE_MS so a crashed holder's lock is taken over within it. */
  waitMs: number;
  /** How often to try again while waiting. */
  retryMs: number;
  /** What the file is, for messages: "the pin file". */
  what: string;
  /** Who may be holding it, for the message when the wait runs out: "another gateway". */
  holders: string;
  /** Extra `data` of the IO errors (a `reason` for the lock failing and for the lock taken over). */
  data?: { failed?: Record<string, string>; compromised?: Record<string, string> };
}

/** Runs `work` holding `file`'s lock (its folder must exist); `work`'s rejection passes through after the lock is released. */
export async function withFileLock<T>(file: string, work: () => Promise<T>, options: FileLockOptions): Promise<T> {
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: STALE_MS,
      retries: {
        retries: Math.max(1, Math.ceil(options.waitMs / options.retryMs)),
        factor: 1,
        minTimeout: options.retryMs,
        maxTimeout: options.retryMs,
        randomize: true,
      },
      // The default throws from a timer and ends the process; a lock taken over while held is reported after the work.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw new McpctxError(
      'IO',
      `Cannot lock ${options.what} ${file} within ${options.waitMs} ms (${(error as Error).message}): ${options.holders} holds ${file}.lock, or its folder is not writable.`,
      { file, ...options.data?.failed },
      { cause: error },
    );
  }
  let result: T;
  try {
    result = await work();
  } finally {
    await release().catch(() => {});
  }
  if (compromised !== undefined) {
    throw new McpctxError('IO', `The lock of ${options.what} ${file} was taken over while held (${compromised.message}).`, { file, ...options.data?.compromised });
  }
  return result;
}
