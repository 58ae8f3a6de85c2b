/**
 * One connection to the shared state's Redis, made so that a Redis that is down or slow never
 * hangs a gateway: nothing queues while disconnected (a command fails at once), every command has
 * a deadline, and the client reconnects in the background for as long as the gateway runs. Every
 * failure becomes STATE_UNAVAILABLE naming Redis and the URL's label (never its password), so the
 * callers fail closed with a message that says where to look.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { lazyRequire } from '../../lazy/index.js';
import { redact } from '../../text/index.js';
import type { StateUrl } from './_state-url.js';

/** Loaded at the first connect: a gateway without --state never loads ioredis. */
const ioredis = lazyRequire<{ Redis: typeof Redis }>('ioredis', { neededFor: "the gateway's --state redis://" });

export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
/** How long close() lets QUIT finish before it drops the socket. */
const QUIT_WAIT_MS = 500;

export interface RedisConnectionOptions {
  /** How long the first connect may take (default 2 s). */
  readonly connectTimeoutMs?: number;
  /** How long one command may take (default 2 s). */
  readonly commandTimeoutMs?: number;
}

export interface RedisConnection {
  /** The URL without its password: how messages name the store. */
  readonly label: string;
  readonly client: Redis;
  /** Runs `work` on the client; any failure of Redis rejects STATE_UNAVAILABLE naming `operation`. */
  run<T>(operation: string, work: (client: Redis) => Promise<T>): Promise<T>;
  /** Quits (bounded), then drops the socket: never hangs, and stops the reconnecting. */
  close(): Promise<void>;
}

/** The URL's password as written and decoded, to blank out of any text a Redis error carries. */
function secretsOf(url: StateUrl): string[] {
  try {
    const { password } = new URL(url.href);
    return password === '' ? [] : [password, decodeURIComponent(password)];
  } catch {
    return [];
  }
}

/** The STATE_UNAVAILABLE error for `operation` on the store `label`; the cause keeps only the (redacted) message, never the command's arguments. */
export function stateUnavailable(label: string, operation: string, error: unknown, secrets: readonly string[] = []): McpctxError {
  const reason = redact(error instanceof Error ? error.message : String(error), secrets);
  const code = (error as { code?: unknown } | null)?.code;
  return new McpctxError(
    'STATE_UNAVAILABLE',
    `The shared state at ${label} (Redis) could not ${operation} (${reason}): check that Redis is running and reachable there; the gateway reconnects on its own.`,
    { state: label, operation, ...(typeof code === 'string' ? { errno: code } : {}) },
    { cause: new Error(reason) },
  );
}

function checkedMs(name: string, value: number | undefined, fallback: number): number {
  const ms = value ?? fallback;
  if (!Number.isSafeInteger(ms) || ms < 1) throw new McpctxError('INVALID_ARGUMENT', `The shared state's ${name} must be a positive integer of milliseconds, got ${String(ms)}.`, { option: name, value: ms });
  return ms;
}

export async function connectRedis(url: StateUrl, options: RedisConnectionOptions = {}): Promise<RedisConnection> {
  const connectTimeoutMs = checkedMs('connectTimeoutMs', options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
  const commandTimeoutMs = checkedMs('commandTimeoutMs', options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS);
  const secrets = secretsOf(url);
  const { Redis } = ioredis();
  const settings: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    // Reconnects forever while the gateway runs, at most a second apart.
    retryStrategy: (times: number) => Math.min(100 * times, 1_000),
    ...(url.tls ? { tls: {} } : {}),
  };
  const client = new Redis(url.href, settings);
  let lastError: Error | undefined;
  // Without a listener an 'error' event (Redis gone, refused) would end the process.
  client.on('error', (error: Error) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(lastError ?? new Error(`no answer within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      }),
    ]);
  } catch (error) {
    client.disconnect(); // no reconnecting, no socket, no timer left behind
    // The 'error' event says why (refused, WRONGPASS, NOAUTH); connect() itself says only "Connection is closed."
    throw stateUnavailable(url.label, 'connect', lastError ?? error, secrets);
  } finally {
    clearTimeout(timer);
  }
  let closed = false;
  return {
    label: url.label,
    client,
    async run<T>(operation: string, work: (redis: Redis) => Promise<T>): Promise<T> {
      if (closed) throw new McpctxError('STATE_UNAVAILABLE', `The shared state at ${url.label} (Redis) could not ${operation}: its connection is closed.`, { state: url.label, operation });
      try {
        return await work(client);
      } catch (error) {
        if (isMcpctxError(error)) throw error;
        throw stateUnavailable(url.label, operation, error, secrets);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      let quitTimer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.quit().catch(() => {}),
        new Promise<void>((resolve) => {
          quitTimer = setTimeout(resolve, QUIT_WAIT_MS);
        }),
      ]);
      clearTimeout(quitTimer);
      client.disconnect();
    },
  };
}
