import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { JSON_RPC_CODES, McpctxError } from '../errors/index.js';
import { stableJson } from './_stable-json.js';

/** What a cursor is bound to: the query that made it and the revision of the data it pages. */
export interface CursorBinding {
  /** Any JSON value that identifies the query: tool name, filters, selected fields. Key order is ignored. */
  readonly query: unknown;
  /** The revision of the source the positions refer to (for example a hash of its bytes). */
  readonly revision: string;
}

/** JSON-RPC "invalid params": the code a bad cursor carries when it travels as a protocol error. */
export const INVALID_PARAMS = JSON_RPC_CODES.invalidParams;

// Layout of the signed bytes. Hashes are truncated: they only have to tell queries and revisions
// apart, and every byte costs tokens in each page a model reads.
const VERSION = 1;
const QUERY_HASH_BYTES = 8;
const REVISION_HASH_BYTES = 8;
const POSITION_BYTES = 4;
const PAYLOAD_BYTES = 1 + QUERY_HASH_BYTES + REVISION_HASH_BYTES + POSITION_BYTES;
const MAC_BYTES = 16;
const CURSOR_CHARS = Math.ceil(((PAYLOAD_BYTES + MAC_BYTES) * 4) / 3);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MIN_KEY_BYTES = 16;

const START_AGAIN = 'omit cursor to start this query from its first page';

/**
 * Issues and opens opaque page cursors: base64url of (version, query hash, revision hash,
 * position) signed with HMAC-SHA256. A cursor opens only for the same query and the same
 * revision, under the same key; every other case is a distinct error with a remedy.
 */
export class CursorCodec {
  readonly #key: Buffer;

  /** `key`: the server author's secret (at least 16 bytes), or omitted for a random key per process. */
  constructor(options: { key?: string | Uint8Array } = {}) {
    const given: unknown = options.key;
    if (given !== undefined && typeof given !== 'string' && !(given instanceof Uint8Array)) {
      throw new McpctxError('INVALID_ARGUMENT', `A cursor key must be a string or bytes, got ${given === null ? 'null' : `a ${typeof given}`}.`);
    }
    const key = given === undefined ? randomBytes(32) : Buffer.from(given);
    if (key.length < MIN_KEY_BYTES) {
      throw new McpctxError('INVALID_ARGUMENT', `A cursor key needs at least ${MIN_KEY_BYTES} bytes; got ${key.length}.`);
    }
    this.#key = key;
  }

  /** A cursor for `position` (an index into the query's ordered results) under `binding`. */
  issue(binding: CursorBinding, position: number): string {
    if (!Number.isSafeInteger(position) || position < 0 || position > 0xffff_ffff) {
      throw new McpctxError('INVALID_ARGUMENT', `A cursor position must be an integer from 0 to 2^32-1, got ${position}.`);
    }
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload.writeUInt8(VERSION, 0);
    queryHash(binding.query).copy(payload, 1);
    revisionHash(binding.revision).copy(payload, 1 + QUERY_HASH_BYTES);
    payload.writeUInt32BE(position, 1 + QUERY_HASH_BYTES + REVISION_HASH_BYTES);
    return Buffer.concat([payload, this.#mac(payload)]).toString('base64url');
  }

  /**
   * The position `cursor` points at. Throws INVALID_CURSOR (malformed or bad signature),
   * FOREIGN_CURSOR (another query) or STALE_CURSOR (the data changed), each with a remedy.
   */
  open(cursor: unknown, binding: CursorBinding): number {
    if (typeof cursor !== 'string' || cursor.length !== CURSOR_CHARS || !BASE64URL.test(cursor)) {
      throw new McpctxError(
        'INVALID_CURSOR',
        `Invalid cursor: it is not a cursor this server issues (expected ${CURSOR_CHARS} base64url characters). ` +
          `Pass next_cursor exactly as the previous page returned it, or ${START_AGAIN}.`,
        { reason: 'malformed', rpcCode: INVALID_PARAMS },
      );
    }
    const bytes = Buffer.from(cursor, 'base64url');
    // Unused low bits of the last character would let two spellings decode to the same bytes.
    const canonical = bytes.toString('base64url') === cursor;
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    const mac = bytes.subarray(PAYLOAD_BYTES);
    if (!canonical || mac.length !== MAC_BYTES || !timingSafeEqual(mac, this.#mac(payload)) || payload.readUInt8(0) !== VERSION) {
      throw new McpctxError(
        'INVALID_CURSOR',
        'Invalid cursor: its signature does not match, so it was edited after it was issued or comes from another ' +
          `server process. Pass next_cursor exactly as the previous page returned it, or ${START_AGAIN}.`,
        { reason: 'signature', rpcCode: INVALID_PARAMS },
      );
    }
    if (!payload.subarray(1, 1 + QUERY_HASH_BYTES).equals(queryHash(binding.query))) {
      throw new McpctxError(
        'FOREIGN_CURSOR',
        'Foreign cursor: it was issued for a different query (another tool, other filters or other fields). ' +
          `Repeat the exact arguments of the call that returned it, or ${START_AGAIN}.`,
        { rpcCode: INVALID_PARAMS },
      );
    }
    const revisionStart = 1 + QUERY_HASH_BYTES;
    if (!payload.subarray(revisionStart, revisionStart + REVISION_HASH_BYTES).equals(revisionHash(binding.revision))) {
      throw new McpctxError(
        'STALE_CURSOR',
        'Stale cursor: the data changed since it was issued, so its position no longer means the same record. ' +
          'Repeat the query without a cursor to page the current data from the start.',
        { rpcCode: INVALID_PARAMS, revision: binding.revision },
      );
    }
    return payload.readUInt32BE(revisionStart + REVISION_HASH_BYTES);
  }

  #mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

function queryHash(query: unknown): Buffer {
  return createHash('sha256').update(stableJson(query)).digest().subarray(0, QUERY_HASH_BYTES);
}

function revisionHash(revision: string): Buffer {
  return createHash('sha256').update(revision).digest().subarray(0, REVISION_HASH_BYTES);
}
