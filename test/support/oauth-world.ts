// A real OAuth world on loopback for the remote-server tests (issue 37): oidc-provider, a certified
// OpenID provider, as the authorization server, guarding two MCP resource servers (the SDK tools
// server of remote-servers.ts over streamable HTTP) that verify every bearer token the way a real
// one does: a JWT signed with a key from the provider's JWKS, its issuer, an audience equal to THIS
// server's URL, not expired, and the scopes the method needs (403 insufficient_scope for a step-up).
//
// What a client meets here, as the MCP authorization spec describes it:
// - 401 `WWW-Authenticate: Bearer resource_metadata=".../.well-known/oauth-protected-resource/mcp",
//   scope="mcp:read"` (with error="invalid_token" when a token was sent and refused);
// - RFC 9728 metadata at that URL naming the issuer; OpenID discovery at the issuer (no RFC 8414
//   document: the SDK falls back to OIDC discovery, as it must with many real servers);
// - open dynamic client registration; PKCE S256 required; `resource` (RFC 8707) must be one of the
//   two MCP URLs, else invalid_target; the token's `aud` is that resource;
// - a refresh token for the code grant of clients registered with the refresh_token grant type,
//   rotated on every use (the old one is then refused); the client_credentials grant for the
//   pre-registered machine client (client_secret_basic; it must ask for a scope, e.g. mcp:read);
// - loopback redirect URIs on any port for clients registered with application_type "native"
//   (RFC 8252); a "web" client (oidc-provider's default) must use the exact registered URI;
// - the built-in login and consent pages (devInteractions): any login and password work.
// Everything listens on 127.0.0.1, port 0; close() stops it all.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
// @ts-expect-error -- oidc-provider ships no type declarations; the little used here is typed below
import { errors as oidcErrors, Provider } from 'oidc-provider';
import { startStreamableToolsServer, type GateReply, type StreamableServer } from './remote-servers.js';

export interface OAuthWorldOptions {
  /** Access token lifetime in seconds (default 300). */
  accessTokenTtlSeconds?: number;
  /** Scope the 401 challenge names and a token must carry for initialize (default 'mcp:read'). */
  baseScope?: string;
  /** When set, tools/list (and tools/call) need this scope too: else 403 insufficient_scope (step-up). */
  toolsScope?: string;
}

export interface OAuthWorld {
  /** http://127.0.0.1:PORT (the oidc-provider). */
  issuer: string;
  /** http://127.0.0.1:PORT2/mcp : resource server; a token's audience must equal this URL. */
  mcpUrl: string;
  /** A second MCP resource server (different port) with ITS OWN audience. */
  otherMcpUrl: string;
  /** Every Authorization header value the MCP servers received, in order (for canary checks). */
  bearerTokensSeen: string[];
  /**
   * Requests to the token endpoint by grant_type, granted or refused (so a refresh that was
   * refused still counts), and registrations accepted.
   */
  counts(): { authorizationCode: number; refreshToken: number; clientCredentials: number; registrations: number };
  /** The resource servers refuse (401 invalid_token, "expired") every access token issued before now. */
  expireAccessTokens(): void;
  /** Destroys every refresh token (the next refresh gets invalid_grant). */
  revokeRefreshTokens(): Promise<void>;
  /** Sets/clears the scope tools/list needs (step-up tests). */
  setToolsScope(scope: string | undefined): void;
  /** A pre-registered confidential client allowed the client_credentials grant for both resources. */
  machineClient: { clientId: string; clientSecret: string };
  /** Errors the authorization server answered 500 for; a sound run leaves it empty. */
  serverErrors: string[];
  close(): Promise<void>;
}

/** The little of oidc-provider's surface used here. */
interface OidcProvider {
  callback(): RequestListener;
  on(event: string, listener: (...args: never[]) => void): void;
}
interface OidcClient {
  grantTypeAllowed(grantType: string): boolean;
}
type GrantContext = { oidc?: { params?: { grant_type?: unknown } } };
const ProviderClass = Provider as new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;
const { InvalidTarget } = oidcErrors as { InvalidTarget: new (description?: string) => Error };

/** Scopes the resource servers know besides the configured ones. */
const KNOWN_SCOPES = ['mcp:read', 'mcp:tools'];
const SIGNING_ALG = 'RS256';
const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

type Payload = Record<string, unknown>;

/**
 * oidc-provider's storage, in memory, for this world only. Written here rather than using the
 * bundled one so revokeRefreshTokens() can find every refresh token.
 */
class WorldStore {
  private readonly entries = new Map<string, { model: string; payload: Payload; expiresAt: number }>();

  adapterFor(model: string): object {
    const key = (id: string): string => `${model}:${id}`;
    const live = (id: string): Payload | undefined => {
      const entry = this.entries.get(key(id));
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= Date.now()) {
        this.entries.delete(key(id));
        return undefined;
      }
      return entry.payload;
    };
    const findBy = (field: string, value: string): Payload | undefined => {
      for (const [id, entry] of this.entries) if (entry.model === model && entry.payload[field] === value) return live(id.slice(model.length + 1));
      return undefined;
    };
    return {
      upsert: async (id: string, payload: Payload, expiresIn?: number) => {
        const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
        this.entries.set(key(id), { model, payload, expiresAt });
      },
      find: async (id: string) => live(id),
      findByUid: async (uid: string) => findBy('uid', uid),
      findByUserCode: async (userCode: string) => findBy('userCode', userCode),
      consume: async (id: string) => {
        const payload = live(id);
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id: string) => void this.entries.delete(key(id)),
      revokeByGrantId: async (grantId: string) => {
        for (const [id, entry] of this.entries) if (entry.payload.grantId === grantId) this.entries.delete(id);
      },
    };
  }

  destroyAll(model: string): void {
    for (const [id, entry] of this.entries) if (entry.model === model) this.entries.delete(id);
  }
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function shut(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The JSON-RPC methods in a POST body (one message or a batch); none when it is not JSON. */
function methodsIn(body: Buffer): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return [];
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  return messages.flatMap((message) =>
    typeof message === 'object' && message !== null && Object.hasOwn(message, 'method') && typeof (message as { method: unknown }).method === 'string'
      ? [(message as { method: string }).method]
      : [],
  );
}

const TOOL_METHODS = new Set(['tools/list', 'tools/call']);

/** What the authorization server and the resource servers of one world share. */
interface WorldState {
  ttl: number;
  baseScope: string;
  toolsScope: string | undefined;
  /** The two MCP URLs: the only resources tokens are issued for. */
  resources: Set<string>;
  counts: ReturnType<OAuthWorld['counts']>;
  bearerTokensSeen: string[];
  serverErrors: string[];
  /** jti of every access token issued, and of those expireAccessTokens() has since refused. */
  issuedAccessTokens: Set<string>;
  refusedAccessTokens: Set<string>;
}

function scopesSupported(state: WorldState): string[] {
  return [...new Set([...KNOWN_SCOPES, state.baseScope, ...(state.toolsScope === undefined ? [] : [state.toolsScope])])];
}

/** oidc-provider's configuration for this world (see the file's head for what it makes). */
function providerConfiguration(state: WorldState, store: WorldStore, machineClient: OAuthWorld['machineClient']): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: SIGNING_ALG, use: 'sig' };
  return {
    adapter: (model: string) => store.adapterFor(model),
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    findAccount: async (_ctx: unknown, accountId: string) => ({ accountId, claims: async () => ({ sub: accountId }) }),
    clients: [
      {
        client_id: machineClient.clientId,
        client_secret: machineClient.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    responseTypes: ['code'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A token request without `resource` gets a token for the resource the grant was for.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
          if (!state.resources.has(indicator)) throw new InvalidTarget("resource is not one of this world's MCP servers");
          return {
            audience: indicator,
            scope: scopesSupported(state).join(' '),
            accessTokenTTL: state.ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: SIGNING_ALG } },
          };
        },
      },
    },
    issueRefreshToken: async (_ctx: unknown, client: OidcClient) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    // The browser's session ends with the test's browser; the refresh token must not.
    expiresWithSession: async () => false,
    // All set, so oidc-provider does not print a notice for each default it falls back to.
    ttl: { AccessToken: state.ttl, ClientCredentials: state.ttl, AuthorizationCode: 60, IdToken: 3600, RefreshToken: 86_400, Interaction: 600, Session: 86_400, Grant: 86_400 },
  };
}

/** Counts grants and registrations, notes every access token issued and every 500. */
function observe(provider: OidcProvider, state: WorldState): void {
  const countGrant = (ctx: GrantContext): void => {
    const grantType = ctx.oidc?.params?.grant_type;
    if (grantType === 'authorization_code') state.counts.authorizationCode += 1;
    else if (grantType === 'refresh_token') state.counts.refreshToken += 1;
    else if (grantType === 'client_credentials') state.counts.clientCredentials += 1;
  };
  provider.on('grant.success', countGrant);
  provider.on('grant.error', countGrant);
  provider.on('registration_create.success', () => void (state.counts.registrations += 1));
  provider.on('access_token.issued', (token: { jti: string }) => void state.issuedAccessTokens.add(token.jti));
  provider.on('client_credentials.issued', (token: { jti: string }) => void state.issuedAccessTokens.add(token.jti));
  provider.on('server_error', (_ctx: unknown, error: Error) => void state.serverErrors.push(error.stack ?? String(error)));
}

/** The 401/403 answer of RFC 6750 with the MCP spec's resource_metadata parameter. */
function refusal(status: 401 | 403, metadataUrl: string, scope: string, error?: string, description?: string): GateReply {
  const params = [
    ...(error === undefined ? [] : [`error="${error}"`]),
    ...(description === undefined ? [] : [`error_description="${description}"`]),
    `resource_metadata="${metadataUrl}"`,
    `scope="${scope}"`,
  ];
  return {
    status,
    headers: { 'www-authenticate': `Bearer ${params.join(', ')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ error: error ?? 'unauthorized', ...(description === undefined ? {} : { error_description: description }) }),
  };
}

/**
 * The authorize hook of one resource server (its URL read late: known once it listens): serves its
 * protected resource metadata and lets through only a request whose bearer token the issuer signed
 * for THIS resource, unexpired, with the scopes the method needs.
 */
function resourceGuard(state: WorldState, issuer: string, keys: ReturnType<typeof createLocalJWKSet>, resourceUrl: () => string) {
  return async (request: IncomingMessage, body: Buffer): Promise<GateReply | undefined> => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) state.bearerTokensSeen.push(authorization);
    const metadataUrl = `${new URL(resourceUrl()).origin}${METADATA_PATH}`;
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === METADATA_PATH) {
      const metadata = { resource: resourceUrl(), authorization_servers: [issuer], scopes_supported: scopesSupported(state), bearer_methods_supported: ['header'] };
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) };
    }
    if (path !== '/mcp') return undefined; // the transport answers 404
    const token = /^Bearer ([^\s]+)$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) return refusal(401, metadataUrl, state.baseScope);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, { issuer, audience: resourceUrl(), typ: 'at+jwt', algorithms: [SIGNING_ALG] }));
    } catch (error) {
      const expired = error instanceof joseErrors.JWTExpired;
      return refusal(401, metadataUrl, state.baseScope, 'invalid_token', expired ? 'The access token expired' : 'The access token is not valid for this resource');
    }
    if (typeof payload.jti !== 'string' || state.refusedAccessTokens.has(payload.jti)) return refusal(401, metadataUrl, state.baseScope, 'invalid_token', 'The access token expired');
    const granted = new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
    const needed = [state.baseScope];
    if (state.toolsScope !== undefined && methodsIn(body).some((method) => TOOL_METHODS.has(method))) needed.push(state.toolsScope);
    if (needed.some((scope) => !granted.has(scope))) return refusal(403, metadataUrl, needed.join(' '), 'insufficient_scope', 'The access token lacks a scope this request needs');
    return undefined;
  };
}

export async function startOAuthWorld(options: OAuthWorldOptions = {}): Promise<OAuthWorld> {
  const state: WorldState = {
    ttl: options.accessTokenTtlSeconds ?? 300,
    baseScope: options.baseScope ?? 'mcp:read',
    toolsScope: options.toolsScope,
    resources: new Set(),
    counts: { authorizationCode: 0, refreshToken: 0, clientCredentials: 0, registrations: 0 },
    bearerTokensSeen: [],
    serverErrors: [],
    issuedAccessTokens: new Set(),
    refusedAccessTokens: new Set(),
  };
  const machineClient = { clientId: 'mcpctx-test-machine', clientSecret: randomBytes(24).toString('base64url') };
  const store = new WorldStore();

  // The issuer must be known before the provider exists: listen first, hand requests over after.
  let authorizationServerHandler: RequestListener = (_request, response) => void response.writeHead(503).end();
  const authorizationServer = createServer((request, response) => authorizationServerHandler(request, response));
  const servers: StreamableServer[] = [];
  try {
    const issuer = `http://127.0.0.1:${await listen(authorizationServer)}`;
    const provider = new ProviderClass(issuer, providerConfiguration(state, store, machineClient));
    observe(provider, state);
    authorizationServerHandler = provider.callback();

    // The resource servers trust the keys the provider publishes, read once from its jwks_uri.
    const keys = createLocalJWKSet((await (await fetch(`${issuer}/jwks`)).json()) as JSONWebKeySet);
    let mcpUrl = '';
    let otherMcpUrl = '';
    servers.push(await startStreamableToolsServer({ authorize: resourceGuard(state, issuer, keys, () => mcpUrl) }));
    servers.push(await startStreamableToolsServer({ authorize: resourceGuard(state, issuer, keys, () => otherMcpUrl) }));
    mcpUrl = servers[0]?.url ?? '';
    otherMcpUrl = servers[1]?.url ?? '';
    state.resources.add(mcpUrl).add(otherMcpUrl);

    return {
      issuer,
      mcpUrl,
      otherMcpUrl,
      bearerTokensSeen: state.bearerTokensSeen,
      counts: () => ({ ...state.counts }),
      expireAccessTokens: () => {
        for (const jti of state.issuedAccessTokens) state.refusedAccessTokens.add(jti);
      },
      revokeRefreshTokens: async () => store.destroyAll('RefreshToken'),
      setToolsScope: (scope) => {
        state.toolsScope = scope;
      },
      machineClient,
      serverErrors: state.serverErrors,
      close: async () => {
        if (!authorizationServer.listening) return;
        for (const server of servers.splice(0)) await server.close();
        await shut(authorizationServer);
      },
    };
  } catch (error) {
    for (const server of servers) await server.close();
    await shut(authorizationServer);
    throw error;
  }
}
