import { McpctxError } from '../../errors/index.js';

/**
 * Where the gateway keeps what it did not send: offloaded results and the shaped lists that later
 * pages are served from. Values are opaque strings (the gateway stores JSON text); ids are chosen
 * by the caller. Every store is bounded twice: entries older than `ttlMs` are gone, and the sum of
 * the entries' UTF-8 bytes stays under `maxBytes`, the oldest entries evicted first to make room.
 */
export interface OffloadStore {
  /** How long an entry lives, in ms from its put. */
  readonly ttlMs: number;
  /** Most UTF-8 bytes of all entries together. */
  readonly maxBytes: number;
  /** The store's clock (ms); handles are stamped with it so their expiry agrees with the store's. */
  now(): number;
  /** Stores `value` under `id` (replacing an entry with that id), evicting the oldest entries as needed. */
  put(id: string, value: string): StorePut;
  /** The value, or undefined when there is none: never stored, expired or evicted. */
  get(id: string): string | undefined;
  delete(id: string): void;
  /** Releases the store; any later call throws. */
  close(): void;
}

/**
 * The same contract as OffloadStore, kept where several gateway instances read it (Redis,
 * `--state redis://`): every call is asynchronous, and rejects with STATE_UNAVAILABLE, naming the
 * store, while the store cannot be reached.
 */
export interface SharedOffloadStore {
  readonly shared: true;
  readonly ttlMs: number;
  readonly maxBytes: number;
  /** This instance's clock (ms): handles are stamped with it, and checked by another instance's. */
  now(): number;
  put(id: string, value: string): Promise<StorePut>;
  get(id: string): Promise<string | undefined>;
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}

export type AnyOffloadStore = OffloadStore | SharedOffloadStore;

export type StorePut =
  | { readonly stored: true; readonly at: number; readonly bytes: number }
  /** Larger than the whole store: nothing was evicted for it. */
  | { readonly stored: false; readonly bytes: number; readonly maxBytes: number };

export interface OffloadStoreOptions {
  /** Default 1 hour. */
  readonly ttlMs?: number;
  /** Default 128 MiB. */
  readonly maxBytes?: number;
  /** Default Date.now; tests pass a fake clock. */
  readonly now?: () => number;
}

export const DEFAULT_TTL_MS = 60 * 60 * 1000;
export const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;

export interface StoreSettings {
  readonly ttlMs: number;
  readonly maxBytes: number;
  readonly now: () => number;
}

/** The options with defaults, checked: a store with a zero or fractional bound is a configuration error. */
export function storeSettings(options: OffloadStoreOptions | undefined): StoreSettings {
  const ttlMs = options?.ttlMs ?? DEFAULT_TTL_MS;
  const maxBytes = options?.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `The offload store's ttlMs must be a positive integer of milliseconds, got ${String(ttlMs)}.`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `The offload store's maxBytes must be a positive integer of bytes, got ${String(maxBytes)}.`);
  }
  const now = options?.now ?? Date.now;
  if (typeof now !== 'function') throw new McpctxError('INVALID_ARGUMENT', 'The offload store\'s "now" must be a function returning ms.');
  return { ttlMs, maxBytes, now };
}

interface MemoryEntry {
  readonly value: string;
  readonly bytes: number;
  readonly at: number;
}

/** An offload store in this process's memory: lost when the gateway exits. */
export function createMemoryStore(options?: OffloadStoreOptions): OffloadStore {
  const { ttlMs, maxBytes, now } = storeSettings(options);
  // A Map iterates in insertion order, and a replaced id is deleted first: the first entry is the oldest.
  const entries = new Map<string, MemoryEntry>();
  let total = 0;
  let closed = false;
  const open = (): void => {
    if (closed) throw new McpctxError('IO', 'The offload store is closed.');
  };
  const remove = (id: string): void => {
    const entry = entries.get(id);
    if (entry === undefined) return;
    entries.delete(id);
    total -= entry.bytes;
  };
  const dropExpired = (at: number): void => {
    for (const [id, entry] of entries) {
      if (at - entry.at < ttlMs) break; // the rest are younger
      remove(id);
    }
  };
  return {
    ttlMs,
    maxBytes,
    now: () => now(),
    put(id, value) {
      open();
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > maxBytes) return { stored: false, bytes, maxBytes };
      const at = now();
      remove(id);
      dropExpired(at);
      for (const [oldest] of entries) {
        if (total + bytes <= maxBytes) break;
        remove(oldest);
      }
      entries.set(id, { value, bytes, at });
      total += bytes;
      return { stored: true, at, bytes };
    },
    get(id) {
      open();
      const entry = entries.get(id);
      if (entry === undefined) return undefined;
      if (now() - entry.at >= ttlMs) {
        remove(id);
        return undefined;
      }
      return entry.value;
    },
    delete(id) {
      open();
      remove(id);
    },
    close() {
      closed = true;
      entries.clear();
      total = 0;
    },
  };
}
