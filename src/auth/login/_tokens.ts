import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import { McpctxError } from '../../errors/index.js';
import type { StoredLogin, StoredTokens } from '../_types.js';

/** A token answer as stored: the expiry as a time, only Bearer tokens (DPoP-bound ones need a key mcpctx does not keep). */
export function storedTokens(tokens: OAuthTokens, now: number, previous?: StoredTokens): StoredTokens {
  if (tokens.token_type.toLowerCase() !== 'bearer') {
    throw new McpctxError('AUTH_FLOW', `the authorization server issued a ${tokens.token_type.slice(0, 32)} token; mcpctx sends Bearer tokens only`, { step: 'token' });
  }
  const refreshToken = tokens.refresh_token ?? previous?.refreshToken;
  const scope = tokens.scope ?? previous?.scope;
  return {
    accessToken: tokens.access_token,
    tokenType: 'Bearer',
    ...(refreshToken === undefined ? {} : { refreshToken }),
    // A lifetime that is not a positive number says nothing usable: treated as none given, so a
    // server's 0 or -1 does not make every request renew the token.
    ...(typeof tokens.expires_in === 'number' && Number.isFinite(tokens.expires_in) && tokens.expires_in > 0 ? { expiresAt: now + tokens.expires_in * 1000 } : {}),
    ...(scope === undefined ? {} : { scope }),
  };
}

/**
 * The authorization server metadata a stored login needs to refresh: its token endpoint and the
 * one client authentication method it registered with, so no discovery runs on each refresh.
 */
export function storedMetadata(login: StoredLogin): AuthorizationServerMetadata {
  const method = login.client.tokenEndpointAuthMethod;
  return {
    issuer: login.issuer,
    authorization_endpoint: login.endpoints.token,
    token_endpoint: login.endpoints.token,
    response_types_supported: ['code'],
    ...(method === undefined ? {} : { token_endpoint_auth_methods_supported: [method] }),
  } as AuthorizationServerMetadata;
}

/** The client as the SDK's token requests take it; the secret read from its variable when it is named. */
export function clientInformation(login: Pick<StoredLogin, 'client'>, env: NodeJS.ProcessEnv): OAuthClientInformationMixed {
  const { client } = login;
  const secret = client.clientSecretEnv !== undefined ? env[client.clientSecretEnv] : client.clientSecret;
  if (client.clientSecretEnv !== undefined && (secret === undefined || secret === '')) {
    throw new McpctxError('AUTH_REQUIRED', `the client secret variable ${client.clientSecretEnv} is not set; set it to the secret of client ${client.clientId}`, {});
  }
  return {
    client_id: client.clientId,
    ...(secret === undefined ? {} : { client_secret: secret }),
    ...(client.tokenEndpointAuthMethod === undefined ? {} : { token_endpoint_auth_method: client.tokenEndpointAuthMethod }),
  };
}
