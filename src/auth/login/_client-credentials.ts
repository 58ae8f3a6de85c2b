import type { AuthorizationServerMetadata, FetchLike, OAuthTokens } from '@modelcontextprotocol/client';
import { McpctxError } from '../../errors/index.js';
import { discoverAuthorization, flowError } from './_discover.js';
import { boundedFetch } from './_http.js';
import { loginRecord } from './_login.js';
import { oauthSdk } from './_sdk.js';
import type { TokenStore } from '../store/index.js';
import { clientInformation, storedTokens } from './_tokens.js';
import type { StoredClient, StoredLogin } from '../_types.js';

export interface ClientCredentialsLoginOptions {
  url: string;
  store: TokenStore;
  clientId: string;
  /** The NAME of the environment variable that holds the client secret; the value is read, never stored. */
  clientSecretEnv: string;
  scope?: string;
  env?: NodeJS.ProcessEnv;
  fetchFn?: FetchLike;
  now?: () => number;
}

/**
 * Logs in as a machine (the client credentials grant, for sweeps in CI): discovery, then a token
 * for the server's resource. The login keeps the variable's name, so a new token is fetched the
 * same way when this one expires; the secret itself is never written.
 */
export async function loginWithClientCredentials(options: ClientCredentialsLoginOptions): Promise<StoredLogin> {
  const env = options.env ?? process.env;
  const fetchFn = options.fetchFn ?? boundedFetch();
  const now = options.now ?? Date.now;
  const found = await discoverAuthorization(options.url, fetchFn);
  const client: StoredClient = { clientId: options.clientId, clientSecretEnv: options.clientSecretEnv, registration: 'preregistered' };
  // Some servers grant a machine nothing unless it names a scope: the one the server's challenge names.
  const scope = options.scope ?? found.suggestedScope;
  const tokens = await clientCredentialsToken(
    { client, issuer: found.metadata.issuer, resourceIndicator: found.resourceIndicator, endpoints: { authorizationServer: found.authorizationServerUrl } },
    found.metadata,
    scope,
    env,
    fetchFn,
  );
  const login = loginRecord(found, 'client_credentials', client, storedTokens(tokens, now()), now(), scope);
  await options.store.put(login);
  return login;
}

/** One client credentials token request (RFC 6749 section 4.4) for the login's resource. */
export async function clientCredentialsToken(
  login: Pick<StoredLogin, 'client' | 'resourceIndicator' | 'issuer'> & { endpoints: Pick<StoredLogin['endpoints'], 'authorizationServer'> },
  metadata: AuthorizationServerMetadata,
  scope: string | undefined,
  env: NodeJS.ProcessEnv,
  fetchFn: FetchLike,
): Promise<OAuthTokens> {
  const info = clientInformation(login, env);
  if (info.client_secret === undefined) {
    throw new McpctxError('USAGE', 'the client credentials grant needs a client secret: name its variable with --client-secret-env', {});
  }
  const { ClientCredentialsProvider, fetchToken } = await oauthSdk.load();
  // The issuer named: the secret goes only to the authorization server this login found, whatever a server says later.
  const provider = new ClientCredentialsProvider({ clientId: info.client_id, clientSecret: info.client_secret, expectedIssuer: login.issuer, ...(scope === undefined ? {} : { scope }) });
  try {
    return await fetchToken(provider, login.endpoints.authorizationServer, {
      metadata,
      fetchFn,
      ...(login.resourceIndicator === undefined ? {} : { resource: login.resourceIndicator }),
      ...(scope === undefined ? {} : { scope }),
    });
  } catch (error) {
    throw flowError('token', `the authorization server refused client ${info.client_id}`, error);
  }
}
