// What `auth login` refuses before any browser opens: a server that asks for no login, metadata
// naming another server's resource (a token obtained there would be for someone else), an
// authorization server without PKCE S256, and answers too big to read.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverAuthorization } from '../../src/auth/login/_discover.js';
import { boundedFetch } from '../../src/auth/login/_http.js';
import { storedTokens } from '../../src/auth/login/_tokens.js';

interface FakeOptions {
  mcpStatus?: number;
  /** The `resource` the protected resource metadata names; default the server's own URL. */
  resource?: (origin: string) => string;
  challengeMethods?: string[] | undefined;
  metadataPadding?: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** One origin playing an MCP server and its authorization server, as a small SaaS does. */
async function fake(options: FakeOptions): Promise<string> {
  const server = createServer((request, response) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const url = new URL(request.url ?? '/', origin);
    if (request.method === 'POST' && url.pathname === '/mcp') {
      const status = options.mcpStatus ?? 401;
      response.writeHead(status, status === 401 ? { 'www-authenticate': `Bearer resource_metadata="${origin}/prm", scope="read"` } : { 'content-type': 'application/json' });
      response.end(status === 401 ? '' : '{"jsonrpc":"2.0","id":0,"result":{}}');
      return;
    }
    if (url.pathname === '/prm') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ resource: (options.resource ?? ((o) => `${o}/mcp`))(origin), authorization_servers: [origin] }));
      return;
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          response_types_supported: ['code'],
          ...(options.challengeMethods === undefined ? {} : { code_challenge_methods_supported: options.challengeMethods }),
          padding: 'x'.repeat(options.metadataPadding ?? 0),
        }),
      );
      return;
    }
    response.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('discoverAuthorization', () => {
  it('finds the authorization server from the 401 challenge and the resource metadata, with the challenge scope', async () => {
    const url = await fake({ challengeMethods: ['S256'] });
    const found = await discoverAuthorization(url, boundedFetch());
    expect(found).toMatchObject({ key: url, resourceIndicator: url, suggestedScope: 'read' });
    expect(found.metadata.token_endpoint).toBe(url.replace('/mcp', '/token'));
  });

  it('accepts metadata naming a parent of the server URL as its resource', async () => {
    const url = await fake({ challengeMethods: ['S256'], resource: (origin) => `${origin}/` });
    expect((await discoverAuthorization(url, boundedFetch())).resourceIndicator).toBe(url.replace('/mcp', '/'));
  });

  it('refuses metadata that names another server as its resource', async () => {
    const url = await fake({ challengeMethods: ['S256'], resource: () => 'https://other.example/mcp' });
    await expect(discoverAuthorization(url, boundedFetch())).rejects.toMatchObject({ code: 'AUTH_FLOW', data: { step: 'discovery' } });
    await expect(discoverAuthorization(url, boundedFetch())).rejects.toThrow(/names another resource \(https:\/\/other\.example\/mcp\)/);
  });

  it('refuses an authorization server that does not list PKCE S256 (or lists none)', async () => {
    for (const methods of [['plain'], undefined]) {
      const url = await fake({ challengeMethods: methods });
      await expect(discoverAuthorization(url, boundedFetch())).rejects.toThrow(/does not list PKCE S256/);
    }
  });

  it('says a server that answers initialize without a 401 needs no login', async () => {
    const url = await fake({ mcpStatus: 200, challengeMethods: ['S256'] });
    await expect(discoverAuthorization(url, boundedFetch())).rejects.toThrow(/answered initialize with HTTP 200, not 401: it asks for no OAuth login/);
  });

  it('refuses to read an answer over the size bound', async () => {
    const url = await fake({ challengeMethods: ['S256'], metadataPadding: 2 * 1024 * 1024 });
    await expect(discoverAuthorization(url, boundedFetch())).rejects.toThrow(/more than 1048576 bytes/);
  });
});

describe('boundedFetch and the tokens it brings back', () => {
  it('ends a body that stalls after its headers at the deadline, naming the server', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"issuer":');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
    await expect(boundedFetch(300)(url)).rejects.toMatchObject({ code: 'AUTH_FLOW', message: expect.stringContaining('did not answer within 300 ms') });
  });

  it('a lifetime that is not a positive number is no expiry (no renewal on every request)', () => {
    for (const expires_in of [0, -1, Number.NaN]) {
      expect(storedTokens({ access_token: 'a', token_type: 'Bearer', expires_in }, 1_000).expiresAt).toBeUndefined();
    }
    expect(storedTokens({ access_token: 'a', token_type: 'Bearer', expires_in: 60 }, 1_000).expiresAt).toBe(61_000);
  });
});
