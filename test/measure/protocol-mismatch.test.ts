// A server that refuses by naming the protocol is protocol-mismatch, never a start failure: one with
// no initialize handler (-32601, the 2026-07-28 revision's servers) or one refusing the version. The
// note quotes the server's own data.supported as it sent it, bounded; over stdio and over HTTP alike.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { measureServer, type Measurement } from '../../src/measure/index.js';
import { HttpReply, HttpUpstream } from '../support/http-upstream.js';
import { SCRIPTED_SERVER, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const TEST_MS = 20_000;
const GENEROUS_MS = 15_000;

function overStdio(mode: string): Promise<Measurement> {
  return measureServer({
    name: mode,
    launch: { command: process.execPath, args: [SCRIPTED_SERVER, mode], env: markedEnv() },
    timeoutMs: GENEROUS_MS,
    transport: { exitGraceMs: 300, termGraceMs: 300 },
  });
}

const upstreams: HttpUpstream[] = [];
afterEach(async () => {
  for (const upstream of upstreams.splice(0)) await upstream.close();
});
afterAll(async () => {
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

/** An HTTP server whose answer to initialize is `error`, as a JSON-RPC error body of an HTTP 200 (as the text given). */
async function overHttp(errorJson: string): Promise<Measurement> {
  const upstream = await HttpUpstream.start({
    handlers: { initialize: () => new HttpReply(200, `{"jsonrpc":"2.0","id":1,"error":${errorJson}}`, { 'content-type': 'application/json' }) },
  });
  upstreams.push(upstream);
  return measureServer({ name: 'remote', launch: { url: upstream.url }, timeoutMs: GENEROUS_MS, runs: 1 });
}

describe('protocol refusals', () => {
  it('no initialize handler (-32601) is protocol-mismatch, one attempt, no number', async () => {
    const m = await overStdio('no-initialize');
    expect(m.status).toBe('protocol-mismatch');
    expect(m.note).toContain('no initialize handler');
    expect(m.note).toContain('server/discover');
    expect(m.note).not.toContain('data.supported');
    expect(m.totalTokens).toBeNull();
    // The first failure ends the measurement: nothing is tried again.
    expect(m.attempts).toHaveLength(1);
  }, TEST_MS);

  it('-32601 with data.supported quotes it verbatim', async () => {
    const m = await overStdio('discover-only');
    expect(m.status).toBe('protocol-mismatch');
    expect(m.note).toContain(`the server's data.supported: ["2026-07-28"]`);
    expect(m.note).not.toContain('call server/discover'); // the rest of data is not quoted
  }, TEST_MS);

  it('a version refusal with data.supported quotes it verbatim', async () => {
    const m = await overStdio('version-refusal');
    expect(m.status).toBe('protocol-mismatch');
    expect(m.note).toContain('Unsupported protocol version');
    expect(m.note).toContain(`the server's data.supported: ["2024-11-05"]`);
  }, TEST_MS);

  it('over HTTP: -32601 on initialize is protocol-mismatch too, with data.supported as sent (key order kept)', async () => {
    const m = await overHttp('{"code":-32601,"message":"Method not found","data":{"supported":[{"v":"2026-07-28","z":1,"a":2}]}}');
    expect(m.status, m.note).toBe('protocol-mismatch');
    expect(m.note).toContain(`the server's data.supported: [{"v":"2026-07-28","z":1,"a":2}]`);
  }, TEST_MS);

  it('quotes only an own data.supported, and a bounded part of a huge one', async () => {
    const inherited = await overHttp('{"code":-32601,"message":"Method not found","data":{"__proto__":{"supported":["not-its-own"]}}}');
    expect(inherited.status).toBe('protocol-mismatch');
    expect(inherited.note).not.toContain('not-its-own');
    expect(inherited.note).not.toContain('data.supported');

    const huge = JSON.stringify({ code: -32601, message: 'Method not found', data: { supported: Array.from({ length: 5_000 }, (_, i) => `v-${i}`) } });
    const bounded = await overHttp(huge);
    expect(bounded.status).toBe('protocol-mismatch');
    expect(bounded.note).toContain(`the server's data.supported: ["v-0","v-1"`);
    expect(bounded.note).not.toContain('v-4999');
    expect(bounded.note.length).toBeLessThan(600);
  }, TEST_MS);

  it('-32601 to a later request is not read as a protocol refusal', async () => {
    const upstream = await HttpUpstream.start({ handlers: {} });
    upstreams.push(upstream);
    const m = await measureServer({ name: 'remote', launch: { url: upstream.url }, timeoutMs: GENEROUS_MS, runs: 1 });
    expect(m.status).toBe('startup-failure');
    expect(m.note).toContain('tools/list');
  }, TEST_MS);
});
