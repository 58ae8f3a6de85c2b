import { McpctxError } from '../errors/index.js';
import { describeBody } from './_http-body.js';
import type { Redactor } from './_redact.js';

/** Most redirects followed for one request: enough for a moved endpoint and a trailing slash, never a loop. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface OutgoingRequest {
  method: string;
  /** Sent as they are at every hop: every hop is on the first URL's origin, so nothing leaves it. */
  headers: Readonly<Record<string, string>>;
  /** Re-sent byte for byte when a redirect keeps the method. */
  body?: string | undefined;
  signal: AbortSignal;
}

/** Where the request was sent, for messages: the endpoint (origin and path) and what was asked. */
export interface RequestLabel {
  endpoint: string;
  what: string;
  redactor: Redactor;
}

/**
 * `fetch` that follows a redirect by hand, and only on the request URL's own origin (scheme, host
 * and port), at most MAX_REDIRECTS times, so the headers (credentials) never reach another origin.
 * 301, 302, 307 and 308 keep the method and re-send the same body: an MCP endpoint takes its
 * messages as POSTs, and the browser habit of turning a redirected POST into a GET would drop the
 * message; 303 ("see other") fetches its Location with GET and no body, as it means. Anything else
 * (another origin, a Location that is missing, not a URL or carries credentials, one hop too many)
 * is REDIRECT_REFUSED, naming both origins; nothing is sent there. Network failures throw as fetch's.
 */
export async function fetchOnOrigin(url: URL, request: OutgoingRequest, label: RequestLabel): Promise<Response> {
  let target = url;
  let method = request.method;
  let body = request.body;
  for (let hops = 0; ; hops += 1) {
    const response = await fetch(target, { method, headers: request.headers, body, signal: request.signal, redirect: 'manual' });
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    if (hops >= MAX_REDIRECTS) {
      throw new McpctxError(
        'REDIRECT_REFUSED',
        `the MCP server at ${label.endpoint} redirected ${label.what} more than ${MAX_REDIRECTS} times (HTTP ${status} at hop ${hops + 1}); the limit is ${MAX_REDIRECTS} redirects`,
        { status, hops: hops + 1, limit: MAX_REDIRECTS },
      );
    }
    target = nextUrl(target, response, url, label);
    if (status === 303) {
      method = 'GET';
      body = undefined;
    }
  }
}

function nextUrl(current: URL, response: Response, first: URL, label: RequestLabel): URL {
  const status = response.status;
  const location = response.headers.get('location');
  const refuse = (why: string, to?: string): McpctxError =>
    new McpctxError('REDIRECT_REFUSED', `the MCP server at ${label.endpoint} redirected ${label.what} (HTTP ${status}) ${why}`, {
      status,
      from: first.origin,
      ...(to === undefined ? {} : { to }),
    });
  if (location === null || location.trim() === '') throw refuse('without a Location to follow');
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw refuse(`to ${describeBody(location, label.redactor)}, which is not a URL`);
  }
  if (next.origin !== first.origin) {
    const to = describeBody(next.origin, label.redactor);
    throw refuse(
      `to another origin (${to}); mcpctx follows redirects only on the server's own origin (scheme, host and port), so its headers never go elsewhere. If you trust ${to}, give its URL instead`,
      to,
    );
  }
  if (next.username !== '' || next.password !== '') throw refuse('to a URL that carries credentials');
  return next;
}
