import { McpctxError } from '../errors/index.js';
import { type CursorBinding, type CursorCodec } from './_cursor.js';
import { startPosition } from './_start-position.js';

export interface CountPageOptions<T> {
  readonly items: readonly T[];
  /** Records per page. Use this only where records have a known, small size; otherwise page by tokens. */
  readonly pageSize: number;
  readonly cursor?: string | undefined;
  readonly codec: CursorCodec;
  readonly binding: CursorBinding;
  readonly continueHint?: string;
  /** What the items are, in the note ("Records 1-5 of 6."); default "Records". */
  readonly itemLabel?: string;
}

/** The page as sent: the same envelope, in the same key order, as `pageByTokens`'s page. */
export interface CountPage<T> {
  readonly items: readonly T[];
  readonly total_matching: number;
  /** True when matching records remain after this page. */
  readonly truncated: boolean;
  readonly next_cursor: string | null;
  readonly note: string;
}

/** Fixed-size pages with the same bound cursors and the same envelope as `pageByTokens`. */
export function pageByCount<T>(options: CountPageOptions<T>): CountPage<T> {
  const { items, pageSize, codec, binding } = options;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `The page size must be a positive integer, got ${pageSize}.`);
  }
  const start = startPosition(options.cursor, items.length, codec, binding);
  const end = Math.min(items.length, start + pageSize);
  const truncated = end < items.length;
  const label = options.itemLabel ?? 'Records';
  const shown = items.length === 0 ? `No ${label.toLowerCase()} match.` : `${label} ${start + 1}-${end} of ${items.length}.`;
  const hint = options.continueHint ?? 'call again with the same arguments and cursor set to next_cursor';
  return {
    items: items.slice(start, end),
    total_matching: items.length,
    truncated,
    next_cursor: truncated ? codec.issue(binding, end) : null,
    note: `${shown} ${truncated ? `More match: ${hint}.` : 'This is the last page.'}`,
  };
}
