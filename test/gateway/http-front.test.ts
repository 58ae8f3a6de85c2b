import { describe, expect, it } from 'vitest';
import { pollUntil } from '../support/processes.js';
import { echoFront } from './_echo-front.js';
import { ACCEPT_BOTH, SseReader, initializeRequest, openSession, post, sseData } from './_http-client.js';

const http = echoFront();
const { start } = http;

const call = (id: number, args: Record<string, unknown> = { q: 1 }, name = 'echo') => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('HTTP front: answers', () => {
  it('answers initialize as JSON with a visible-ASCII session id, and later requests as JSON', async () => {
    const { url } = await start();
    const init = await post(url, initializeRequest());
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('application/json');
    const session = init.headers.get('mcp-session-id') ?? '';
    expect(session).toMatch(/^[\x21-\x7e]{16,}$/);
    expect(JSON.parse(await init.text())).toMatchObject({ id: 0, result: { serverInfo: { name: 'echo' } } });

    const answer = await post(url, call(1, { b: 2, a: 1 }), { session });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\\"b\\":2,\\"a\\":1}"}]}}');
    expect(http.front?.sessions).toBe(1);
  });

  it('answers as SSE when accepted: the related notification first, then the response, then the stream ends', async () => {
    const { url } = await start();
    const session = await openSession(url);
    const answer = await post(url, call(5), { session, accept: ACCEPT_BOTH });
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const events = sseData(await answer.text()).map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(events.map((event) => event.method ?? `response ${String(event.id)}`)).toEqual(['notifications/progress', 'response 5']);
  });

  it('keeps key order and unknown keys intact both ways', async () => {
    const { url } = await start();
    const session = await openSession(url);
    const params = '{"z":1,"_meta":{"x-vendor":{"k":[3,1]}},"a":{"y":2,"b":null},"annotations":{"zz":true,"aa":"é"}}';
    const raw = `{"id":9,"params":${params},"method":"echo/raw","jsonrpc":"2.0","x-extra":"kept"}`;
    const answer = await post(url, raw, { session });
    const received = http.relay.received.find((message) => message.method === 'echo/raw');
    expect(JSON.stringify(received)).toBe(raw);
    expect(await answer.text()).toBe(`{"jsonrpc":"2.0","id":9,"result":${params}}`);
  });

  it('answers a batch with an array, and notifications or responses alone with 202', async () => {
    const { url } = await start();
    const session = await openSession(url);
    const batch = await post(url, [call(1), { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 'two', method: 'ping' }], { session });
    const answers = JSON.parse(await batch.text()) as Array<{ id: unknown }>;
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 'two']);

    const accepted = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { session });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
    expect(http.relay.received.filter((message) => message.method === 'notifications/initialized')).toHaveLength(2);
  });

  it('sends server requests on the GET stream and takes the client answer back by POST', async () => {
    const { url } = await start();
    const session = await openSession(url);
    const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(get.status).toBe(200);
    const stream = new SseReader(get);
    const pending = post(url, call(3, {}, 'ask'), { session, accept: ACCEPT_BOTH });
    const request = JSON.parse((await stream.next()) ?? 'null') as { id: string; method: string };
    expect(request.method).toBe('sampling/createMessage');

    const second = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(second.status).toBe(409);

    const reply = await post(url, { jsonrpc: '2.0', id: request.id, result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'hi' } } }, { session });
    expect(reply.status).toBe(202);
    const events = sseData(await (await pending).text());
    expect(JSON.parse(events.at(-1) ?? 'null')).toMatchObject({ id: 3, result: { content: [{ text: expect.stringContaining('"model":"m"') }] } });
    await stream.cancel();
  });

  it('queues unrelated messages until a GET stream opens', async () => {
    const { url } = await start();
    const session = await openSession(url);
    const connection = http.relay.connections[0];
    await connection?.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await connection?.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    const stream = new SseReader(await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } }));
    expect(JSON.parse((await stream.next()) ?? 'null')).toMatchObject({ method: 'notifications/tools/list_changed' });
    expect(JSON.parse((await stream.next()) ?? 'null')).toMatchObject({ method: 'notifications/message' });
    await stream.cancel();
  });
});

describe('HTTP front: sessions', () => {
  it('requires a session id (400), refuses an unknown one (404), ends a session on DELETE', async () => {
    const { url } = await start();
    expect((await post(url, call(1))).status).toBe(400);
    expect((await post(url, call(1), { session: 'no-such-session' })).status).toBe(404);
    const session = await openSession(url);
    const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(deleted.status).toBe(204);
    expect(http.relay.closeReasons).toEqual(['the client ended the session']);
    expect(http.front?.sessions).toBe(0);
    expect((await post(url, call(2), { session })).status).toBe(404);
    await expect(http.relay.connections[0]?.send({ jsonrpc: '2.0', method: 'notifications/x' })).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
  });

  it('refuses an unknown MCP-Protocol-Version with 400 and accepts a known one', async () => {
    const { url } = await start();
    const session = await openSession(url);
    expect((await post(url, call(1), { session, headers: { 'mcp-protocol-version': '2099-01-01' } })).status).toBe(400);
    expect((await post(url, call(2), { session, headers: { 'mcp-protocol-version': '2025-06-18' } })).status).toBe(200);
  });

  it('answers 503 past maxSessions', async () => {
    const { url } = await start({ maxSessions: 2 });
    await openSession(url);
    await openSession(url);
    const third = await post(url, initializeRequest());
    expect(third.status).toBe(503);
    expect(http.front?.sessions).toBe(2);
  });

  it('answers 429 past maxPendingRequests, and 400 to an id still in flight', async () => {
    const { url } = await start({ maxPendingRequests: 2 });
    const session = await openSession(url);
    // 'ask' calls wait for the client's answer to a server request, so they stay in flight.
    const first = post(url, call(1, {}, 'ask'), { session, accept: ACCEPT_BOTH });
    const second = post(url, call(2, {}, 'ask'), { session, accept: ACCEPT_BOTH });
    expect(await pollUntil(() => http.relay.received.filter((message) => message.method === 'tools/call').length === 2, 10_000)).toBe(true);
    expect((await post(url, call(3), { session })).status).toBe(429);
    expect((await post(url, call(1), { session })).status).toBe(400);
    await http.stop();
    await Promise.all([(await first).text(), (await second).text()]);
  });

  it('closes an idle session', async () => {
    const { url } = await start({ sessionIdleMs: 100 });
    const session = await openSession(url);
    expect(await pollUntil(() => http.relay.closeReasons.length > 0, 10_000)).toBe(true);
    expect(http.relay.closeReasons[0]).toMatch(/^idle for 100 ms/);
    expect((await post(url, call(1), { session })).status).toBe(404);
  });

  it('ends a session whose initialize is refused', async () => {
    const { url } = await start();
    const refused = await post(url, { ...initializeRequest(), params: { protocolVersion: 'refuse-me', capabilities: {} } });
    expect(JSON.parse(await refused.text())).toMatchObject({ error: { code: -32602 } });
    expect(http.front?.sessions).toBe(0);
    expect(http.relay.closeReasons).toEqual(['the initialize request was refused']);
  });

  it('close() returns with a GET stream open, and the stream ends', async () => {
    const { url } = await start();
    const session = await openSession(url);
    const stream = new SseReader(await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } }));
    const pending = post(url, call(1, {}, 'ask'), { session, accept: ACCEPT_BOTH });
    await stream.next(); // the server request: the POST is now waiting
    await http.stop();
    expect(await stream.next().catch(() => undefined)).toBeUndefined();
    const events = sseData(await (await pending).text());
    expect(JSON.parse(events.at(-1) ?? 'null')).toMatchObject({ id: 1, error: { message: expect.stringContaining('shutting down') } });
    expect(http.relay.closeReasons).toEqual(['the gateway is shutting down']);
  });
});
