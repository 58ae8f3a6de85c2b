import { createHash } from 'node:crypto';

/**
 * The canonical form of a parsed JSON value: `JSON.stringify` with no whitespace and the key
 * order as parsed. Deliberately not key-sorted: order is part of what the model reads.
 */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('canonicalJson: value has no JSON form');
  return text;
}

export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}
