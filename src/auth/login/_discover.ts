import type { AuthorizationServerMetadata, FetchLike, OAuthServerInfo } from '@modelcontextprotocol/client';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { canonicalResource } from '../_paths.js';
import { originAndPath } from './_http.js';
import { oauthSdk } from './_sdk.js';

/** What a server says about how to get a token for it. */
export interface Discovered {
  /** The login's key: the server URL's origin and path. */
  key: string;
  /** The RFC 8707 resource indicator to ask tokens for. */
  resourceIndicator: string;
  authorizationServerUrl: string;
  metadata: AuthorizationServerMetadata;
  /** Scope the server's 401 challenge named, else what its resource metadata lists as supported. */
  suggestedScope?: string;
}

/** The initialize an MCP server receives first; sent without credentials only to read its challenge. */
const PROBE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpctx-auth-probe', version: '0' } },
});

/**
 * Finds the authorization server of the MCP server at `serverUrl`: an initialize without
 * credentials for its 401 challenge (RFC 9728 `resource_metadata`, `scope`), then the protected
 * resource metadata and the authorization server metadata (RFC 8414 or OpenID discovery) through
 * the SDK. Refuses a server that asks for no authorization, metadata whose `resource` is another
 * server's, and an authorization server without PKCE S256.
 */
export async function discoverAuthorization(serverUrl: string, fetchFn: FetchLike): Promise<Discovered> {
  const key = canonicalResource(serverUrl);
  const { discoverOAuthServerInfo, extractWWWAuthenticateParams } = await oauthSdk.load();
  const probe = await fetchFn(key, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: PROBE_BODY,
  });
  await probe.body?.cancel().catch(() => {});
  if (probe.status !== 401 && probe.status !== 403) {
    throw new McpctxError('AUTH_FLOW', `the MCP server at ${key} answered initialize with HTTP ${probe.status}, not 401: it asks for no OAuth login`, {
      step: 'discovery',
      url: key,
    });
  }
  const challenge = extractWWWAuthenticateParams(probe);
  let info: OAuthServerInfo;
  try {
    info = await discoverOAuthServerInfo(key, { fetchFn, ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}) });
  } catch (error) {
    throw flowError('discovery', `cannot find the authorization server of ${key}`, error);
  }
  const metadata = info.authorizationServerMetadata;
  if (metadata === undefined) {
    throw new McpctxError('AUTH_FLOW', `no authorization server metadata found at ${originAndPath(info.authorizationServerUrl)} (RFC 8414 or OpenID discovery) for ${key}`, {
      step: 'discovery',
      url: key,
    });
  }
  const published = info.resourceMetadata?.resource;
  if (published !== undefined && !resourceCovers(published, key)) {
    throw new McpctxError(
      'AUTH_FLOW',
      `the protected resource metadata of ${key} names another resource (${originAndPath(published)}); refusing to get a token for it here`,
      { step: 'discovery', url: key },
    );
  }
  const methods = metadata.code_challenge_methods_supported;
  if (methods === undefined || !methods.includes('S256')) {
    throw new McpctxError('AUTH_FLOW', `the authorization server ${metadata.issuer} does not list PKCE S256 in code_challenge_methods_supported; MCP clients must not log in without it`, {
      step: 'discovery',
      url: key,
    });
  }
  const supported = info.resourceMetadata?.scopes_supported;
  const suggestedScope = challenge.scope ?? (supported !== undefined && supported.length > 0 ? supported.join(' ') : undefined);
  return {
    key,
    resourceIndicator: published ?? key,
    authorizationServerUrl: info.authorizationServerUrl,
    metadata,
    ...(suggestedScope === undefined ? {} : { suggestedScope }),
  };
}

/** An SDK or network failure as AUTH_FLOW, naming the step and the OAuth error code when there is one. */
export function flowError(step: string, what: string, error: unknown): McpctxError {
  if (isMcpctxError(error)) return new McpctxError(error.code === 'AUTH_FLOW' ? 'AUTH_FLOW' : error.code, `${what}: ${error.message}`, { ...error.data, step });
  const code = oauthErrorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return new McpctxError('AUTH_FLOW', `${what}: ${shorten(message)}`, { step, ...(code === undefined ? {} : { oauthError: code }) });
}

/** The OAuth `error` code the SDK's OAuthError carries (`invalid_grant`, ...). */
export function oauthErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : undefined;
}

/** Authorization servers' error descriptions are theirs; a long one is cut so a message stays a line. */
function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

/**
 * True when a protected resource metadata document's `resource` covers `serverKey`: the same origin
 * and a path that is the server's own or a parent of it (RFC 9728 section 3.3 wants it to match the
 * URL the metadata was found for; a parent path is what servers publish for several endpoints).
 */
export function resourceCovers(resource: string, serverKey: string): boolean {
  let published: URL;
  let server: URL;
  try {
    published = new URL(resource);
    server = new URL(serverKey);
  } catch {
    return false;
  }
  if (published.origin !== server.origin || published.search !== '' || published.hash !== '') return false;
  const base = published.pathname.endsWith('/') ? published.pathname : `${published.pathname}/`;
  return server.pathname === published.pathname || server.pathname.startsWith(base);
}
