// An HTTP transport with a bearer (a stored OAuth login): the value is sent, a 401 or 403 gets one
// retry with what the bearer renews, a refusal that stands names what to run, and no token ever
// appears in an error, even when the server echoes it.
import { afterEach, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { Deadline, HttpClientTransport, LegacySseClientTransport, RawClient, initialize, type BearerRefusal, type BearerSource } from '../../src/mcp/index.js';
import { HttpUpstream, type HttpUpstreamOptions } from '../support/http-upstream.js';
import { startLegacySseToolsServer } from '../support/remote-servers.js';

const OLD = 'old-access-token-0c8e1d55aa';
const NEW = 'new-access-token-93b7f2c4de';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

class ScriptedBearer implements BearerSource {
  readonly refusals: BearerRefusal[] = [];
  constructor(
    private current: string | undefined,
    private readonly renewed: string | undefined,
  ) {}
  async authorization(): Promise<string | undefined> {
    return this.current === undefined ? undefined : `Bearer ${this.current}`;
  }
  async retryAfter(refusal: BearerRefusal): Promise<string | undefined> {
    this.refusals.push(refusal);
    if (this.renewed === undefined) return undefined;
    this.current = this.renewed;
    return `Bearer ${this.renewed}`;
  }
  advice(): string {
    return 'run: mcpctx auth login THE-URL';
  }
}

async function upstreamWith(options: HttpUpstreamOptions): Promise<HttpUpstream> {
  const upstream = await HttpUpstream.start({ ...options, handlers: { 'tools/list': () => ({ tools: [] }), ...options.handlers } });
  cleanups.push(() => upstream.close());
  return upstream;
}

async function initialized(url: string, bearer: BearerSource): Promise<RawClient> {
  const client = new RawClient(new HttpClientTransport({ url, bearer, listen: false }));
  await client.start();
  cleanups.push(() => client.close());
  await initialize(client, { protocolVersion: '2025-06-18', capabilities: {}, deadline: new Deadline(10_000, 'test') });
  return client;
}

async function refusal(promise: Promise<unknown>): Promise<McpctxError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(McpctxError);
  return error as McpctxError;
}

const CHALLENGE = 'Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"';

describe('HttpClientTransport with a bearer', () => {
  it('sends the bearer, and after a 401 retries once with the renewed token', async () => {
    const upstream = await upstreamWith({ auth: { expected: `Bearer ${NEW}`, wwwAuthenticate: CHALLENGE } });
    const bearer = new ScriptedBearer(OLD, NEW);
    const client = await initialized(upstream.url, bearer);
    await client.request('tools/list', {}, new Deadline(10_000, 'test'));
    const sent = upstream.requests.map((request) => request.headers.authorization);
    expect(sent[0]).toBe(`Bearer ${OLD}`);
    expect(sent.slice(1).every((value) => value === `Bearer ${NEW}`)).toBe(true);
    expect(bearer.refusals).toEqual([{ status: 401, wwwAuthenticate: CHALLENGE, sent: `Bearer ${OLD}` }]);
  });

  it('a refusal the bearer cannot mend is AUTH_REQUIRED naming the login command, tried once', async () => {
    const upstream = await upstreamWith({ auth: { expected: 'Bearer something-else', status: 403, wwwAuthenticate: 'Bearer error="insufficient_scope", scope="mcp:tools"' } });
    const bearer = new ScriptedBearer(OLD, undefined);
    const error = await refusal(initialized(upstream.url, bearer));
    expect(error.code).toBe('AUTH_REQUIRED');
    expect(error.message).toContain('HTTP 403');
    expect(error.message).toContain('insufficient_scope');
    expect(error.message).toContain('run: mcpctx auth login THE-URL');
    expect(upstream.requests).toHaveLength(1);
  });

  it('never puts the token in an error, even when the server echoes it in its answer', async () => {
    const upstream = await upstreamWith({
      intercept: (request, response) => {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`bad token: ${String(request.headers.authorization)} / ${NEW}`);
        return true;
      },
    });
    const error = await refusal(initialized(upstream.url, new ScriptedBearer(NEW, undefined)));
    expect(error.code).toBe('HTTP_STATUS');
    const everything = `${error.message} ${JSON.stringify(error.data)}`;
    expect(everything).toContain('bad token');
    expect(everything).not.toContain(NEW);
  });

  it('sends no Authorization when the bearer has no login, and names the login on a 401', async () => {
    const upstream = await upstreamWith({ auth: { expected: `Bearer ${NEW}`, wwwAuthenticate: CHALLENGE } });
    const error = await refusal(initialized(upstream.url, new ScriptedBearer(undefined, undefined)));
    expect(upstream.requests[0]?.headers.authorization).toBeUndefined();
    expect(error.message).toContain('run: mcpctx auth login THE-URL');
  });

  it('the older HTTP+SSE transport sends the bearer on its GET stream and on every POST', async () => {
    const server = await startLegacySseToolsServer();
    cleanups.push(() => server.close());
    const transport = new LegacySseClientTransport({ url: server.url, bearer: new ScriptedBearer(NEW, undefined) });
    const client = new RawClient(transport);
    await transport.connect(new Deadline(10_000, 'test'));
    await client.start();
    cleanups.push(() => client.close());
    await initialize(client, { protocolVersion: '2024-11-05', capabilities: {}, deadline: new Deadline(10_000, 'test') });
    await client.request('tools/list', {}, new Deadline(10_000, 'test'));
    expect(server.posts).toBeGreaterThanOrEqual(2);
    expect(server.headers.length).toBeGreaterThanOrEqual(3);
    expect(server.headers.every((headers) => headers.authorization === `Bearer ${NEW}`)).toBe(true);
  });

  it('refuses a bearer beside a configured Authorization header', () => {
    const bearer = new ScriptedBearer(OLD, undefined);
    expect(() => new HttpClientTransport({ url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer x' }, bearer })).toThrow(/Authorization header/);
    expect(() => new LegacySseClientTransport({ url: 'http://127.0.0.1:1/sse', headers: { authorization: 'Bearer x' }, bearer })).toThrow(/Authorization header/);
  });
});
