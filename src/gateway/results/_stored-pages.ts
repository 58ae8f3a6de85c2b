import { McpctxError } from '../../errors/index.js';
import { CursorCodec, INVALID_PARAMS, pageByTokens, type CursorBinding, type CutRecord, type TokenPageResult } from '../../shape/index.js';
import { isPlainObject } from '../../json/index.js';
import type { AnyOffloadStore } from './_offload-store.js';
import { storeGet, type StoreSteps } from './_store-steps.js';
import type { TokenCodec } from './_handles.js';
import type { StoredEntry } from './_result-types.js';

/**
 * `pageByTokens` issues and opens cursors through a CursorCodec. The gateway's cursors carry more
 * than a position (the store id, the session, the issue time), so this codec hands issuing to the
 * gateway's TokenCodec and "opens" the position the gateway already verified.
 */
class StoredPageCodec extends CursorCodec {
  readonly #issue: (position: number) => string;
  readonly #opened: number;
  constructor(issue: (position: number) => string, opened: number) {
    super();
    this.#issue = issue;
    this.#opened = opened;
  }
  override issue(_binding: CursorBinding, position: number): string {
    return this.#issue(position);
  }
  override open(_cursor: unknown, _binding: CursorBinding): number {
    return this.#opened;
  }
}

/** Stored items and what a page of them binds its next cursor to (the entry, its revision, the session and scope). */
export interface BoundPagesOptions {
  readonly items: readonly unknown[];
  readonly budget: number;
  readonly codec: TokenCodec;
  readonly id: string;
  readonly issuedAt: number;
  readonly sessionId: string;
  readonly scope: string;
  readonly revision: string;
  readonly continueHint: string;
}

export interface StoredPageOptions extends BoundPagesOptions {
  /** Where the page starts (0 for the first page). */
  readonly position: number;
  readonly idField?: string;
  readonly fetchHint?: (cut: CutRecord) => string;
}

/** One token page of stored items, its next_cursor a gateway cursor bound to the entry, session and scope. */
export function storedPage(options: StoredPageOptions): TokenPageResult<unknown> {
  const { codec, id, issuedAt, sessionId, scope } = options;
  const pageCodec = new StoredPageCodec((position) => codec.issue({ kind: 'cursor', id, issuedAt, sessionId, scope, position }), options.position);
  return pageByTokens({
    items: options.items,
    budget: options.budget,
    cursor: options.position > 0 ? 'verified' : undefined,
    codec: pageCodec,
    binding: { query: scope, revision: options.revision },
    continueHint: options.continueHint,
    ...(options.idField !== undefined ? { idField: options.idField } : {}),
    ...(options.fetchHint !== undefined ? { fetchHint: options.fetchHint } : {}),
  });
}

/** The entry under `id`, or EVICTED when the store no longer has it. */
export function* loadEntry(store: AnyOffloadStore, id: string, kind: StoredEntry['kind'], what: 'handle' | 'cursor'): StoreSteps<StoredEntry> {
  const text = yield* storeGet(id);
  if (text === undefined) {
    throw new McpctxError(
      'EVICTED',
      `The stored result this ${what} points to is gone: it was evicted to make room for newer results (the store keeps at most ` +
        `${store.maxBytes.toLocaleString('en-US')} bytes), or the gateway restarted. Call the tool again${what === 'cursor' ? ' without cursor' : ''} to get it anew.`,
      { what },
    );
  }
  const entry = JSON.parse(text) as unknown;
  if (!isPlainObject(entry) || entry.v !== 1 || entry.kind !== kind) {
    throw new McpctxError('INVALID_CURSOR', `The stored entry for this ${what} is not a ${kind === 'list' ? 'page list' : 'stored result'}. Call the tool again.`, {
      rpcCode: INVALID_PARAMS,
    });
  }
  return entry as unknown as StoredEntry;
}
