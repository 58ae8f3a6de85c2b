import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { isPlainObject, nestsDeeperThan } from '../../json/index.js';
import { type JsonRpcMessage } from './_front.js';

/** Whether a host name or address only ever reaches this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare.toLowerCase() === '::ffff:127.0.0.1';
  return false;
}

/** What the Host and Origin checks compare a request with: the address the front is bound to, and what the operator added. */
export interface AddressChecks {
  readonly loopbackBind: boolean;
  readonly port: number;
  /** `--allow-host`: Host header values accepted as they are (lower case). */
  readonly allowHosts: readonly string[];
  /** `--allow-origin`: origins accepted (as `new URL(...).origin`). */
  readonly allowOrigins: readonly string[];
}

// A Host header: a name or IPv4 address, or a bracketed IPv6 address, then an optional port.
// Linear: character classes only, no nested quantifiers.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

/** A Host header value split into its name and port (80 when absent, as for http://); undefined when malformed. */
export function parseHostHeader(value: string): { hostname: string; port: number } | undefined {
  const match = HOST_HEADER.exec(value.toLowerCase());
  if (match === null || match[1] === undefined) return undefined;
  return { hostname: match[1], port: match[2] === undefined ? 80 : Number(match[2]) };
}

/**
 * DNS-rebinding guard: a page whose name resolves to 127.0.0.1 reaches a loopback gateway with
 * its own name in Host. On a loopback bind Host must name a loopback address (localhost,
 * 127.x.x.x, [::1]) on the bound port, or be one of `--allow-host`; on another bind only
 * `--allow-host` is checked, when given.
 */
export function hostAllowed(host: string | undefined, checks: AddressChecks): boolean {
  if (host === undefined) return !checks.loopbackBind && checks.allowHosts.length === 0;
  if (checks.allowHosts.includes(host.toLowerCase())) return true;
  if (!checks.loopbackBind) return checks.allowHosts.length === 0;
  const parsed = parseHostHeader(host);
  return parsed !== undefined && isLoopbackHost(parsed.hostname) && parsed.port === checks.port;
}

/** An origin in the form browsers send (`scheme://host[:port]`), or undefined when it is not one. */
export function normalOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * A browser page may drive a loopback gateway only from a loopback origin on the gateway's own
 * port (the same server), or from an origin in `--allow-origin`; `null` (sandboxed frames, files)
 * never. A request without Origin is not from a page. On another bind only `--allow-origin` is
 * checked, when given.
 */
export function originAllowed(origin: string | undefined, checks: AddressChecks): boolean {
  if (origin === undefined) return true;
  const normal = normalOrigin(origin);
  if (normal !== undefined && checks.allowOrigins.includes(normal)) return true;
  if (!checks.loopbackBind) return checks.allowOrigins.length === 0;
  if (normal === undefined) return false;
  const url = new URL(normal);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return isLoopbackHost(url.hostname) && port === checks.port;
}

/** Timing-safe: both sides hashed to one length first, so neither length nor prefix leaks. */
/**
 * Which of `tokens` the Authorization header carries (its index), or -1. Every token is compared,
 * in constant time, whichever matched: the time taken says nothing about which one, or how close.
 */
export function bearerIndex(authorization: string | undefined, tokens: readonly string[]): number {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  const given = createHash('sha256').update(match?.[1] ?? '').digest();
  let found = -1;
  tokens.forEach((token, index) => {
    if (timingSafeEqual(given, createHash('sha256').update(token).digest()) && match !== null) found = index;
  });
  return found;
}

/** Whether a header value (an Accept list) names a media type. */
export function accepts(header: string | undefined, mediaType: string): boolean {
  return (header ?? '')
    .split(',')
    .some((part) => part.split(';')[0]?.trim().toLowerCase() === mediaType);
}

export type BodyOutcome = { ok: true; text: string } | { ok: false; status: 413 | 400; reason: string };

/** Reads a request body, refusing it as soon as it grows past `maxBytes`. */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyOutcome> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.resolve({ ok: false, status: 413, reason: `the body is ${declared} bytes; the limit is ${maxBytes} bytes` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (outcome: BodyOutcome): void => {
      if (done) return;
      done = true;
      resolve(outcome);
    };
    request.on('data', (chunk: Buffer) => {
      if (done) return;
      received += chunk.length;
      if (received > maxBytes) {
        chunks.length = 0;
        finish({ ok: false, status: 413, reason: `the body is over the limit of ${maxBytes} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      try {
        finish({ ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)) });
      } catch {
        finish({ ok: false, status: 400, reason: 'the body is not valid UTF-8' });
      }
    });
    request.on('error', () => finish({ ok: false, status: 400, reason: 'the request body was cut off' }));
    request.on('close', () => finish({ ok: false, status: 400, reason: 'the request body was cut off' }));
  });
}

export interface ParsedPost {
  messages: JsonRpcMessage[];
  batch: boolean;
  /** Ids of the requests among the messages, in order. */
  requestIds: Array<string | number>;
  initialize: boolean;
}

export type ParseOutcome = { ok: true; post: ParsedPost } | { ok: false; code: number; reason: string };

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Parses a POST body into JSON-RPC messages, keeping each object as parsed (key order, unknown keys). */
export function parsePost(text: string, maxDepth: number): ParseOutcome {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, code: -32700, reason: `Parse error: the body is not JSON (${(error as Error).message})` };
  }
  if (nestsDeeperThan(value, maxDepth)) {
    return { ok: false, code: -32600, reason: `Invalid Request: the body nests deeper than ${maxDepth} levels` };
  }
  const batch = Array.isArray(value);
  const items: unknown[] = batch ? (value as unknown[]) : [value];
  if (items.length === 0) return { ok: false, code: -32600, reason: 'Invalid Request: an empty batch' };
  const requestIds: Array<string | number> = [];
  const seen = new Set<string>();
  let initialize = false;
  for (const item of items) {
    if (!isPlainObject(item) || item.jsonrpc !== '2.0') {
      return { ok: false, code: -32600, reason: 'Invalid Request: each message must be a JSON-RPC 2.0 object' };
    }
    const hasMethod = typeof item.method === 'string';
    const isResponse = !('method' in item) && ('result' in item || 'error' in item) && 'id' in item;
    if (!hasMethod && !isResponse) {
      return { ok: false, code: -32600, reason: 'Invalid Request: a message needs a method (request, notification) or a result or error (response)' };
    }
    if (hasMethod && 'id' in item) {
      if (!isId(item.id)) return { ok: false, code: -32600, reason: 'Invalid Request: a request id must be a string or a number' };
      const key = JSON.stringify(item.id);
      if (seen.has(key)) return { ok: false, code: -32600, reason: `Invalid Request: the id ${key} appears twice in one batch` };
      seen.add(key);
      requestIds.push(item.id);
      if (item.method === 'initialize') initialize = true;
    }
  }
  if (initialize && items.length > 1) {
    return { ok: false, code: -32600, reason: 'Invalid Request: initialize must be sent alone, not in a batch' };
  }
  return { ok: true, post: { messages: items as JsonRpcMessage[], batch, requestIds, initialize } };
}
