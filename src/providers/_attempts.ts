/**
 * The attempts of a call that were retried, as a response carries them: each attempt's bytes with
 * their sha256s, so a receipt can check them against its bytes, and the usage its body announced
 * in the provider's own stream format (an error body announces none; a 5xx after a partial stream may).
 */
import { sha256Hex } from '../tokens/index.js';
import type { RecordedAttempt } from './_http.js';
import type { RetriedAttempt, Usage } from './_types.js';

export function retriedAttempts(retried: readonly RecordedAttempt[], announcedUsage: (response: string) => Usage | null): RetriedAttempt[] {
  return retried.map((attempt) => ({
    raw: attempt.raw,
    rawRequestSha256: sha256Hex(attempt.raw.request),
    rawResponseSha256: sha256Hex(attempt.raw.response),
    announcedUsage: attempt.raw.status >= 200 && attempt.raw.status <= 299 ? announcedUsage(attempt.raw.response) : null,
    timing: attempt.timing,
  }));
}
