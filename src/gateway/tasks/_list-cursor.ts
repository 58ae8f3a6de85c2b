import { McpctxError } from '../../errors/index.js';
import { INVALID_PARAMS, type CursorBinding, type CursorCodec } from '../../shape/index.js';

/** Where a merged tasks/list goes on: the next page of one upstream's list, under that upstream's own cursor. */
export interface TaskListPosition {
  readonly upstream: string;
  readonly cursor: string;
}

const SEPARATOR = '.';

/**
 * The gateway's tasks/list cursor: `<signed>.<position>`, the position (upstream name and its own
 * cursor) in base64url JSON, the signed part an HMAC cursor bound to this session and to exactly
 * that position. Nothing is kept between pages, any gateway instance sharing the key can open it,
 * and a cursor edited, forged or shown to another session is refused, never passed to an upstream.
 */
export function issueTaskListCursor(codec: CursorCodec, sessionId: string, position: TaskListPosition): string {
  const encoded = Buffer.from(JSON.stringify([position.upstream, position.cursor])).toString('base64url');
  return `${codec.issue(binding(sessionId, position), 0)}${SEPARATOR}${encoded}`;
}

/** The position a cursor from `issueTaskListCursor` stands for; throws INVALID_CURSOR (-32602) for anything else. */
export function openTaskListCursor(codec: CursorCodec, sessionId: string, cursor: unknown): TaskListPosition {
  const invalid = (why: string): McpctxError =>
    new McpctxError('INVALID_CURSOR', `Invalid cursor: ${why}. Pass nextCursor exactly as the previous tasks/list page returned it, or omit cursor to list from the start.`, {
      rpcCode: INVALID_PARAMS,
    });
  if (typeof cursor !== 'string') throw invalid('it is not a string');
  const at = cursor.indexOf(SEPARATOR);
  if (at <= 0) throw invalid('it is not a cursor this gateway issues');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor.slice(at + 1), 'base64url').toString('utf8'));
  } catch {
    throw invalid('it is not a cursor this gateway issues');
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[0] !== 'string' || typeof decoded[1] !== 'string') {
    throw invalid('it is not a cursor this gateway issues');
  }
  const position = { upstream: decoded[0], cursor: decoded[1] };
  // Throws for a bad signature (edited, forged) or another session's cursor, with the codec's remedy.
  codec.open(cursor.slice(0, at), binding(sessionId, position));
  return position;
}

function binding(sessionId: string, position: TaskListPosition): CursorBinding {
  return { query: { method: 'tasks/list', session: sessionId, upstream: position.upstream, cursor: position.cursor }, revision: 'tasks/list' };
}
