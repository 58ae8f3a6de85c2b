// Sessions per client and in total: one client (one remote address) cannot take every session, a
// client's abandoned sessions (no stream, nothing in flight, silent) make room for its new ones,
// and no client can end a session that is in use or belongs to another client. Other clients are
// other loopback source addresses (127.0.0.2 reaches a front bound to 127.0.0.1).
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { startHttpFront } from '../../src/gateway/index.js';
import { pollUntil } from '../support/processes.js';
import { echoFront } from './_echo-front.js';
import { ACCEPT_BOTH, initializeRequest, openSession, post, rawPost } from './_http-client.js';

const http = echoFront();
const { start } = http;

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

/** An initialize from another loopback address: its status and error message. */
async function initializeFrom(url: string, localAddress: string): Promise<{ status: number; message: string | undefined }> {
  const answer = await rawPost(url, initializeRequest(), { localAddress });
  const parsed = JSON.parse(answer.text) as { error?: { message?: string } };
  return { status: answer.status, message: parsed.error?.message };
}

/** Posts initialize every 50 ms until one is served (its session id); undefined after 10 s. */
async function initializeWithin10s(url: string): Promise<string | undefined> {
  const until = performance.now() + 10_000;
  while (performance.now() < until) {
    const answer = await post(url, initializeRequest());
    await answer.text();
    if (answer.status === 200) return answer.headers.get('mcp-session-id') ?? undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

describe('HTTP front: sessions per client', () => {
  it('refuses a client past its own limit (503 naming it) while another client still opens sessions', async () => {
    const { url } = await start({ maxSessions: 10, maxSessionsPerClient: 2 });
    expect((await initializeFrom(url, '127.0.0.1')).status).toBe(200);
    expect((await initializeFrom(url, '127.0.0.1')).status).toBe(200);
    const third = await initializeFrom(url, '127.0.0.1');
    expect(third.status).toBe(503);
    expect(third.message).toContain('this client (127.0.0.1) holds its limit of 2 sessions');
    expect((await initializeFrom(url, '127.0.0.2')).status).toBe(200);
    expect(http.front?.sessions).toBe(3);
  });

  it('behind a trusted proxy, a client is the address the proxy names last in X-Forwarded-For; an untrusted sender\'s header is ignored', async () => {
    const { url } = await start({ maxSessions: 10, maxSessionsPerClient: 1, trustProxies: ['127.0.0.1'] });
    const via = (forwardedFor: string, localAddress = '127.0.0.1') => rawPost(url, initializeRequest(), { localAddress, headers: { 'x-forwarded-for': forwardedFor } });
    expect((await via('10.0.0.7')).status).toBe(200);
    // What the client claimed comes first; the proxy appends the address it saw.
    expect((await via('10.0.0.7, 10.0.0.8')).status).toBe(200);
    const again = await via('10.0.0.9, 10.0.0.7');
    expect(again.status).toBe(503);
    expect(again.text).toContain('this client (10.0.0.7) holds its limit of 1 sessions');
    // 127.0.0.2 is not the proxy: its header says nothing, it is one client.
    expect((await via('10.0.0.20', '127.0.0.2')).status).toBe(200);
    expect((await via('10.0.0.21', '127.0.0.2')).status).toBe(503);
  });

  it('refuses a --trust-proxy that is not an IP address', async () => {
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, trustProxies: ['haproxy.internal'], onConnection: () => {} })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('--trust-proxy takes the IP address') });
  });

  it('at the total limit, never ends another client’s session to make room', async () => {
    const { url } = await start({ maxSessions: 2, reclaimIdleMs: 0 });
    expect((await initializeFrom(url, '127.0.0.2')).status).toBe(200);
    expect((await initializeFrom(url, '127.0.0.2')).status).toBe(200);
    const refused = await initializeFrom(url, '127.0.0.1');
    expect(refused.status).toBe(503);
    expect(refused.message).toContain('the gateway holds its limit of 2 sessions');
    expect(http.relay.closeReasons).toEqual([]);
  });

  it('never ends a session with a GET stream open or a request in flight, however silent', async () => {
    const { url } = await start({ maxSessions: 2, reclaimIdleMs: 0 });
    const streaming = await openSession(url);
    const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': streaming } });
    expect(get.status).toBe(200);
    const waiting = await openSession(url);
    // 'ask' waits for the client's answer to a server request, so it stays in flight.
    const inFlight = post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } }, { session: waiting, accept: ACCEPT_BOTH });
    expect(await pollUntil(() => http.relay.received.some((message) => message.method === 'tools/call'), 10_000)).toBe(true);
    expect((await post(url, initializeRequest())).status).toBe(503);
    expect(http.relay.closeReasons).toEqual([]);
    await get.body?.cancel();
    await http.stop();
    await (await inFlight).text();
  });

  it('does not end a session used within the last minute (the default floor) to make room', async () => {
    const { url } = await start({ maxSessions: 1 });
    await openSession(url);
    expect((await post(url, initializeRequest())).status).toBe(503);
    expect(http.relay.closeReasons).toEqual([]);
  });

  it('a local process that opened every session and left them does not lock others out: its silent, stream-less sessions make room', async () => {
    const { url } = await start({ reclaimIdleMs: 200 });
    const abandoned: string[] = [];
    for (let index = 0; index < 64; index += 1) abandoned.push(await openSession(url));
    expect(await initializeWithin10s(url)).toBeDefined();
    expect(http.front?.sessions).toBe(64);
    expect(http.relay.closeReasons[0]).toMatch(/^ended to make room for a new session of the same client: no stream open and silent for \d+ ms/);
    // The oldest went first: the first session is gone, the last one is still served.
    expect((await post(url, ping(1), { session: abandoned[0] })).status).toBe(404);
    expect((await post(url, ping(2), { session: abandoned[63] })).status).toBe(200);
  });
});

describe('HTTP front: idle sessions', () => {
  it('keeps a session whose GET stream is open past the idle time, and ends it once the stream is gone and it stays silent', async () => {
    const { url } = await start({ sessionIdleMs: 200 });
    const session = await openSession(url);
    const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(get.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(http.relay.closeReasons).toEqual([]);
    expect((await post(url, ping(1), { session })).status).toBe(200);
    await get.body?.cancel();
    expect(await pollUntil(() => http.relay.closeReasons.length > 0, 10_000)).toBe(true);
    expect(http.relay.closeReasons[0]).toBe('idle for 200 ms with no stream open');
    expect((await post(url, ping(2), { session })).status).toBe(404);
  });

  it('refuses limits that are not positive integers before listening', async () => {
    const onConnection = (): void => undefined;
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, maxSessionsPerClient: 0, onConnection })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, sessionIdleMs: 1.5, onConnection })).rejects.toMatchObject({ code: 'USAGE' });
  });
});
