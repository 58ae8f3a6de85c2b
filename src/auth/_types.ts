/**
 * What is kept of one OAuth login to a remote MCP server. Secrets live in `tokens.accessToken`,
 * `tokens.refreshToken` and `client.clientSecret` only: everything else is safe to print.
 */

export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  /** epoch ms */
  expiresAt?: number;
  scope?: string;
}

export interface StoredClient {
  clientId: string;
  clientSecret?: string;
  /** for client_credentials: the NAME of the env var with the secret, never the value */
  clientSecretEnv?: string;
  registration: 'dynamic' | 'preregistered';
  tokenEndpointAuthMethod?: string;
  /** The loopback redirect URI a dynamic client was registered with: its port is tried first at the next login. */
  redirectUri?: string;
}

export interface StoredLogin {
  /** Key: the canonical resource URL of the MCP server (RFC 8707; no fragment, no user/password). */
  resource: string;
  issuer: string;
  grant: 'authorization_code' | 'client_credentials';
  client: StoredClient;
  endpoints: { authorizationServer: string; token: string; revocation?: string };
  /** The RFC 8707 resource indicator tokens are asked for: the protected resource metadata's `resource`, else `resource`. */
  resourceIndicator?: string;
  /** Scope granted (space separated), and a scope a 403 insufficient_scope asked for (step-up hint). */
  scope?: string;
  wantedScope?: string;
  tokens: StoredTokens;
  /** ISO time of the last save. */
  savedAt: string;
}
