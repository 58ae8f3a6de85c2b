/**
 * The offload store kept in the shared Redis: one store for every gateway instance on it, with the
 * memory and SQLite stores' semantics (replace by id, TTL, the oldest evicted first to stay under
 * maxBytes, a value larger than the store refused). A put is one Lua script, so two instances
 * putting at once never push the shared total past the cap. Keys under PREFIX:
 *   offload:entry:ID   a hash {value, at}, PX ttl (Redis frees it alone)
 *   offload:index      a zset of ids, scored by a put sequence (the smallest is the oldest)
 *   offload:bytes      a hash id -> UTF-8 bytes; offload:total their sum; offload:seq the sequence
 * `at` is the caller's clock (passed in), so expiry agrees with the handles it stamps.
 */
import { McpctxError } from '../../errors/index.js';
import { storeSettings, type OffloadStoreOptions, type SharedOffloadStore, type StorePut } from '../results/index.js';
import type { RedisConnection } from './_redis-connection.js';

export const DEFAULT_STATE_PREFIX = 'mcpctx:';

// Removes one id everywhere; KEYS: index, bytes, total; ARGV: entry key prefix, id.
const REMOVE = `
local function remove(member)
  local size = redis.call('HGET', KEYS[2], member)
  if size then
    redis.call('HDEL', KEYS[2], member)
    redis.call('DECRBY', KEYS[3], size)
  end
  redis.call('ZREM', KEYS[1], member)
  redis.call('DEL', ARGV[1] .. member)
end
`;

const PUT_SCRIPT = `${REMOVE}
local id, value = ARGV[2], ARGV[3]
local bytes, at, ttl, maxBytes = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
if bytes > maxBytes then return 0 end
remove(id)
-- The expired, oldest first (an entry Redis already freed has no 'at': gone too).
while true do
  local member = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not member then break end
  local entryAt = redis.call('HGET', ARGV[1] .. member, 'at')
  if entryAt and at - tonumber(entryAt) < ttl then break end
  remove(member)
end
-- Then the oldest, until the new entry fits.
while bytes + tonumber(redis.call('GET', KEYS[3]) or '0') > maxBytes do
  local member = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not member then break end
  remove(member)
end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', ARGV[1] .. id, 'value', value, 'at', ARGV[5])
redis.call('PEXPIRE', ARGV[1] .. id, ttl)
redis.call('ZADD', KEYS[1], seq, id)
redis.call('HSET', KEYS[2], id, bytes)
redis.call('INCRBY', KEYS[3], bytes)
return 1
`;

const DELETE_SCRIPT = `${REMOVE}
remove(ARGV[2])
return 1
`;

export interface RedisOffloadStoreOptions extends OffloadStoreOptions {
  /** What every key starts with (default `mcpctx:`): several gateway fleets can share one Redis. */
  readonly prefix?: string;
}

export function createRedisOffloadStore(connection: RedisConnection, options?: RedisOffloadStoreOptions): SharedOffloadStore {
  const { ttlMs, maxBytes, now } = storeSettings(options);
  const prefix = options?.prefix ?? DEFAULT_STATE_PREFIX;
  const keys = [`${prefix}offload:index`, `${prefix}offload:bytes`, `${prefix}offload:total`, `${prefix}offload:seq`] as const;
  const entryPrefix = `${prefix}offload:entry:`;
  let closed = false;
  const open = (): void => {
    if (closed) throw new McpctxError('IO', `The offload store at ${connection.label} is closed.`);
  };
  const remove = (id: string): Promise<void> =>
    connection.run('delete an offloaded result', async (client) => {
      await client.eval(DELETE_SCRIPT, 3, keys[0], keys[1], keys[2], entryPrefix, id);
    });
  return {
    shared: true,
    ttlMs,
    maxBytes,
    now: () => now(),
    async put(id, value): Promise<StorePut> {
      open();
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > maxBytes) return { stored: false, bytes, maxBytes };
      const at = now();
      const stored = await connection.run('store an offloaded result', (client) =>
        client.eval(PUT_SCRIPT, 4, ...keys, entryPrefix, id, value, bytes, at, ttlMs, maxBytes),
      );
      if (stored !== 1) return { stored: false, bytes, maxBytes };
      return { stored: true, at, bytes };
    },
    async get(id) {
      open();
      const [value, at] = await connection.run('read an offloaded result', (client) => client.hmget(`${entryPrefix}${id}`, 'value', 'at'));
      if (value === null || value === undefined || at === null || at === undefined) return undefined;
      const stamped = Number(at);
      if (!Number.isFinite(stamped) || now() - stamped >= ttlMs) {
        await remove(id);
        return undefined;
      }
      return value;
    },
    async delete(id) {
      open();
      await remove(id);
    },
    async close() {
      // The connection belongs to the shared state, which closes it.
      closed = true;
    },
  };
}
