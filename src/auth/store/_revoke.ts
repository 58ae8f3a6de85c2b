/**
 * Token revocation (RFC 7009): one POST of `token` and `token_type_hint` as a form to the
 * authorization server's revocation endpoint, the client authenticated as its login was
 * (client_secret_basic with a secret, stored or named by env variable; client_secret_post when the
 * login registered so; else client_id in the body). Redirects are not followed (the token would go
 * elsewhere), plain http is refused but on loopback, and the caller's signal bounds the wait.
 * An outcome never carries the token, the secret or the server's body.
 */
import { ownValue } from '../../json/index.js';
import type { StoredLogin } from '../_types.js';

export type TokenHint = 'refresh_token' | 'access_token';

export interface RevokeOutcome {
  token: TokenHint;
  /** `revoked`: the server answered 200 (RFC 7009: also for a token it no longer knows). */
  outcome: 'revoked' | 'failed';
  /** Why it failed: the HTTP status and OAuth `error`, or the network fault. */
  reason?: string;
}

export async function revokeToken(login: StoredLogin, token: string, hint: TokenHint, options: { endpoint: string; env: NodeJS.ProcessEnv; signal: AbortSignal }): Promise<RevokeOutcome> {
  const fail = (reason: string): RevokeOutcome => ({ token: hint, outcome: 'failed', reason });
  let url: URL;
  try {
    url = new URL(options.endpoint);
  } catch {
    return fail('the revocation endpoint is not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) return fail(`the revocation endpoint is not https (${url.origin}); the token was not sent`);
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const secret = clientSecret(login, options.env);
  if (secret !== undefined && login.client.tokenEndpointAuthMethod === 'client_secret_post') {
    body.set('client_id', login.client.clientId);
    body.set('client_secret', secret);
  } else if (secret !== undefined) {
    // RFC 6749 2.3.1: id and secret are form-encoded before they are joined and base64-encoded.
    headers.authorization = `Basic ${Buffer.from(`${formEncode(login.client.clientId)}:${formEncode(secret)}`).toString('base64')}`;
  } else {
    body.set('client_id', login.client.clientId);
  }
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: options.signal });
  } catch (error) {
    return fail(options.signal.aborted ? 'the revocation endpoint did not answer in time' : `the revocation endpoint could not be reached (${networkReason(error)})`);
  }
  if (response.status === 200) {
    await response.body?.cancel().catch(() => {});
    return { token: hint, outcome: 'revoked' };
  }
  const error = await oauthError(response);
  return fail(`the revocation endpoint answered HTTP ${response.status}${error === undefined ? '' : ` (${error})`}`);
}

/** The client secret the login authenticates with: stored, or the value of the variable it names; undefined for a public client or an unset variable. */
function clientSecret(login: StoredLogin, env: NodeJS.ProcessEnv): string | undefined {
  if (login.client.clientSecret !== undefined) return login.client.clientSecret;
  if (login.client.clientSecretEnv === undefined) return undefined;
  const value = ownValue(env, login.client.clientSecretEnv);
  return value === undefined || value === '' ? undefined : value;
}

function formEncode(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
}

/** The most of an error answer's body read for its `error` code; the rest is dropped unread. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

/** The OAuth `error` code of an error answer (RFC 6749 5.2), when it is a short token-like word; the rest of the body is not repeated. */
async function oauthError(response: Response): Promise<string | undefined> {
  try {
    const text = await boundedText(response, MAX_ERROR_BODY_BYTES);
    const value: unknown = JSON.parse(text);
    const error = typeof value === 'object' && value !== null ? ownValue(value as Record<string, unknown>, 'error') : undefined;
    return typeof error === 'string' && /^[\w.-]{1,64}$/.test(error) ? error : undefined;
  } catch {
    return undefined;
  }
}

/** The body's first `limit` bytes as text (the stream is cancelled past them), so a flood is not buffered. */
async function boundedText(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      chunks.push(read.value);
      size += read.value.byteLength;
      if (size >= limit) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}
