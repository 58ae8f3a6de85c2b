import { randomBytes } from 'node:crypto';
import type { FetchLike, OAuthClientMetadata } from '@modelcontextprotocol/client';
import { McpctxError } from '../../errors/index.js';
import { openInBrowser } from './_browser.js';
import { discoverAuthorization, flowError, type Discovered } from './_discover.js';
import { boundedFetch } from './_http.js';
import { listenForRedirect } from './_loopback.js';
import { oauthSdk } from './_sdk.js';
import type { TokenStore } from '../store/index.js';
import { clientInformation, storedTokens } from './_tokens.js';
import type { StoredClient, StoredLogin } from '../_types.js';

export interface BrowserLoginOptions {
  /** The MCP server's URL. */
  url: string;
  store: TokenStore;
  /** Scope to ask for; default: what an earlier 403 asked for, the scope granted before, and what the server's challenge names. */
  scope?: string;
  /** A client registered beforehand (its redirect URI must allow http://127.0.0.1 on any port); default: dynamic registration. */
  clientId?: string;
  /** The NAME of the variable holding that client's secret, for a confidential client. */
  clientSecretEnv?: string;
  /** Start a browser (default true); false only prints the URL to open. */
  browser?: boolean;
  /** Opens the URL; default $BROWSER, else the platform's opener. */
  open?: (url: string) => Promise<boolean>;
  /** Lines for the user: the URL to open, what is awaited. */
  say?: (line: string) => void;
  /** How long to wait for the browser to come back; default 300,000 ms. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  fetchFn?: FetchLike;
  now?: () => number;
}

export interface LoginOutcome {
  login: StoredLogin;
  /** True when a client was registered for this login (RFC 7591), false when one was reused or given. */
  registered: boolean;
  /** False when no browser could be started (the URL was printed). */
  browserOpened: boolean;
}

const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

/**
 * Logs in to an MCP server with the authorization code grant: discovery, a client (reused, given,
 * or registered dynamically), PKCE S256 and a random state, the user's browser sent to the
 * authorization server, the redirect caught on 127.0.0.1, the code exchanged for tokens bound to
 * the server (RFC 8707 `resource`), and the login stored. Nothing is stored unless every step held.
 */
export async function loginWithBrowser(options: BrowserLoginOptions): Promise<LoginOutcome> {
  const env = options.env ?? process.env;
  const fetchFn = options.fetchFn ?? boundedFetch();
  const now = options.now ?? Date.now;
  const say = options.say ?? (() => {});
  const { computeScopeUnion, exchangeAuthorization, startAuthorization } = await oauthSdk.load();
  const found = await discoverAuthorization(options.url, fetchFn);
  const previous = await options.store.get(found.key);
  const scope = options.scope ?? computeScopeUnion(previous?.wantedScope, previous?.scope, found.suggestedScope);
  const given: StoredClient | undefined =
    options.clientId === undefined
      ? undefined
      : { clientId: options.clientId, registration: 'preregistered', ...(options.clientSecretEnv === undefined ? {} : { clientSecretEnv: options.clientSecretEnv }) };
  const earlier = given ?? reusableClient(previous, found);
  const state = randomBytes(32).toString('base64url');
  const listener = await listenForRedirect(state, portOf(earlier?.redirectUri));
  try {
    // A dynamic client is bound to its redirect URI: reused only when its port could be had again.
    const reused = earlier !== undefined && (earlier.registration === 'preregistered' || earlier.redirectUri === listener.redirectUri) ? earlier : undefined;
    const client = reused ?? (await register(found, listener.redirectUri, fetchFn));
    const info = clientInformation({ client }, env);
    const { authorizationUrl, codeVerifier } = await startAuthorization(found.authorizationServerUrl, {
      metadata: found.metadata,
      clientInformation: info,
      redirectUrl: listener.redirectUri,
      state,
      resource: found.resourceIndicator,
      ...(scope === undefined ? {} : { scope }),
    }).catch((error: unknown) => {
      throw flowError('authorize', 'cannot start the authorization', error);
    });
    const browserOpened = options.browser === false ? false : await (options.open ?? ((url) => openInBrowser(url, env)))(authorizationUrl.href);
    say(
      browserOpened
        ? `A browser was opened to log in to ${found.key}. If it did not show the login page, open:\n  ${authorizationUrl.href}`
        : `Open this URL in a browser to log in to ${found.key}:\n  ${authorizationUrl.href}`,
    );
    say(`Waiting for the browser to come back to ${listener.redirectUri} ...`);
    const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
    const answer = await withinTime(listener.response, timeoutMs);
    let tokens;
    try {
      tokens = await exchangeAuthorization(found.authorizationServerUrl, {
        metadata: found.metadata,
        clientInformation: info,
        authorizationCode: answer.code,
        codeVerifier,
        redirectUri: listener.redirectUri,
        resource: found.resourceIndicator,
        fetchFn,
        ...(answer.iss === undefined ? {} : { iss: answer.iss }),
      });
    } catch (error) {
      throw flowError('token', 'the authorization server refused the code', error);
    }
    const login = loginRecord(found, 'authorization_code', client, storedTokens(tokens, now()), now(), scope);
    await options.store.put(login);
    return { login, registered: reused === undefined, browserOpened };
  } finally {
    await listener.close();
  }
}

/** The login record both grants store. */
export function loginRecord(
  found: Discovered,
  grant: StoredLogin['grant'],
  client: StoredClient,
  tokens: StoredLogin['tokens'],
  at: number,
  asked: string | undefined,
): StoredLogin {
  const scope = tokens.scope ?? asked;
  // OpenID discovery documents type it loosely; RFC 8414 names it.
  const revocation = (found.metadata as { revocation_endpoint?: unknown }).revocation_endpoint;
  return {
    resource: found.key,
    resourceIndicator: found.resourceIndicator,
    issuer: found.metadata.issuer,
    grant,
    client,
    endpoints: {
      authorizationServer: found.authorizationServerUrl,
      token: found.metadata.token_endpoint,
      ...(typeof revocation === 'string' ? { revocation } : {}),
    },
    ...(scope === undefined ? {} : { scope }),
    tokens,
    savedAt: new Date(at).toISOString(),
  };
}

/** The client of an earlier login with the same authorization server, when it used this grant. */
function reusableClient(previous: StoredLogin | undefined, found: Discovered): StoredClient | undefined {
  if (previous === undefined || previous.issuer !== found.metadata.issuer || previous.grant !== 'authorization_code') return undefined;
  return previous.client;
}

async function register(found: Discovered, redirectUri: string, fetchFn: FetchLike): Promise<StoredClient> {
  if (found.metadata.registration_endpoint === undefined) {
    throw new McpctxError(
      'AUTH_FLOW',
      `the authorization server ${found.metadata.issuer} offers no dynamic client registration; register a client with redirect URI http://127.0.0.1/callback (any port) and pass --client-id`,
      { step: 'registration' },
    );
  }
  const clientMetadata = {
    client_name: 'mcpctx',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    // A CLI on the user's machine: a native client, whose loopback redirect may use any port (RFC 8252).
    application_type: 'native',
  } as OAuthClientMetadata;
  const { registerClient } = await oauthSdk.load();
  try {
    // No scope in the registration: servers that check it against their own list refuse what they do not list, and the scope is asked for at each authorization anyway.
    const registered = await registerClient(found.authorizationServerUrl, { metadata: found.metadata, clientMetadata, fetchFn });
    return {
      clientId: registered.client_id,
      registration: 'dynamic',
      redirectUri,
      ...(registered.client_secret === undefined ? {} : { clientSecret: registered.client_secret }),
      ...(registered.token_endpoint_auth_method === undefined ? {} : { tokenEndpointAuthMethod: registered.token_endpoint_auth_method }),
    };
  } catch (error) {
    throw flowError('registration', `the authorization server ${found.metadata.issuer} refused to register mcpctx as a client`, error);
  }
}

function portOf(redirectUri: string | undefined): number | undefined {
  if (redirectUri === undefined) return undefined;
  const port = Number(new URL(redirectUri).port);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

function withinTime<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new McpctxError('AUTH_FLOW', `the browser did not come back within ${Math.round(timeoutMs / 1000)} s; run the login again`, { step: 'redirect' })),
      timeoutMs,
    );
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
