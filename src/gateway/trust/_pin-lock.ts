/**
 * The pin file's lock: every read-modify-write of it (a gateway's check, `mcpctx gateway pins`)
 * runs holding `FILE.lock` (a directory, proper-lockfile), re-reading the file inside, so two
 * gateways and the CLI working on one file at once lose nothing. A holder that crashed leaves a
 * lock whose mtime stops moving: after `STALE_MS` it is taken over. Waiting is bounded: past the
 * budget the caller gets an `IO` error and fails closed (a gateway holds the tools back).
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { McpctxError } from '../../errors/index.js';

/** A lock whose mtime has not moved for this long belongs to a holder that is gone (proper-lockfile refreshes it every half of it). */
export const STALE_MS = 5_000;
/** How long a caller waits for the lock by default: longer than STALE_MS, so a crashed holder's lock is taken over within it. */
export const LOCK_WAIT_MS = 8_000;
const RETRY_INTERVAL_MS = 50;

/**
 * Runs `work` holding the pin file's lock. Rejects with `IO` (data `{ file }`)
 * when the lock cannot be had within `waitMs`; `work`'s own rejection passes through after the
 * lock is released.
 */
export async function withPinFileLock<T>(file: string, work: () => Promise<T>, waitMs: number = LOCK_WAIT_MS): Promise<T> {
  // A folder that is not there will not appear by waiting: said at once, not after the budget.
  await stat(dirname(file)).catch((error: unknown) => {
    throw new McpctxError('IO', `Cannot lock the pin file ${file}: its folder cannot be used (${(error as Error).message}).`, { file }, { cause: error });
  });
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: STALE_MS,
      retries: { retries: Math.max(1, Math.ceil(waitMs / RETRY_INTERVAL_MS)), factor: 1, minTimeout: RETRY_INTERVAL_MS, maxTimeout: RETRY_INTERVAL_MS, randomize: true },
      // The default throws from a timer and ends the process; a lock taken over while held only
      // means this holder's write may race another one, said by the caller's log.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw new McpctxError('IO', `Cannot lock the pin file ${file} within ${waitMs} ms (${(error as Error).message}): another gateway or mcpctx gateway pins holds ${file}.lock, or its folder is not writable.`, { file }, { cause: error });
  }
  let result: T;
  try {
    result = await work();
  } finally {
    await release().catch(() => {});
  }
  if (compromised !== undefined) throw new McpctxError('IO', `The lock of the pin file ${file} was taken over while held (${compromised.message}).`, { file });
  return result;
}
