// The OAuth world the remote-server tests run mcpctx against proves it behaves like a real one,
// driven only by the MCP SDK's own client auth helpers (the ones the product uses) and a headless
// browser at the login and consent pages: discovery from the 401, registration, code + PKCE with
// a resource indicator, audience and scope checks at the MCP server, step-up, expiry and refresh,
// rotation and revocation, client credentials, and a close() that leaves nothing behind.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  ClientCredentialsProvider,
  discoverOAuthServerInfo,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  fetchToken,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  StreamableHTTPClientTransport,
  type AuthorizationServerMetadata,
  type OAuthClientInformationFull,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveInBrowser, writeBrowserCommand } from '../support/oauth-browser.js';
import { startOAuthWorld, type OAuthWorld } from '../support/oauth-world.js';
import { markedEnv, pollUntil, waitForNoMarkedProcesses } from '../support/processes.js';

/** A loopback redirect listener, as a native client runs one: records each query it gets. */
interface Callback {
  redirectUrl: string;
  queries: URLSearchParams[];
  server: Server;
}

async function startCallback(): Promise<Callback> {
  const queries: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    queries.push(new URL(request.url ?? '/', 'http://127.0.0.1').searchParams);
    response.writeHead(200, { 'content-type': 'text/html' }).end('<p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { redirectUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, queries, server };
}

async function stopCallback(callback: Callback | undefined): Promise<void> {
  if (!callback) return;
  callback.server.closeAllConnections();
  await new Promise<void>((resolve) => callback.server.close(() => resolve()));
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'oauth-world-test', version: '1.0.0' } } };
const TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** One JSON-RPC POST with an optional bearer token; the answer's status and challenge matter here. */
async function post(url: string, message: object, token?: string): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(message),
  });
  await response.arrayBuffer();
  return response;
}

/** The tool names an SDK client lists over streamable HTTP with the token. */
async function listToolsWith(url: string, token: string): Promise<string[]> {
  const client = new Client({ name: 'oauth-world-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** The error code of a fresh TCP connection to the URL's port ('ECONNREFUSED' once nothing listens). */
async function connectionError(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Runs the BROWSER script writeBrowserCommand writes (marked, so the leak check sees its chromium). */
async function runBrowserCommand(args: string[], options: { deny?: boolean } = {}): Promise<{ code: number | null; stderr: string }> {
  const home = await mkdtemp(join(tmpdir(), 'mcpctx-oauth-command-'));
  try {
    const command = await writeBrowserCommand(home, options);
    const child = spawn(command, args, { env: markedEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stderr };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

let world: OAuthWorld;
let issuer = '';
let metadata: AuthorizationServerMetadata | undefined;
let firstCallback: Callback;
let secondCallback: Callback | undefined;
let client: OAuthClientInformationFull;
let tokens: OAuthTokens;

/** A login for `scope` through the browser; resolves with the redirect's query and the verifier. */
async function login(callback: Callback, scope: string, state: string): Promise<{ query: URLSearchParams; codeVerifier: string }> {
  const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, { metadata, clientInformation: client, redirectUrl: callback.redirectUrl, scope, state, resource: world.mcpUrl });
  const seen = callback.queries.length;
  const { finalUrl } = await approveInBrowser(authorizationUrl.href);
  expect(finalUrl.startsWith(`${callback.redirectUrl}?`)).toBe(true);
  const query = callback.queries[seen];
  if (query === undefined) throw new Error('the redirect listener got no request');
  return { query, codeVerifier };
}

beforeAll(async () => {
  world = await startOAuthWorld({ toolsScope: 'mcp:tools' });
  firstCallback = await startCallback();
});

afterAll(async () => {
  await stopCallback(firstCallback);
  await stopCallback(secondCallback);
  await world?.close();
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

describe('the OAuth world, through the SDK client auth helpers', () => {
  it('answers 401 naming its resource metadata, which leads to the issuer and its metadata', async () => {
    const refused = await post(world.mcpUrl, INITIALIZE);
    expect(refused.status).toBe(401);
    const challenge = extractWWWAuthenticateParams(refused);
    expect(challenge.resourceMetadataUrl?.href).toBe(`${new URL(world.mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`);
    expect(challenge.scope).toBe('mcp:read');
    expect(challenge.error).toBeUndefined();

    const info = await discoverOAuthServerInfo(world.mcpUrl, challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {});
    expect(info.resourceMetadata).toMatchObject({ resource: world.mcpUrl, authorization_servers: [world.issuer], bearer_methods_supported: ['header'] });
    expect(info.resourceMetadata?.scopes_supported).toEqual(expect.arrayContaining(['mcp:read', 'mcp:tools']));
    expect(info.authorizationServerUrl).toBe(world.issuer);
    expect(info.authorizationServerMetadata).toMatchObject({ issuer: world.issuer, code_challenge_methods_supported: ['S256'] });
    expect(info.authorizationServerMetadata?.registration_endpoint).toBeDefined();
    expect(info.authorizationServerMetadata).toHaveProperty('revocation_endpoint');
    issuer = info.authorizationServerUrl;
    metadata = info.authorizationServerMetadata;

    // The other server names its own metadata, which names its own resource.
    const other = extractWWWAuthenticateParams(await post(world.otherMcpUrl, INITIALIZE));
    const otherInfo = await discoverOAuthServerInfo(world.otherMcpUrl, other.resourceMetadataUrl ? { resourceMetadataUrl: other.resourceMetadataUrl } : {});
    expect(otherInfo.resourceMetadata?.resource).toBe(world.otherMcpUrl);
  });

  it('registers a native client and refuses a resource that is not one of its MCP servers', async () => {
    client = await registerClient(issuer, {
      metadata,
      clientMetadata: {
        client_name: 'oauth-world-test',
        redirect_uris: [firstCallback.redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      },
    });
    expect(client.client_id).not.toBe('');
    expect(world.counts().registrations).toBe(1);

    const { authorizationUrl } = await startAuthorization(issuer, { metadata, clientInformation: client, redirectUrl: firstCallback.redirectUrl, scope: 'mcp:read', state: 'foreign', resource: 'http://127.0.0.1:9/mcp' });
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = new URL(answer.headers.get('location') ?? '', issuer);
    expect(`${location.origin}${location.pathname}`).toBe(firstCallback.redirectUrl);
    expect(location.searchParams.get('error')).toBe('invalid_target');

    // PKCE is required: the same request without a code challenge is refused.
    const withoutPkce = new URL(authorizationUrl);
    withoutPkce.searchParams.set('resource', world.mcpUrl);
    withoutPkce.searchParams.delete('code_challenge');
    withoutPkce.searchParams.delete('code_challenge_method');
    const refused = new URL((await fetch(withoutPkce, { redirect: 'manual' })).headers.get('location') ?? '', issuer);
    expect(refused.searchParams.get('error')).toBe('invalid_request');
    expect(refused.searchParams.get('error_description')).toContain('PKCE');
  });

  it('redeems the code only with its own PKCE verifier, for a token whose audience is the MCP server', async () => {
    const { query, codeVerifier } = await login(firstCallback, 'mcp:read offline_access', 'first-state');
    expect(query.get('state')).toBe('first-state');
    const code = query.get('code') ?? '';
    const exchange = { metadata, clientInformation: client, authorizationCode: code, iss: query.get('iss') ?? undefined, redirectUri: firstCallback.redirectUrl, resource: world.mcpUrl };

    await expect(exchangeAuthorization(issuer, { ...exchange, codeVerifier: `${codeVerifier.slice(0, -4)}AAAA` })).rejects.toMatchObject({ code: 'invalid_grant' });
    tokens = await exchangeAuthorization(issuer, { ...exchange, codeVerifier });
    expect(tokens.refresh_token).toBeDefined();
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: world.issuer, aud: world.mcpUrl, scope: 'mcp:read', client_id: client.client_id });
    expect(world.counts().authorizationCode).toBe(2);
  });

  it('lets the token in on its own server only, and asks for the tools scope on tools/list (403 step-up)', async () => {
    expect((await post(world.mcpUrl, INITIALIZE, tokens.access_token)).status).toBe(200);

    const elsewhere = await post(world.otherMcpUrl, INITIALIZE, tokens.access_token);
    expect(elsewhere.status).toBe(401);
    expect(extractWWWAuthenticateParams(elsewhere).error).toBe('invalid_token');

    const forged = await post(world.mcpUrl, INITIALIZE, `${tokens.access_token.slice(0, -6)}AAAAAA`);
    expect(forged.status).toBe(401);

    const stepUp = await post(world.mcpUrl, TOOLS_LIST, tokens.access_token);
    expect(stepUp.status).toBe(403);
    const challenge = extractWWWAuthenticateParams(stepUp);
    expect(challenge).toMatchObject({ error: 'insufficient_scope', scope: 'mcp:read mcp:tools' });
    expect(challenge.resourceMetadataUrl?.href).toBe(`${new URL(world.mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`);

    // Without a tools scope required, the same token lists the tools through an SDK client.
    world.setToolsScope(undefined);
    try {
      expect(await listToolsWith(world.mcpUrl, tokens.access_token)).toEqual(['search_issues', 'get_issue', 'echo']);
    } finally {
      world.setToolsScope('mcp:tools');
    }
  });

  it('steps up through a second login on another loopback port (RFC 8252: any port for a native client)', async () => {
    secondCallback = await startCallback();
    expect(secondCallback.redirectUrl).not.toBe(firstCallback.redirectUrl);
    const { query, codeVerifier } = await login(secondCallback, 'mcp:read mcp:tools', 'step-up');
    const wider = await exchangeAuthorization(issuer, {
      metadata,
      clientInformation: client,
      authorizationCode: query.get('code') ?? '',
      iss: query.get('iss') ?? undefined,
      codeVerifier,
      redirectUri: secondCallback.redirectUrl,
      resource: world.mcpUrl,
    });
    expect(decodeJwt(wider.access_token).scope).toBe('mcp:read mcp:tools');
    expect(await listToolsWith(world.mcpUrl, wider.access_token)).toEqual(['search_issues', 'get_issue', 'echo']);
  });

  it('refuses expired tokens, refreshes into a working one, and rotates the refresh token', async () => {
    world.expireAccessTokens();
    const expired = await post(world.mcpUrl, INITIALIZE, tokens.access_token);
    expect(expired.status).toBe(401);
    expect(extractWWWAuthenticateParams(expired)).toMatchObject({ error: 'invalid_token', errorDescription: expect.stringContaining('expired') });

    const before = world.counts().refreshToken;
    const oldRefreshToken = tokens.refresh_token ?? '';
    const refreshed = await refreshAuthorization(issuer, { metadata, clientInformation: client, refreshToken: oldRefreshToken, resource: world.mcpUrl });
    expect(world.counts().refreshToken).toBe(before + 1);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ aud: world.mcpUrl, scope: 'mcp:read' });
    expect((await post(world.mcpUrl, INITIALIZE, refreshed.access_token)).status).toBe(200);
    expect(refreshed.refresh_token).not.toBe(oldRefreshToken);
    tokens = refreshed;
  });

  it('refuses a refresh once every refresh token is revoked', async () => {
    await world.revokeRefreshTokens();
    const before = world.counts().refreshToken;
    await expect(refreshAuthorization(issuer, { metadata, clientInformation: client, refreshToken: tokens.refresh_token ?? '', resource: world.mcpUrl })).rejects.toMatchObject({
      code: 'invalid_grant',
    });
    expect(world.counts().refreshToken).toBe(before + 1);
  });

  it('grants the machine client a token for a resource by client credentials', async () => {
    const machine = new ClientCredentialsProvider({ ...world.machineClient, scope: 'mcp:read mcp:tools', expectedIssuer: world.issuer });
    const granted = await fetchToken(machine, issuer, { metadata, resource: world.mcpUrl });
    expect(decodeJwt(granted.access_token)).toMatchObject({ aud: world.mcpUrl, sub: world.machineClient.clientId });
    expect(await listToolsWith(world.mcpUrl, granted.access_token)).toEqual(['search_issues', 'get_issue', 'echo']);
    expect(world.counts().clientCredentials).toBe(1);
    await expect(fetchToken(machine, issuer, { metadata, resource: 'http://127.0.0.1:9/mcp' })).rejects.toMatchObject({ code: 'invalid_target' });
  });

  it('as a command (a BROWSER for CLI tests), sends a denied consent back as access_denied and exits 0', async () => {
    const { authorizationUrl } = await startAuthorization(issuer, { metadata, clientInformation: client, redirectUrl: firstCallback.redirectUrl, scope: 'mcp:read', state: 'denied', resource: world.mcpUrl });
    const seen = firstCallback.queries.length;
    const denied = await runBrowserCommand([authorizationUrl.href], { deny: true });
    expect(denied.code).toBe(0);
    expect(denied.stderr).not.toContain('denied'); // where it landed, never the query
    const query = firstCallback.queries[seen];
    expect(query?.get('error')).toBe('access_denied');
    expect(query?.get('state')).toBe('denied');
    expect(query?.get('code')).toBeNull();

    const nowhere = await runBrowserCommand(['http://127.0.0.1:9/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback']);
    expect(nowhere.code).toBe(1);
    expect((await runBrowserCommand([''])).code).toBe(2);
  });

  it('saw every bearer header the clients sent, and no server error', () => {
    expect(world.bearerTokensSeen).toContain(`Bearer ${tokens.access_token}`);
    expect(world.bearerTokensSeen.every((header) => header.startsWith('Bearer '))).toBe(true);
    expect(world.serverErrors).toEqual([]);
  });

  it('close() stops every server', async () => {
    const urls = [world.issuer, world.mcpUrl, world.otherMcpUrl];
    await world.close();
    for (const url of urls) expect(await connectionError(url)).toBe('ECONNREFUSED');
    await stopCallback(firstCallback);
    await stopCallback(secondCallback);
    // A closed server's handle goes a tick after its close callback: poll, bounded.
    expect(await pollUntil(() => !process.getActiveResourcesInfo().includes('TCPServerWrap'), 5000)).toBe(true);
  });
});
