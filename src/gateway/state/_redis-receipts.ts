/**
 * The receipts of every gateway instance summed in the shared Redis: per row (tool, upstream,
 * action) and in total, the numbers `mcpctx gateway report` prints for a receipts file. A receipt
 * is one Lua script (HINCRBY), sent without the caller waiting: the reply to the client never waits
 * for Redis, and a receipt that cannot be counted is dropped and counted as dropped. The row cap is
 * the file report's: past it, a new row's receipts are summed under OTHER_TOOLS_ROW. Keys:
 *   receipts:rows     a set of row keys (JSON [tool, upstream, action])
 *   receipts:counts   a hash `calls|ROW`, `upstreamTokens|ROW`, `deliveredTokens|ROW`
 *   receipts:totals   a hash calls, lists, upstreamTokens, deliveredTokens
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import {
  MAX_REPORT_ROWS,
  OTHER_TOOLS_ROW,
  RECEIPT_ACTIONS,
  compareRows,
  reportRowKey,
  reportedReceipt,
  type GatewayReport,
  type GatewayReportRow,
  type Receipt,
  type ReceiptAction,
  type ReceiptsClosed,
} from '../receipts/index.js';
import type { RedisConnection } from './_redis-connection.js';
import { DEFAULT_STATE_PREFIX } from './_redis-offload-store.js';

/** How long close() waits for receipts still on their way to Redis. */
const CLOSE_WAIT_MS = 3_000;
const COUNTERS = ['calls', 'upstreamTokens', 'deliveredTokens'] as const;

// KEYS: rows, counts, totals; ARGV: row, other row, cap, 'calls' | 'lists', upstream tokens, delivered tokens.
const COUNT_SCRIPT = `
local row = ARGV[1]
if redis.call('SISMEMBER', KEYS[1], row) == 0 then
  if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then row = ARGV[2] end
  redis.call('SADD', KEYS[1], row)
end
redis.call('HINCRBY', KEYS[2], 'calls|' .. row, 1)
redis.call('HINCRBY', KEYS[2], 'upstreamTokens|' .. row, ARGV[5])
redis.call('HINCRBY', KEYS[2], 'deliveredTokens|' .. row, ARGV[6])
redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
redis.call('HINCRBY', KEYS[3], 'upstreamTokens', ARGV[5])
redis.call('HINCRBY', KEYS[3], 'deliveredTokens', ARGV[6])
return 1
`;

function receiptKeys(prefix: string): readonly [string, string, string] {
  return [`${prefix}receipts:rows`, `${prefix}receipts:counts`, `${prefix}receipts:totals`];
}

export interface RedisReceiptOptions {
  /** What every key starts with (default `mcpctx:`). */
  readonly prefix?: string;
  /** Distinct rows before new ones are summed under OTHER_TOOLS_ROW (default the file report's, 10,000); tests make it small. */
  readonly maxRows?: number;
  /** How long close() waits for writes in flight (default 3 s). */
  readonly closeWaitMs?: number;
}

/** Counts receipts in the shared Redis; the same `write`/`close` as ReceiptWriter. */
export class RedisReceiptCounters {
  readonly #connection: RedisConnection;
  readonly #keys: readonly [string, string, string];
  readonly #maxRows: number;
  readonly #closeWaitMs: number;
  readonly #inFlight = new Set<Promise<void>>();
  #written = 0;
  #dropped = 0;
  #error: string | undefined;
  #closed: Promise<ReceiptsClosed> | undefined;

  constructor(connection: RedisConnection, options: RedisReceiptOptions = {}) {
    this.#connection = connection;
    this.#keys = receiptKeys(options.prefix ?? DEFAULT_STATE_PREFIX);
    this.#maxRows = options.maxRows ?? MAX_REPORT_ROWS;
    this.#closeWaitMs = options.closeWaitMs ?? CLOSE_WAIT_MS;
    if (!Number.isSafeInteger(this.#maxRows) || this.#maxRows < 1) throw new McpctxError('INVALID_ARGUMENT', `The receipt counters' maxRows must be a positive integer, got ${String(this.#maxRows)}.`, { option: 'maxRows', value: this.#maxRows });
  }

  /** Counts `receipt` in the background; never throws, never makes the caller wait. */
  write(receipt: Receipt): void {
    // Not a receipt the report would count (the file report counts such a line as bad): dropped.
    let counted: ReturnType<typeof reportedReceipt>;
    try {
      counted = this.#closed === undefined ? reportedReceipt(receipt) : undefined;
    } catch {
      counted = undefined; // a receipt whose fields throw when read: dropped, never thrown at the caller
    }
    if (counted === undefined) {
      this.#dropped += 1;
      return;
    }
    const row = reportRowKey(counted);
    const other = reportRowKey({ tool: OTHER_TOOLS_ROW, upstream: null, action: counted.action });
    const kind = counted.kind === 'call' ? 'calls' : 'lists';
    const sent = this.#connection
      .run('count a receipt', (client) => client.eval(COUNT_SCRIPT, 3, ...this.#keys, row, other, this.#maxRows, kind, counted.upstreamTokens, counted.deliveredTokens))
      .then(
        () => {
          this.#written += 1;
        },
        (error: unknown) => {
          this.#dropped += 1;
          this.#error ??= (error as Error).message;
        },
      );
    this.#inFlight.add(sent);
    void sent.finally(() => this.#inFlight.delete(sent));
  }

  /** Waits (bounded) for the receipts in flight, and says how many were counted and dropped; it does not close the connection. */
  close(): Promise<ReceiptsClosed> {
    this.#closed ??= (async () => {
      const done = Promise.allSettled([...this.#inFlight]);
      const waited = new AbortController();
      await Promise.race([done, sleep(this.#closeWaitMs, undefined, { signal: waited.signal }).catch(() => {})]);
      waited.abort();
      // Still unanswered: not known to be counted, so reported as dropped.
      const unanswered = this.#inFlight.size;
      if (unanswered > 0) this.#error ??= `${unanswered} receipts had no answer from Redis within ${this.#closeWaitMs} ms`;
      return { written: this.#written, dropped: this.#dropped + unanswered, ...(this.#error === undefined ? {} : { error: this.#error }) };
    })();
    return this.#closed;
  }
}

function isAction(value: unknown): value is ReceiptAction {
  return RECEIPT_ACTIONS.includes(value as ReceiptAction);
}

/** A row key read back from Redis, or undefined when it is not one this module wrote. */
function parseRowKey(text: string): { tool: string; upstream: string | null; action: ReceiptAction } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [tool, upstream, action] = value as unknown[];
  if (typeof tool !== 'string' || (upstream !== null && typeof upstream !== 'string') || !isAction(action)) return undefined;
  return { tool, upstream, action };
}

function count(record: Record<string, string>, field: string): number {
  const value = Object.hasOwn(record, field) ? Number(record[field]) : 0;
  return Number.isSafeInteger(value) ? value : 0;
}

/** The report of the receipts counted in the shared Redis: the shape and order of readGatewayReport's (`file` is the URL's label). */
export async function readRedisReport(connection: RedisConnection, prefix: string = DEFAULT_STATE_PREFIX): Promise<GatewayReport> {
  const [rowsKey, countsKey, totalsKey] = receiptKeys(prefix);
  const [rowKeys, counts, totals] = await connection.run('read the receipt counters', async (client) =>
    Promise.all([client.smembers(rowsKey), client.hgetall(countsKey), client.hgetall(totalsKey)]),
  );
  const own = (record: unknown): Record<string, string> => (isPlainObject(record) ? (record as Record<string, string>) : {});
  const rows: GatewayReportRow[] = [];
  for (const key of rowKeys) {
    const row = parseRowKey(key);
    if (row === undefined) continue;
    const [calls, upstreamTokens, deliveredTokens] = COUNTERS.map((counter) => count(own(counts), `${counter}|${key}`)) as [number, number, number];
    if (calls === 0) continue;
    rows.push({ ...row, calls, upstreamTokens, deliveredTokens });
  }
  const sums = {
    calls: count(own(totals), 'calls'),
    lists: count(own(totals), 'lists'),
    upstreamTokens: count(own(totals), 'upstreamTokens'),
    deliveredTokens: count(own(totals), 'deliveredTokens'),
  };
  return { rows: rows.sort(compareRows), totals: { ...sums, savedTokens: sums.upstreamTokens - sums.deliveredTokens }, badLines: 0, file: connection.label };
}
