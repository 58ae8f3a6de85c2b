import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { McpctxError } from '../errors/index.js';

/** `crypto.hash` (Node 20.12+) hashes in one call; older Node 20 releases get a `Hash` object, which costs more than hashing a short text. */
const oneShotHash = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function sha256Hex(input: string | Uint8Array): string {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    throw new McpctxError('INVALID_ARGUMENT', `sha256Hex: expected a string or bytes, got ${input === null ? 'null' : typeof input}`);
  }
  return oneShotHash === undefined ? createHash('sha256').update(input).digest('hex') : oneShotHash('sha256', input, 'hex');
}
