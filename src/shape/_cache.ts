import { McpctxError } from '../errors/index.js';
import { stableJson } from './_stable-json.js';

/** Everything a cached result depends on. */
export interface ResultCacheKey {
  /** The exact query: tool name and its filters. */
  readonly query: unknown;
  readonly fields: readonly string[];
  readonly cursor: string | null | undefined;
  /** The source revision the result was computed from. */
  readonly revision: string;
}

export type CacheStatus = 'hit' | 'miss';

export interface ResultCacheOptions {
  readonly ttlMs: number;
  /** Most entries kept; the oldest go first. Default 500. */
  readonly maxEntries?: number;
  /** Clock in milliseconds, for tests; default `Date.now`. */
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

/**
 * A TTL cache of tool results keyed by query, fields, cursor and revision. The first lookup
 * under a new revision empties it, so nothing computed from older data is ever served.
 */
export class ResultCache<V> {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry<V>>();
  #revision: string | undefined;

  constructor(options: ResultCacheOptions) {
    if (!(options.ttlMs > 0)) throw new McpctxError('INVALID_ARGUMENT', `The cache TTL must be positive, got ${options.ttlMs} ms.`);
    const maxEntries = options.maxEntries ?? 500;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new McpctxError('INVALID_ARGUMENT', `maxEntries must be a positive integer, got ${maxEntries}.`);
    }
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = maxEntries;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value for `key`, or `compute()`'s (cached when it returns; errors are not cached). */
  async lookup(key: ResultCacheKey, compute: () => V | Promise<V>): Promise<{ value: V; cache: CacheStatus }> {
    if (key.revision !== this.#revision) {
      this.clear();
      this.#revision = key.revision;
    }
    const id = stableJson({ query: key.query, fields: key.fields, cursor: key.cursor ?? null, revision: key.revision });
    const now = this.#now();
    const entry = this.#entries.get(id);
    if (entry !== undefined && entry.expiresAt > now) return { value: entry.value, cache: 'hit' };
    if (entry !== undefined) this.#entries.delete(id);
    const value = await compute();
    // A revision change while computing makes the result stale already: do not keep it.
    if (this.#revision === key.revision) {
      this.#entries.set(id, { value, expiresAt: now + this.#ttlMs });
      while (this.#entries.size > this.#maxEntries) {
        const oldest = this.#entries.keys().next();
        if (oldest.done === true) break;
        this.#entries.delete(oldest.value);
      }
    }
    return { value, cache: 'miss' };
  }

  clear(): void {
    this.#entries.clear();
  }
}
