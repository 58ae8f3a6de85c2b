import { McpctxError } from '../errors/index.js';
import { describeBody } from './_http-body.js';
import type { Redactor } from './_redact.js';

// Errors both HTTP transports (streamable and the legacy HTTP+SSE) raise in the same words: they
// name the endpoint (never its query or a header value) and quote what the server said, scrubbed.

/** 401/403: the server wants credentials; its `WWW-Authenticate` challenge quoted (scrubbed). */
export function authRequiredError(endpoint: string, what: string, response: Response, redactor: Redactor, advice?: string): McpctxError {
  const status = response.status;
  const challenge = response.headers.get('www-authenticate');
  const quoted = challenge === null ? null : describeBody(challenge, redactor);
  return new McpctxError(
    'AUTH_REQUIRED',
    `the MCP server at ${endpoint} refused ${what} with HTTP ${status}${quoted === null ? '' : ` (WWW-Authenticate: ${quoted})`}; ${advice ?? 'check the credentials in its headers'}`,
    { status, wwwAuthenticate: challenge === null ? null : redactor.text(challenge) },
  );
}

/** fetch failed before any answer: connection refused, DNS, TLS. The errno (or the cause's words) is kept. */
export function unreachableError(endpoint: string, what: string, error: unknown, redactor: Redactor): McpctxError {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const errno = typeof cause?.code === 'string' ? cause.code : undefined;
  const reason = errno ?? (typeof cause?.message === 'string' ? describeBody(cause.message, redactor) : 'the request failed');
  return new McpctxError('UNREACHABLE', `cannot reach the MCP server at ${endpoint} to send ${what} (${reason}); check that it runs and the URL is right`, {
    url: endpoint,
    errno,
  });
}
