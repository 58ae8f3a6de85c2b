import type { FetchLike, OAuthTokens } from '@modelcontextprotocol/client';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import type { BearerRefusal, BearerResolver, BearerSource } from '../../mcp/index.js';
import { clientCredentialsToken } from './_client-credentials.js';
import { flowError } from './_discover.js';
import { boundedFetch } from './_http.js';
import { canonicalResource } from '../_paths.js';
import { oauthSdk } from './_sdk.js';
import { openTokenStore, type TokenStore } from '../store/index.js';
import { clientInformation, storedMetadata, storedTokens } from './_tokens.js';
import type { StoredLogin } from '../_types.js';

export interface StoredBearerOptions {
  /** Where client secret variables are read; default process.env. Also where the store is found. */
  env?: NodeJS.ProcessEnv;
  /** The store; default `openTokenStore({ env, probe: false })`, opened on first use. */
  openStore?: () => Promise<TokenStore>;
  now?: () => number;
  fetchFn?: FetchLike;
  /** A token this close to its expiry is renewed before it is sent; default 60,000 ms. */
  refreshMarginMs?: number;
}

const DEFAULT_REFRESH_MARGIN_MS = 60_000;

/**
 * The resolver measure, sweep, audit and the gateway hand to their HTTP transports: a spec with
 * `auth: 'none'` gets nothing; any other gets the stored login of its URL when there is one
 * (looked up when the first request is sent, so a spec without a login costs one read of the store).
 */
export function bearerForRemote(options: StoredBearerOptions = {}): BearerResolver {
  let store: Promise<TokenStore> | undefined;
  const openStore = (): Promise<TokenStore> => {
    store ??= (options.openStore ?? (() => openTokenStore({ env: options.env, probe: false })))();
    return store;
  };
  return (remote) => {
    if (remote.auth === 'none') return undefined;
    let key: string;
    try {
      key = canonicalResource(remote.url);
    } catch {
      return undefined; // the spec's own check names a bad URL
    }
    return new StoredBearer(key, remote.auth === 'oauth', { ...options, openStore });
  };
}

/** One server's stored login as a bearer: renewed before expiry, on a 401, and (for a machine client) on a 403 naming a scope. */
class StoredBearer implements BearerSource {
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => number;
  private readonly fetchFn: FetchLike;
  private readonly marginMs: number;
  private readonly openStore: () => Promise<TokenStore>;
  private found: StoredLogin | undefined;
  private looked = false;
  private problem: string | undefined;
  private storeProblem: string | undefined;
  private wantedScope: string | undefined;

  constructor(
    private readonly key: string,
    private readonly declaredOAuth: boolean,
    options: StoredBearerOptions & { openStore: () => Promise<TokenStore> },
  ) {
    this.env = options.env ?? process.env;
    this.now = options.now ?? Date.now;
    this.fetchFn = options.fetchFn ?? boundedFetch();
    this.marginMs = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
    this.openStore = options.openStore;
  }

  async authorization(): Promise<string | undefined> {
    let store: TokenStore;
    let login: StoredLogin | undefined;
    try {
      store = await this.openStore();
      login = await store.get(this.key);
    } catch (error) {
      // An unreadable auth file must not stop servers that need no login: this one goes without.
      this.looked = true;
      this.storeProblem = error instanceof Error ? error.message : String(error);
      return undefined;
    }
    this.looked = true;
    this.found = login;
    if (login === undefined) return undefined;
    if (!this.expiresSoon(login)) return header(login);
    const renewed = await this.renew(store, login.tokens.accessToken, undefined);
    if (renewed !== undefined) return header(renewed);
    throw new McpctxError('AUTH_REQUIRED', `the stored login for ${this.key} has expired and could not be renewed; ${this.advice()}`, { status: 401, wwwAuthenticate: null });
  }

  async retryAfter(refusal: BearerRefusal): Promise<string | undefined> {
    const sent = refusal.sent === undefined ? undefined : /^\S+\s+(\S+)$/.exec(refusal.sent)?.[1];
    if (sent === undefined || this.found === undefined) return undefined;
    const store = await this.openStore();
    if (refusal.status === 401) {
      const renewed = await this.renew(store, sent, undefined);
      return renewed === undefined ? undefined : header(renewed);
    }
    const { computeScopeUnion } = await oauthSdk.load();
    const challenge = await challengeOf(refusal);
    if (challenge.error !== 'insufficient_scope') return undefined;
    const wanted = computeScopeUnion(this.found.scope, this.found.wantedScope, challenge.scope);
    this.wantedScope = wanted;
    if (this.found.grant === 'client_credentials') {
      // A machine client asks for the wider scope itself: no user is needed to consent.
      const renewed = await this.renew(store, sent, wanted);
      return renewed === undefined ? undefined : header(renewed);
    }
    // A person must consent to more: kept, so the next `auth login` asks for it.
    await store.update(this.key, async (current) => (current === undefined ? undefined : { ...current, wantedScope: computeScopeUnion(current.wantedScope, wanted) }));
    this.problem = `the server needs the scope "${wanted ?? ''}", which the login was not granted`;
    return undefined;
  }

  advice(): string {
    if (this.storeProblem !== undefined) return `the stored logins could not be read (${this.storeProblem}); once fixed, run: mcpctx auth login ${this.key}`;
    if (!this.looked || this.found === undefined) {
      return this.declaredOAuth
        ? `there is no login for this server; run: mcpctx auth login ${this.key}`
        : `check the credentials in its headers, or if it uses OAuth, run: mcpctx auth login ${this.key}`;
    }
    const why = this.problem ?? 'the server refused the stored login';
    return `${why}; run: ${loginCommand(this.found, this.wantedScope)}`;
  }

  private expiresSoon(login: StoredLogin): boolean {
    return login.tokens.expiresAt !== undefined && login.tokens.expiresAt - this.now() <= this.marginMs;
  }

  /**
   * A new token under the store's lock: when another process renewed the login meanwhile (the stored
   * token is no longer `seen`), that one is used, so two refreshes never spend one refresh token.
   * Undefined, with `problem` saying why, when the authorization server refused.
   */
  private async renew(store: TokenStore, seen: string, scope: string | undefined): Promise<StoredLogin | undefined> {
    let failed = false;
    const result = await store.update(this.key, async (current) => {
      if (current === undefined) return undefined;
      if (current.tokens.accessToken !== seen && !this.expiresSoon(current) && scope === undefined) return current;
      try {
        const tokens = await this.newTokens(current, scope);
        const at = this.now();
        const granted = tokens.scope ?? scope ?? current.scope;
        return { ...current, tokens: storedTokens(tokens, at, current.tokens), ...(granted === undefined ? {} : { scope: granted }), savedAt: new Date(at).toISOString() };
      } catch (error) {
        failed = true;
        this.problem = describeRefusal(error);
        return current;
      }
    });
    if (result !== undefined) this.found = result;
    return failed || result === undefined || result.tokens.accessToken === seen ? undefined : result;
  }

  private async newTokens(login: StoredLogin, scope: string | undefined): Promise<OAuthTokens> {
    const metadata = storedMetadata(login);
    if (login.grant === 'client_credentials') return clientCredentialsToken(login, metadata, scope ?? login.scope, this.env, this.fetchFn);
    const refreshToken = login.tokens.refreshToken;
    if (refreshToken === undefined) throw new McpctxError('AUTH_REQUIRED', 'the authorization server issued no refresh token with this login', {});
    const { refreshAuthorization } = await oauthSdk.load();
    try {
      return await refreshAuthorization(login.endpoints.authorizationServer, {
        metadata,
        clientInformation: clientInformation(login, this.env),
        refreshToken,
        fetchFn: this.fetchFn,
        ...(login.resourceIndicator === undefined ? {} : { resource: login.resourceIndicator }),
      });
    } catch (error) {
      throw flowError('refresh', 'the authorization server refused to renew the token', error);
    }
  }
}

function header(login: StoredLogin): string {
  return `Bearer ${login.tokens.accessToken}`;
}

async function challengeOf(refusal: BearerRefusal): Promise<{ scope?: string; error?: string }> {
  if (refusal.wwwAuthenticate === null) return {};
  const { extractWWWAuthenticateParams } = await oauthSdk.load();
  try {
    return extractWWWAuthenticateParams(new Response(null, { status: refusal.status, headers: { 'www-authenticate': refusal.wwwAuthenticate } }));
  } catch {
    return {};
  }
}

function describeRefusal(error: unknown): string {
  if (isMcpctxError(error)) {
    const code = error.data.oauthError;
    return typeof code === 'string' ? `the authorization server refused to renew the login (${code})` : error.message;
  }
  return 'the login could not be renewed';
}

/** The command that makes a new login like `login`, with the wider scope when one was asked for. */
export function loginCommand(login: Pick<StoredLogin, 'resource' | 'grant' | 'client'>, scope?: string): string {
  const parts = ['mcpctx auth login', login.resource];
  if (login.grant === 'client_credentials') {
    parts.push('--client-credentials', '--client-id', login.client.clientId);
    if (login.client.clientSecretEnv !== undefined) parts.push('--client-secret-env', login.client.clientSecretEnv);
  }
  if (scope !== undefined) parts.push('--scope', `"${scope}"`);
  return parts.join(' ');
}
