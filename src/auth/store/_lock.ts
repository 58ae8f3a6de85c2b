/**
 * The auth file's lock: every read-modify-write of the file runs holding it and re-reads the file
 * inside, so two processes refreshing tokens at once never lose each other's write.
 */
import { withFileLock } from '../../file-lock/index.js';

/** Longer than the lock's stale time, so a crashed holder's lock is taken over within it; a token refresh under the lock is bounded by its own timeout. */
export const AUTH_LOCK_WAIT_MS = 30_000;
const RETRY_INTERVAL_MS = 25;

/** Runs `work` holding the auth file's lock (its folder must exist); `work`'s rejection passes through after the lock is released. */
export function withAuthFileLock<T>(file: string, work: () => Promise<T>, waitMs: number = AUTH_LOCK_WAIT_MS): Promise<T> {
  return withFileLock(file, work, {
    waitMs,
    retryMs: RETRY_INTERVAL_MS,
    what: 'the auth file',
    holders: 'another mcpctx',
    data: { failed: { reason: 'lock-failed' }, compromised: { reason: 'lock-compromised' } },
  });
}
