import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { McpctxError, type McpctxErrorCode } from '../../errors/index.js';
import { INVALID_PARAMS } from '../../shape/index.js';

/**
 * The gateway's handles and page cursors: base64url of a signed payload.
 *
 *   version(1) kind(1) id(12) issuedAt(6, ms) session(6) scope(6) position(4) offset(4) | HMAC-SHA256(16)
 *
 * `offset` is where a read_result page starts inside an item too large for one page (a character
 * of its text), so such an item is walked in parts instead of being cut.
 * `id` names the store entry; `session` and `scope` are truncated SHA-256 of the session id and of
 * what the token is for (the tool and its arguments, or read_result's path and query), so a token
 * shown to another session or used for another query is told apart from a forged one. The key is
 * shared by gateway instances behind a load balancer: any of them can verify any token.
 */
export type TokenKind = 'handle' | 'cursor';

export interface GatewayToken {
  readonly kind: TokenKind;
  /** Store id: 24 hex characters. */
  readonly id: string;
  readonly issuedAt: number;
  readonly sessionId: string;
  /** What the token is for; compared by hash. */
  readonly scope: string;
  readonly position: number;
  /** Character offset inside the item at `position` (0: the item's start). */
  readonly offset?: number;
}

const VERSION = 2;
const KINDS: readonly TokenKind[] = ['handle', 'cursor'];
const ID_BYTES = 12;
const TIME_BYTES = 6;
const HASH_BYTES = 6;
const PAYLOAD_BYTES = 2 + ID_BYTES + TIME_BYTES + HASH_BYTES + HASH_BYTES + 4 + 4;
const MAC_BYTES = 16;
const TOKEN_CHARS = Math.ceil(((PAYLOAD_BYTES + MAC_BYTES) * 4) / 3);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MIN_KEY_BYTES = 16;

const OFFSET = { kind: 1, id: 2, time: 2 + ID_BYTES, session: 2 + ID_BYTES + TIME_BYTES, scope: 2 + ID_BYTES + TIME_BYTES + HASH_BYTES, position: PAYLOAD_BYTES - 8, offset: PAYLOAD_BYTES - 4 };

/** A fresh store id. */
export function newStoreId(): string {
  return randomBytes(ID_BYTES).toString('hex');
}

/** Whether `text` has the form of a gateway token (it may still be forged): cheap, no crypto. */
export function looksLikeGatewayToken(text: unknown): text is string {
  if (typeof text !== 'string' || text.length !== TOKEN_CHARS || !BASE64URL.test(text)) return false;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.length === PAYLOAD_BYTES + MAC_BYTES && bytes.readUInt8(0) === VERSION;
}

/** Why a token was refused; `code` is the McpctxError code, each with its own remedy. */
export type TokenFault = 'malformed' | 'forged' | 'wrong-kind' | 'foreign-session' | 'foreign-scope' | 'expired';

export class TokenCodec {
  readonly #key: Buffer;

  constructor(key?: Uint8Array) {
    if (key !== undefined && !(key instanceof Uint8Array)) throw new McpctxError('INVALID_ARGUMENT', 'The gateway key must be bytes (a Uint8Array).');
    const bytes = key === undefined ? randomBytes(32) : Buffer.from(key);
    if (bytes.length < MIN_KEY_BYTES) throw new McpctxError('INVALID_ARGUMENT', `The gateway key needs at least ${MIN_KEY_BYTES} bytes; got ${bytes.length}.`);
    this.#key = bytes;
  }

  issue(token: GatewayToken): string {
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload.writeUInt8(VERSION, 0);
    payload.writeUInt8(KINDS.indexOf(token.kind), OFFSET.kind);
    Buffer.from(token.id, 'hex').copy(payload, OFFSET.id);
    payload.writeUIntBE(Math.max(0, Math.floor(token.issuedAt)), OFFSET.time, TIME_BYTES);
    hash(token.sessionId).copy(payload, OFFSET.session);
    hash(token.scope).copy(payload, OFFSET.scope);
    payload.writeUInt32BE(token.position, OFFSET.position);
    payload.writeUInt32BE(token.offset ?? 0, OFFSET.offset);
    return Buffer.concat([payload, this.#mac(payload)]).toString('base64url');
  }

  /**
   * The store id, issue time and position of `text`, checked in this order: its form, its
   * signature, its kind, its session, its scope, its age. Throws a TokenRefusal naming the fault.
   */
  open(text: unknown, expected: { kind: TokenKind; sessionId: string; scope: string; now: number; ttlMs: number }): { id: string; issuedAt: number; position: number; offset: number } {
    if (!looksLikeGatewayToken(text)) throw new TokenRefusal('malformed', expected.kind);
    const bytes = Buffer.from(text, 'base64url');
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    // Unused low bits of the last character would let two spellings decode to the same bytes.
    if (bytes.toString('base64url') !== text || !timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), this.#mac(payload))) {
      throw new TokenRefusal('forged', expected.kind);
    }
    if (KINDS[payload.readUInt8(OFFSET.kind)] !== expected.kind) throw new TokenRefusal('wrong-kind', expected.kind);
    if (!payload.subarray(OFFSET.session, OFFSET.session + HASH_BYTES).equals(hash(expected.sessionId))) {
      throw new TokenRefusal('foreign-session', expected.kind);
    }
    if (!payload.subarray(OFFSET.scope, OFFSET.scope + HASH_BYTES).equals(hash(expected.scope))) {
      throw new TokenRefusal('foreign-scope', expected.kind);
    }
    const issuedAt = payload.readUIntBE(OFFSET.time, TIME_BYTES);
    if (expected.now - issuedAt >= expected.ttlMs) throw new TokenRefusal('expired', expected.kind, { ttlMs: expected.ttlMs });
    return {
      id: payload.subarray(OFFSET.id, OFFSET.id + ID_BYTES).toString('hex'),
      issuedAt,
      position: payload.readUInt32BE(OFFSET.position),
      offset: payload.readUInt32BE(OFFSET.offset),
    };
  }

  #mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

function hash(text: string): Buffer {
  return createHash('sha256').update(text).digest().subarray(0, HASH_BYTES);
}

/** A refused handle or cursor: an McpctxError whose message says what to do. */
export class TokenRefusal extends McpctxError<McpctxErrorCode> {
  readonly fault: TokenFault;
  constructor(fault: TokenFault, kind: TokenKind, extra: { ttlMs?: number } = {}) {
    super(faultCode(fault, kind), faultMessage(fault, kind, extra.ttlMs), { fault, rpcCode: INVALID_PARAMS });
    this.fault = fault;
  }
}

function faultCode(fault: TokenFault, kind: TokenKind): McpctxErrorCode {
  if (fault === 'expired') return 'EXPIRED';
  if (fault === 'foreign-session' || fault === 'foreign-scope') return kind === 'handle' ? 'FOREIGN_HANDLE' : 'FOREIGN_CURSOR';
  return kind === 'handle' ? 'INVALID_HANDLE' : 'INVALID_CURSOR';
}

const AGAIN = {
  handle: 'Call the original tool again to get a new handle.',
  cursor: 'Repeat the call without cursor to start again from the first page.',
};

function faultMessage(fault: TokenFault, kind: TokenKind, ttlMs: number | undefined): string {
  const what = kind === 'handle' ? 'handle' : 'cursor';
  const pass = kind === 'handle' ? 'Pass the handle exactly as the offload preview gave it, or' : 'Pass next_cursor exactly as the previous page gave it, or';
  switch (fault) {
    case 'malformed':
      return `Invalid ${what}: it is not a ${what} issued here (${TOKEN_CHARS} base64url characters). ${pass} ${lower(AGAIN[kind])}`;
    case 'forged':
      return `Invalid ${what}: its signature does not match, so it was edited after it was issued or was signed with another key. ${pass} ${lower(AGAIN[kind])}`;
    case 'wrong-kind':
      return kind === 'handle'
        ? 'Invalid handle: this is a page cursor, not a handle. Pass it as cursor, and the handle as handle.'
        : 'Invalid cursor: this is a result handle, not a page cursor. Pass it as handle to read_result.';
    case 'foreign-session':
      return `Foreign ${what}: it was issued to another session (or, with a shared state, another client's token), and ${what}s are bound to the one that received them. ${AGAIN[kind]}`;
    case 'foreign-scope':
      return kind === 'handle'
        ? 'Foreign handle: it was issued for another result. Pass the handle of the result you mean.'
        : 'Foreign cursor: it was issued for a different call (another tool, other arguments, another path or query). ' +
            'Repeat the exact arguments of the call that returned it with this cursor, or omit cursor to start from the first page.';
    case 'expired':
      return `Expired ${what}: stored results are kept ${duration(ttlMs)} and this one is older. ${AGAIN[kind]}`;
  }
}

function lower(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function duration(ms: number | undefined): string {
  if (ms === undefined) return 'for a limited time';
  if (ms % 3_600_000 === 0) return `for ${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `for ${ms / 60_000} min`;
  return `for ${(ms / 1000).toLocaleString('en-US')} s`;
}
