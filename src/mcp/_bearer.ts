import { McpctxError } from '../errors/index.js';
import type { Redactor } from './_redact.js';

/**
 * Where an HTTP transport gets its `Authorization` value when the server is reached with a stored
 * OAuth login (src/auth implements it; the transports only call it). The value is a secret: the
 * transport adds it to its redactor and never puts it in an error.
 */
export interface BearerSource {
  /**
   * The `Authorization` header value to send now ("Bearer ..."), refreshed first when the token is
   * about to expire; undefined when there is no login for the server (the request goes without).
   * Throws AUTH_REQUIRED, naming the command to run, when the login can no longer be used.
   */
  authorization(): Promise<string | undefined>;
  /**
   * After the server refused `sent` with 401 or 403: a new value to retry with once (a refreshed
   * token, a token with the scope a 403 asked for), or undefined when none can be had without the
   * user (then the refusal stands, and `advice` says what to run).
   */
  retryAfter(refusal: BearerRefusal): Promise<string | undefined>;
  /** What the user should do about a refusal that stands: "run `mcpctx auth login URL`". */
  advice(): string;
}

export interface BearerRefusal {
  status: number;
  /** The response's WWW-Authenticate header, as sent. */
  wwwAuthenticate: string | null;
  /** The Authorization value the refused request carried, if any. */
  sent: string | undefined;
}

/**
 * Sends one request with the bearer's Authorization value (when there is a bearer), and once more
 * with a new value when the server refuses it with 401 or 403 and the bearer can get one. Every
 * value sent is taught to `redactor` first.
 */
export async function sendAuthorized(
  bearer: BearerSource | undefined,
  redactor: Redactor,
  send: (authorization: string | undefined) => Promise<Response>,
): Promise<Response> {
  if (bearer === undefined) return send(undefined);
  const first = await bearer.authorization();
  if (first !== undefined) teach(redactor, first);
  const response = await send(first);
  if (response.status !== 401 && response.status !== 403) return response;
  const retry = await bearer.retryAfter({ status: response.status, wwwAuthenticate: response.headers.get('www-authenticate'), sent: first });
  if (retry === undefined) return response;
  await response.body?.cancel().catch(() => {});
  teach(redactor, retry);
  return send(retry);
}

function teach(redactor: Redactor, authorization: string): void {
  redactor.learn('authorization', authorization);
  const credential = /^\S+\s+(\S+)$/.exec(authorization)?.[1];
  if (credential !== undefined) redactor.learn('authorization', credential);
}

/** The bearer, refused (USAGE) beside a configured Authorization header: only one of them can be sent. */
export function bearerBesides(bearer: BearerSource | undefined, headers: ReadonlyArray<readonly [string, string]>): BearerSource | undefined {
  if (bearer !== undefined && headers.some(([name]) => name === 'authorization')) {
    throw new McpctxError('USAGE', 'an Authorization header is configured and an OAuth login would be used too; remove one of them', {});
  }
  return bearer;
}

/** True when configured headers carry their own Authorization: the user's chosen credential, beside which no stored login is sent. */
export function hasAuthorizationHeader(headers: Readonly<Record<string, string>>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}
