// measureServer over HTTP, loopback only: the same SDK v2 server measured over stdio, streamable
// HTTP and the older HTTP+SSE gives the same bytes and tokens; the capture is the wire's JSON;
// walls, stalls, refusals and unreachable addresses end in the status that names them.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { measureServer, measurementJson, verifyMeasurement, type MeasureOptions, type Measurement } from '../../src/measure/index.js';
import { HttpReply, HttpUpstream, RawResult, stall } from '../support/http-upstream.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { startLegacySseToolsServer, startRawServer, startStreamableToolsServer } from '../support/remote-servers.js';

const TOOLS_SERVER = fileURLToPath(new URL('../servers/sdk-tools-server.mjs', import.meta.url));
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

function remote(url: string, extra: Partial<MeasureOptions> = {}): Promise<Measurement> {
  return measureServer({ name: 'remote', launch: { url }, timeoutMs: GENEROUS_MS, ...extra });
}

async function overStdio(): Promise<Measurement> {
  const m = await measureServer({ name: 'stdio', launch: { command: process.execPath, args: [TOOLS_SERVER], env: markedEnv() }, timeoutMs: GENEROUS_MS });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
  return m;
}

describe('the same SDK server over stdio and over HTTP', () => {
  it('measures to the same bytes, tokens and per-tool split over stdio, streamable HTTP (SSE and JSON answers) and HTTP+SSE', async () => {
    const stdio = await overStdio();
    expect(stdio.status).toBe('measured');
    expect(stdio.toolCount).toBe(3);

    for (const enableJsonResponse of [false, true]) {
      const server = later(await startStreamableToolsServer({ enableJsonResponse }));
      const m = await remote(server.url);
      expect(m.status, m.note).toBe('measured');
      expect(m.note).toBe('2 captures agree');
      expect(m.canonicalSha256).toBe(stdio.canonicalSha256);
      expect(m.totalTokens).toBe(stdio.totalTokens);
      expect(m.perTool).toEqual(stdio.perTool);
      expect(m.sessionStart).toEqual(stdio.sessionStart);
      expect(m.serverInstructions).toBe(stdio.serverInstructions);
      expect(m.launch).toEqual({ url: server.url, headerNames: [], envNames: [] });
      expect(m.isolation.mode).toBe('minimal-env');
      // Each capture is its own session, ended with a DELETE.
      expect(server.closedSessions).toHaveLength(2);
      expect(verifyMeasurement(JSON.parse(measurementJson(m))).ok).toBe(true);
    }

    const legacy = later(await startLegacySseToolsServer());
    for (const transport of ['auto', 'sse'] as const) {
      const m = await remote(legacy.url, { launch: { url: legacy.url, transport } });
      expect(m.status, m.note).toBe('measured');
      expect(m.canonicalSha256).toBe(stdio.canonicalSha256);
      expect(m.totalTokens).toBe(stdio.totalTokens);
      expect(m.perTool).toEqual(stdio.perTool);
      expect(m.note).toContain(transport === 'auto' ? 'served over the older HTTP+SSE transport (the streamable HTTP POST was refused)' : 'served over the older HTTP+SSE transport');
      expect(verifyMeasurement(JSON.parse(measurementJson(m))).ok).toBe(true);
    }
  }, TEST_MS * 2);

  it('forced streamable HTTP does not fall back to HTTP+SSE: the refusal is the status', async () => {
    const legacy = later(await startLegacySseToolsServer());
    const m = await remote(legacy.url, { launch: { url: legacy.url, transport: 'streamable-http' }, runs: 1 });
    expect(m.status).toBe('startup-failure');
    expect(m.note).toContain('HTTP 405');
    expect(legacy.posts).toBe(0);
  }, TEST_MS);
});

describe('the capture is the JSON on the wire', () => {
  // Odd key order and keys no schema knows: a client that re-parsed through the SDK's schemas would reorder the first and drop the second.
  const TOOLS =
    '[{"inputSchema":{"properties":{"q":{"type":"string"}},"type":"object"},"name":"search","x-cost":{"tokens":12},"description":"Search things","annotations":{"zzz":1,"readOnlyHint":true}},{"name":"b","inputSchema":{"type":"object"},"_meta":{"vendor":"kept"}}]';

  it.each(['json', 'sse'] as const)('keeps unknown keys and key order (%s answers), and verify re-derives the figures', async (answer) => {
    const upstream = later(await HttpUpstream.start({ answer, handlers: { 'tools/list': () => new RawResult(`{"x-page":1,"tools":${TOOLS}}`) } }));
    const m = await remote(upstream.url);
    expect(m.status, m.note).toBe('measured');
    expect(JSON.stringify(m.rawToolsCapture)).toBe(TOOLS);
    expect(m.toolCount).toBe(2);
    const report = verifyMeasurement(JSON.parse(measurementJson(m)));
    expect(report.ok, report.note).toBe(true);
  }, TEST_MS);
});

describe('walls, stalls and refusals', () => {
  it('401 is remote-auth-wall, the WWW-Authenticate challenge quoted; the header value sent is nowhere in the record', async () => {
    const canary = `canary-${randomUUID()}`;
    const challenge = 'Bearer realm="mcp", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"';
    // The server echoes the token it refused: that echo must be scrubbed too.
    const upstream = later(await HttpUpstream.start({ auth: { expected: 'Bearer right', wwwAuthenticate: `${challenge}, error_description="${canary} is not valid"` } }));
    const m = await remote(upstream.url, { launch: { url: upstream.url, headers: { Authorization: 'WRONG_TOKEN' } }, env: { WRONG_TOKEN: `Bearer ${canary}` } });
    expect(m.status).toBe('remote-auth-wall');
    expect(m.note).toContain(`WWW-Authenticate: ${challenge}, error_description="[redacted:`);
    expect(m.note).toContain('HTTP 401');
    // The canary reached the server, so its absence below proves something.
    expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${canary}`);
    expect(measurementJson(m)).not.toContain(canary);
    expect(m.launch).toEqual({ url: upstream.url, headerNames: ['Authorization'], envNames: ['WRONG_TOKEN'] });
  }, TEST_MS);

  it('403 too; a header whose variable is unset is not sent, and the note says so', async () => {
    const upstream = later(await HttpUpstream.start({ auth: { expected: 'Bearer right', status: 403, wwwAuthenticate: 'Bearer error="insufficient_scope"' } }));
    const m = await remote(upstream.url, { launch: { url: upstream.url, headers: { Authorization: 'UNSET_TOKEN_VARIABLE' } }, env: {} });
    expect(m.status).toBe('remote-auth-wall');
    expect(m.note).toContain('HTTP 403');
    expect(m.note).toContain('header Authorization was not sent: the variable UNSET_TOKEN_VARIABLE is not set');
    expect(upstream.requests[0]?.headers.authorization).toBeUndefined();
  }, TEST_MS);

  it('a server that opens its SSE answer and never finishes it times out within the budget', async () => {
    const upstream = later(await HttpUpstream.start({ answer: 'sse', sseStyle: { comments: true }, handlers: { 'tools/list': () => stall() } }));
    const budget = 2_000;
    const started = performance.now();
    const m = await remote(upstream.url, { timeoutMs: budget, runs: 1 });
    const elapsed = performance.now() - started;
    expect(m.status).toBe('timeout');
    expect(m.note).toContain(`within the ${budget} ms budget`);
    expect(elapsed).toBeLessThan(budget * 3);
  }, TEST_MS);

  it('a server that sends headers and a comment, never an answer to initialize, times out too', async () => {
    const server = later(
      await startRawServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': still thinking\n\n');
      }),
    );
    const budget = 1_500;
    const started = performance.now();
    const m = await remote(server.url, { timeoutMs: budget, runs: 1 });
    expect(m.status).toBe('timeout');
    expect(m.note).toContain('initialize');
    expect(performance.now() - started).toBeLessThan(budget * 3);
  }, TEST_MS);

  it('an HTTP+SSE stream that never names its endpoint times out', async () => {
    const server = later(
      await startRawServer((request, response) => {
        if (request.method === 'POST') return void response.writeHead(405).end();
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': no endpoint for you\n\n');
      }),
    );
    const budget = 1_500;
    const started = performance.now();
    const m = await remote(server.url, { timeoutMs: budget, runs: 1 });
    expect(m.status).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(budget * 3);
  }, TEST_MS);

  it('404 to both transports is a startup-failure naming what was tried', async () => {
    const server = later(await startRawServer((_request, response) => void response.writeHead(404, { 'content-type': 'text/plain' }).end('nothing here')));
    const m = await remote(server.url, { runs: 1 });
    expect(m.status).toBe('startup-failure');
    expect(m.note).toContain('streamable HTTP (POST)');
    expect(m.note).toContain('HTTP+SSE (GET for an event stream)');
    expect(m.note).toContain('HTTP 404');
    expect(server.headers).toHaveLength(2);
  }, TEST_MS);

  it.each(['json', 'sse'] as const)('keeps the stdio bounds: body or event size (%s answers) and page count', async (answer) => {
    const big = { tools: [{ name: 'big', description: 'x'.repeat(8_000), inputSchema: { type: 'object' } }] };
    const upstream = later(await HttpUpstream.start({ answer, handlers: { 'tools/list': () => big } }));
    const m = await remote(upstream.url, { runs: 1, transport: { maxFrameBytes: 4_096 } });
    expect(m.status).toBe('protocol-limit');
    expect(m.note).toContain('FRAME_TOO_LARGE');
    expect(m.stderrTail).toBeUndefined();

    let page = 0;
    const endless = later(await HttpUpstream.start({ answer, handlers: { 'tools/list': () => ({ tools: [], nextCursor: `page-${(page += 1)}` }) } }));
    const paged = await remote(endless.url, { runs: 1, maxPages: 3 });
    expect(paged.status).toBe('protocol-limit');
    expect(paged.note).toContain('TOO_MANY_PAGES');
  }, TEST_MS);

  it('connection refused is a startup-failure with the cause', async () => {
    const server = await startRawServer(() => {});
    const url = server.url;
    await server.close();
    const m = await remote(url, { runs: 1 });
    expect(m.status).toBe('startup-failure');
    expect(m.note).toContain('ECONNREFUSED');
  }, TEST_MS);

  it('a JSON-RPC refusal naming the protocol version is protocol-mismatch', async () => {
    const refusal = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unsupported protocol version: 2025-11-25 (supported: 2024-11-05)' } });
    const upstream = later(await HttpUpstream.start({ handlers: { initialize: () => new HttpReply(400, refusal, { 'content-type': 'application/json' }) } }));
    const m = await remote(upstream.url, { runs: 1 });
    expect(m.status, m.note).toBe('protocol-mismatch');
    expect(m.note).toContain('Unsupported protocol version');
  }, TEST_MS);

  it('records the URL without credential-looking query values, and scrubs them from the note', async () => {
    const secret = `k${randomUUID().replace(/-/g, '')}`;
    const upstream = later(await HttpUpstream.start({ handlers: { 'tools/list': () => ({ tools: [] }) } }));
    const url = `${upstream.url}?api_key=${secret}&region=eu`;
    const m = await remote(url, { runs: 1 });
    expect(m.status, m.note).toBe('measured');
    expect(m.launch).toEqual({ url: `${upstream.url}?api_key=[redacted]&region=eu`, headerNames: [], envNames: [] });
    expect(measurementJson(m)).not.toContain(secret);
  }, TEST_MS);
});
