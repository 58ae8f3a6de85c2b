import type { FetchLike } from '@modelcontextprotocol/client';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { readBoundedBody } from '../../mcp/index.js';

/** What one exchange with an authorization server may take and send back. */
export const AUTH_REQUEST_TIMEOUT_MS = 15_000;
export const AUTH_BODY_MAX_BYTES = 1024 * 1024;

/**
 * The fetch handed to the SDK's OAuth helpers: every request under a deadline, no redirect followed
 * (a token request re-sent elsewhere would carry the client's secret and the code), and every body
 * read whole only up to AUTH_BODY_MAX_BYTES, under the same deadline, before the SDK parses it.
 */
export function boundedFetch(timeoutMs: number = AUTH_REQUEST_TIMEOUT_MS, maxBytes: number = AUTH_BODY_MAX_BYTES): FetchLike {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(input, { ...init, redirect: 'manual', signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
    } catch (error) {
      throw requestFailed(url, error, signal.aborted, timeoutMs);
    }
    let body: Buffer | null = null;
    try {
      // A null body stays null: a 204 or 304 cannot be rebuilt with one.
      if (response.body !== null) body = await readBoundedBody(response, maxBytes, `a request to ${originAndPath(url)}`);
    } catch (error) {
      throw isMcpctxError(error) ? error : requestFailed(url, error, signal.aborted, timeoutMs);
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function requestFailed(url: string, error: unknown, timedOut: boolean, timeoutMs: number): McpctxError {
  const where = originAndPath(url);
  if (timedOut) return new McpctxError('AUTH_FLOW', `${where} did not answer within ${timeoutMs} ms`, { step: 'http', url: where });
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const reason = typeof cause?.code === 'string' ? cause.code : 'the request failed';
  return new McpctxError('AUTH_FLOW', `cannot reach ${where} (${reason})`, { step: 'http', url: where });
}

/** A URL as messages may name it: no user, password, query or fragment. */
export function originAndPath(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
