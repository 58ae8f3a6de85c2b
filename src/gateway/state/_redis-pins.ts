/**
 * The pins kept in the shared Redis, with the pin file's guarantees: every read-modify-write runs
 * holding a lock (a key set NX with a random token and a lease, renewed while the holder works as
 * the pin file's lock is refreshed, so a holder that crashed or stalled frees it when the lease
 * ends and a slow one keeps it), reads inside it, and writes FENCED: a Lua script sets the document only
 * while the lock still holds this holder's token, so a holder that stalled past its lease and lost
 * the lock writes nothing. The lock is released compare-and-delete: never another holder's.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpctxError } from '../../errors/index.js';
import { LOCK_WAIT_MS, MAX_PIN_FILE_BYTES, emptyPinFile, parsePinText, pinText, type LockedPins, type PinDocument, type PinFileRead } from '../trust/index.js';
import type { RedisConnection } from './_redis-connection.js';
import { DEFAULT_STATE_PREFIX } from './_redis-offload-store.js';

/** How long a holder keeps the lock at most: a crashed holder's lock is free after it. */
export const DEFAULT_PIN_LEASE_MS = 10_000;
const RETRY_INTERVAL_MS = 50;

const WRITE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2])
  return 1
end
return 0
`;

const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface RedisPinOptions {
  /** What every key starts with (default `mcpctx:`). */
  readonly prefix?: string;
  /** The lock's lease (default 10 s). */
  readonly leaseMs?: number;
  /** How often a holder renews the lease while it works (default a third of it); 0 never (a holder that stalls, for tests). */
  readonly renewMs?: number;
}

export function redisPinDocument(connection: RedisConnection, options: RedisPinOptions = {}): PinDocument {
  const prefix = options.prefix ?? DEFAULT_STATE_PREFIX;
  const leaseMs = options.leaseMs ?? DEFAULT_PIN_LEASE_MS;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1) throw new McpctxError('INVALID_ARGUMENT', `The shared pins' leaseMs must be a positive integer of milliseconds, got ${String(leaseMs)}.`, { option: 'leaseMs', value: leaseMs });
  const renewMs = options.renewMs ?? Math.max(1, Math.floor(leaseMs / 3));
  if (!Number.isSafeInteger(renewMs) || renewMs < 0) throw new McpctxError('INVALID_ARGUMENT', `The shared pins' renewMs must be a whole number of milliseconds, got ${String(renewMs)}.`, { option: 'renewMs', value: renewMs });
  const key = `${prefix}pins`;
  const lockKey = `${key}:lock`;
  const label = `the shared pins at ${connection.label} (key ${key})`;

  const read = async (): Promise<PinFileRead> => {
    const found = await connection.run('read the pins', async (client) => {
      try {
        const length = await client.strlen(key);
        if (length > MAX_PIN_FILE_BYTES) return { over: length } as const;
        return { text: await client.get(key) } as const;
      } catch (error) {
        // Something else under the key (a hash, a list): not a pin document, and no outage.
        if (error instanceof Error && error.message.startsWith('WRONGTYPE')) return { wrongType: true } as const;
        throw error;
      }
    });
    if ('over' in found) return { status: 'unreadable', reason: `it is ${found.over} bytes, over ${MAX_PIN_FILE_BYTES}` };
    if ('wrongType' in found) return { status: 'unreadable', reason: `the key ${key} holds something other than a string` };
    if (found.text === null) return { status: 'absent', pins: emptyPinFile() };
    return parsePinText(found.text);
  };

  return {
    label,
    target: connection.label,
    async withLock(work, waitMs = LOCK_WAIT_MS) {
      const token = randomBytes(16).toString('hex');
      const deadline = Date.now() + waitMs;
      for (;;) {
        const taken = await connection.run('lock the pins', (client) => client.set(lockKey, token, 'PX', leaseMs, 'NX'));
        if (taken === 'OK') break;
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new McpctxError(
            'IO',
            `Cannot lock ${label} within ${waitMs} ms: another gateway or mcpctx gateway pins holds it (a holder that is gone frees it within ${leaseMs} ms); try again.`,
            { path: lockKey, reason: 'lock-failed' },
          );
        }
        await sleep(Math.min(RETRY_INTERVAL_MS, left));
      }
      const locked: LockedPins = {
        read,
        async write(pins) {
          const written = await connection.run('write the pins', (client) => client.eval(WRITE_SCRIPT, 2, lockKey, key, token, pinText(pins)));
          if (written !== 1) {
            throw new McpctxError(
              'IO',
              `Writing ${label} lost the lock: its ${leaseMs} ms lease ended before the write, and another gateway may hold it now; nothing was written, try again.`,
              { path: key, reason: 'lock-compromised' },
            );
          }
        },
      };
      // Only while this holder still has it: a lease already lost stays lost (the write is fenced).
      const renewal = renewMs === 0 ? undefined : setInterval(() => {
        void connection.run('renew the pins lock', (client) => client.eval(RENEW_SCRIPT, 1, lockKey, token, leaseMs)).catch(() => {});
      }, renewMs);
      renewal?.unref();
      try {
        return await work(locked);
      } finally {
        clearInterval(renewal);
        // Best effort: a lock not released (Redis gone) ends with its lease.
        await connection.run('unlock the pins', (client) => client.eval(RELEASE_SCRIPT, 1, lockKey, token)).catch(() => {});
      }
    },
  };
}
