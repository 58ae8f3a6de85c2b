import { McpctxError } from '../errors/index.js';
import { INVALID_PARAMS, type CursorBinding, type CursorCodec } from './_cursor.js';

/** Where a page starts: 0 without a cursor, else the position the cursor was issued for. */
export function startPosition(cursor: string | undefined, total: number, codec: CursorCodec, binding: CursorBinding): number {
  if (cursor === undefined) return 0;
  const position = codec.open(cursor, binding);
  // Cursors are issued only for positions that still have records under the same revision.
  if (position >= total) {
    throw new McpctxError(
      'INVALID_CURSOR',
      `Invalid cursor: it points at record ${position + 1}, past the ${total} that match. Omit cursor to start again.`,
      { reason: 'out-of-range', rpcCode: INVALID_PARAMS },
    );
  }
  return position;
}
