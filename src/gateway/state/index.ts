// The gateway's shared state (`--state redis://host:port/db`): the offload store, the pins and the
// receipt counters that several gateway instances behind a load balancer share, in one Redis.
import type { OffloadStoreOptions, SharedOffloadStore } from '../results/index.js';
import type { GatewayReport, ReceiptsClosed } from '../receipts/index.js';
import type { PinDocument } from '../trust/index.js';
import { connectRedis, type RedisConnection } from './_redis-connection.js';
import { DEFAULT_STATE_PREFIX, createRedisOffloadStore } from './_redis-offload-store.js';
import { redisPinDocument } from './_redis-pins.js';
import { RedisReceiptCounters, readRedisReport } from './_redis-receipts.js';
import { parseStateUrl } from './_state-url.js';

export { parseStateUrl, type StateUrl } from './_state-url.js';
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  connectRedis,
  type RedisConnection,
  type RedisConnectionOptions,
} from './_redis-connection.js';
export { DEFAULT_STATE_PREFIX, createRedisOffloadStore, type RedisOffloadStoreOptions } from './_redis-offload-store.js';
export { DEFAULT_PIN_LEASE_MS, redisPinDocument, type RedisPinOptions } from './_redis-pins.js';
export { RedisReceiptCounters, readRedisReport, type RedisReceiptOptions } from './_redis-receipts.js';

export interface SharedStateOptions {
  /** What every key starts with (default `mcpctx:`). */
  readonly prefix?: string;
  readonly connectTimeoutMs?: number;
  readonly commandTimeoutMs?: number;
}

export interface SharedState {
  /** The URL without its password. */
  readonly label: string;
  readonly connection: RedisConnection;
  /** An offload store on the shared state (one store for every instance with the same prefix). */
  offloadStore(options?: OffloadStoreOptions): SharedOffloadStore;
  readonly pins: PinDocument;
  readonly receipts: RedisReceiptCounters;
  /** The report of every instance's receipts. */
  report(): Promise<GatewayReport>;
  /** Waits (bounded) for the receipts in flight, then closes the connection. */
  close(): Promise<ReceiptsClosed>;
}

/** Parses `text` (USAGE when it is not a Redis URL) and connects (STATE_UNAVAILABLE when Redis does not answer in time). */
export async function openSharedState(text: string, options: SharedStateOptions = {}): Promise<SharedState> {
  const url = parseStateUrl(text);
  const prefix = options.prefix ?? DEFAULT_STATE_PREFIX;
  const connection = await connectRedis(url, {
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
  });
  const receipts = new RedisReceiptCounters(connection, { prefix });
  let closed: Promise<ReceiptsClosed> | undefined;
  return {
    label: connection.label,
    connection,
    offloadStore: (storeOptions) => createRedisOffloadStore(connection, { ...storeOptions, prefix }),
    pins: redisPinDocument(connection, { prefix }),
    receipts,
    report: () => readRedisReport(connection, prefix),
    close() {
      closed ??= (async () => {
        const summary = await receipts.close();
        await connection.close();
        return summary;
      })();
      return closed;
    },
  };
}
