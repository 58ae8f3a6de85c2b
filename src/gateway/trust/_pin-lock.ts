/**
 * The pin file's lock: every read-modify-write of it (a gateway's check, `mcpctx gateway pins`)
 * runs holding `FILE.lock` (a directory, proper-lockfile), re-reading the file inside, so two
 * gateways and the CLI working on one file at once lose nothing. A holder that crashed leaves a
 * lock whose mtime stops moving: after `STALE_MS` it is taken over. Waiting is bounded: past the
 * budget the caller gets an `IO` error and fails closed (a gateway holds the tools back).
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { STALE_MS, withFileLock } from '../../file-lock/index.js';

export { STALE_MS };
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
  return withFileLock(file, work, { waitMs, retryMs: RETRY_INTERVAL_MS, what: 'the pin file', holders: 'another gateway or mcpctx gateway pins' });
}
