// Remote servers that send the client elsewhere, and servers that break a bound of the harness:
// a redirect on the server's own origin is followed (method, body and headers kept), one to another
// origin is refused before anything is sent there (status redirect-refused), and an oversized event
// or too many pages are protocol-limit with the bound named. Loopback only: another port is another origin.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { measureServer, measurementJson, type MeasureOptions, type Measurement } from '../../src/measure/index.js';
import { HttpUpstream } from '../support/http-upstream.js';
import { startLegacySseToolsServer } from '../support/remote-servers.js';

const TEST_MS = 30_000;
const GENEROUS_MS = 15_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function later<T extends { close(): Promise<void> }>(server: T): T {
  cleanups.push(() => server.close());
  return server;
}

const TOOLS = { tools: [{ name: 'echo', description: 'Echoes its text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] };

/** Measures `url` sending `Authorization: Bearer <canary>` (from an env variable). */
function withCredential(url: string, canary: string, extra: Partial<MeasureOptions> = {}): Promise<Measurement> {
  return measureServer({
    name: 'remote',
    launch: { url, headers: { Authorization: 'REMOTE_TOKEN' } },
    env: { REMOTE_TOKEN: `Bearer ${canary}` },
    timeoutMs: GENEROUS_MS,
    runs: 1,
    ...extra,
  });
}

/** Any request to `origin` seen by `upstream` (every request names the host it was sent to). */
function originOf(url: string): string {
  return new URL(url).origin;
}

describe('redirects on the server\'s own origin are followed', () => {
  it('a 308 from /old to /mcp (streamable HTTP): measured; every POST re-sent to /mcp with the same bytes and the same headers', async () => {
    const canary = `canary-${randomUUID()}`;
    const upstream = later(
      await HttpUpstream.start({
        handlers: { 'tools/list': () => TOOLS },
        intercept: (request, response) => {
          if (!(request.url ?? '').startsWith('/old')) return false;
          response.writeHead(308, { location: '/mcp' }).end();
          return true;
        },
      }),
    );
    const url = `${originOf(upstream.url)}/old`;
    const m = await withCredential(url, canary);
    expect(m.status, m.note).toBe('measured');
    expect(m.toolCount).toBe(1);
    expect(m.launch).toEqual({ url, headerNames: ['Authorization'], envNames: ['REMOTE_TOKEN'] });

    const posts = upstream.requestsOf('POST');
    const redirected = posts.filter((request) => request.path === '/old');
    expect(redirected.length).toBeGreaterThanOrEqual(3); // initialize, initialized, tools/list
    for (const [index, request] of posts.entries()) {
      expect(request.headers.authorization).toBe(`Bearer ${canary}`);
      // Each POST to /old is followed at once by the same bytes POSTed to /mcp.
      if (request.path === '/old') expect(posts[index + 1]).toMatchObject({ path: '/mcp', text: request.text });
    }
    expect(measurementJson(m)).not.toContain(canary);
  }, TEST_MS);

  it('a 307 of the HTTP+SSE stream and a 308 of its POSTs, on the same origin: measured', async () => {
    const legacy = later(
      await startLegacySseToolsServer({
        endpoint: (id) => `/old-messages?sessionId=${id}`,
        redirect: (path) => (path === '/old-sse' ? [307, '/sse'] : path.startsWith('/old-messages?') ? [308, path.replace('/old-messages', '/messages')] : undefined),
      }),
    );
    const url = `${originOf(legacy.url)}/old-sse`;
    const m = await measureServer({ name: 'legacy', launch: { url, transport: 'sse' }, timeoutMs: GENEROUS_MS, runs: 1 });
    expect(m.status, m.note).toBe('measured');
    expect(m.toolCount).toBe(3);
    expect(legacy.posts).toBeGreaterThanOrEqual(3);
  }, TEST_MS);
});

describe('the harness does not follow a server to another origin', () => {
  it('a 307 to another loopback port: redirect-refused naming both origins; the credential never reaches the other port', async () => {
    const canary = `canary-${randomUUID()}`;
    const elsewhere = later(await HttpUpstream.start({ handlers: { 'tools/list': () => TOOLS } }));
    const upstream = later(
      await HttpUpstream.start({
        intercept: (_request, response) => {
          response.writeHead(307, { location: elsewhere.url }).end();
          return true;
        },
      }),
    );
    const m = await withCredential(upstream.url, canary);
    expect(m.status, m.note).toBe('redirect-refused');
    expect(m.note).toContain(`to another origin (${originOf(elsewhere.url)})`);
    expect(m.note).toContain('HTTP 307');
    expect(m.note).toContain('only on the server\'s own origin');
    expect(m.attempts[0]?.error?.code).toBe('REDIRECT_REFUSED');
    expect(elsewhere.requests).toEqual([]);
    expect(upstream.requests.length).toBeGreaterThan(0);
    expect(measurementJson(m)).not.toContain(canary);
  }, TEST_MS);

  it('an HTTP+SSE endpoint event naming another loopback port: redirect-refused; nothing is POSTed there', async () => {
    const elsewhere = later(await HttpUpstream.start());
    const legacy = later(await startLegacySseToolsServer({ endpoint: (id) => `${originOf(elsewhere.url)}/messages?sessionId=${id}` }));
    const m = await measureServer({ name: 'legacy', launch: { url: legacy.url, transport: 'sse' }, timeoutMs: GENEROUS_MS, runs: 1 });
    expect(m.status, m.note).toBe('redirect-refused');
    expect(m.note).toContain(`names another origin (${originOf(elsewhere.url)})`);
    expect(elsewhere.requests).toEqual([]);
    expect(legacy.posts).toBe(0);
  }, TEST_MS);

  it('a redirect loop on the same origin stops after 5 redirects: redirect-refused naming the limit', async () => {
    const upstream = later(
      await HttpUpstream.start({
        intercept: (request, response) => {
          const hop = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('hop') ?? '0');
          response.writeHead(302, { location: `/mcp?hop=${hop + 1}` }).end();
          return true;
        },
      }),
    );
    const m = await measureServer({ name: 'loop', launch: { url: upstream.url, transport: 'streamable-http' }, timeoutMs: GENEROUS_MS, runs: 1 });
    expect(m.status, m.note).toBe('redirect-refused');
    expect(m.note).toContain('more than 5 times');
    expect(upstream.requests).toHaveLength(6); // the request and its 5 redirects
  }, TEST_MS);
});

describe('a server that breaks a bound of the harness is protocol-limit, the bound named', () => {
  it.each(['json', 'sse'] as const)('an answer (%s) over the frame cap: protocol-limit naming the limit in bytes', async (answer) => {
    const big = { tools: [{ name: 'big', description: 'x'.repeat(8_000), inputSchema: { type: 'object' } }] };
    const upstream = later(await HttpUpstream.start({ answer, handlers: { 'tools/list': () => big } }));
    const m = await measureServer({ name: 'big', launch: { url: upstream.url }, timeoutMs: GENEROUS_MS, runs: 1, transport: { maxFrameBytes: 4_096 } });
    expect(m.status, m.note).toBe('protocol-limit');
    expect(m.note).toContain('the limit is 4096 bytes');
    expect(m.note).toContain('FRAME_TOO_LARGE');
  }, TEST_MS);

  it('more than 100 pages of tools/list (the default bound): protocol-limit naming 100 pages', async () => {
    let page = 0;
    const upstream = later(await HttpUpstream.start({ handlers: { 'tools/list': () => ({ tools: [], nextCursor: `page-${(page += 1)}` }) } }));
    const m = await measureServer({ name: 'endless', launch: { url: upstream.url }, timeoutMs: GENEROUS_MS, runs: 1 });
    expect(m.status, m.note).toBe('protocol-limit');
    expect(m.note).toContain('the limit is 100 pages');
    expect(page).toBe(100);
  }, TEST_MS);
});
