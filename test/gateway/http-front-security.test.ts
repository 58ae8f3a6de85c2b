import { afterEach, describe, expect, it } from 'vitest';
import { startHttpFront, type HttpFront, type HttpFrontOptions } from '../../src/gateway/index.js';
import { pollUntil } from '../support/processes.js';
import { echoRelay, type EchoRelay } from './_echo-relay.js';
import { hostAllowed, originAllowed } from '../../src/gateway/front/_http-checks.js';
import { initializeRequest, openSession, post, rawPost } from './_http-client.js';

const fronts: HttpFront[] = [];
let relay: EchoRelay;

async function start(options: Partial<HttpFrontOptions> = {}): Promise<HttpFront> {
  relay = echoRelay();
  const front = await startHttpFront({ host: '127.0.0.1', port: 0, onConnection: relay.onConnection, ...options });
  fronts.push(front);
  return front;
}

/** The front serving `url`, among those this file started. */
function front(url: string): HttpFront {
  const found = fronts.find((one) => one.url === url);
  if (found === undefined) throw new Error(`no front at ${url}`);
  return found;
}

afterEach(async () => {
  await Promise.all(fronts.splice(0).map((front) => front.close()));
});

describe('HTTP front: access', () => {
  it('answers 401 without or with a wrong bearer token, and serves the right one', async () => {
    const { url } = await start({ token: 'correct-horse-battery' });
    const none = await post(url, initializeRequest());
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post(url, initializeRequest(), { headers: { authorization: 'Bearer correct-horse-batterz' } })).status).toBe(401);
    expect((await post(url, initializeRequest(), { headers: { authorization: 'Bearer correct-horse' } })).status).toBe(401);
    const session = await openSession(url, { authorization: 'Bearer correct-horse-battery' });
    const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(get.status).toBe(401);
    const text = await get.text();
    expect(text).not.toContain('correct-horse-battery');
  });

  it('with a token per agent, each is accepted, each is its own principal, and one agent cannot use another\'s session (404)', async () => {
    const { url } = await start({ tokens: ['agent-one-token-123', 'agent-two-token-456'] });
    const one = { authorization: 'Bearer agent-one-token-123' };
    const two = { authorization: 'Bearer agent-two-token-456' };
    expect((await post(url, initializeRequest(), { headers: { authorization: 'Bearer agent-three' } })).status).toBe(401);
    const first = await openSession(url, one);
    const second = await openSession(url, two);
    const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
    expect((await post(url, ping, { session: first, headers: one })).status).toBe(200);
    const stolen = await post(url, ping, { session: first, headers: two });
    expect(stolen.status).toBe(404);
    expect((await post(url, ping, { session: second, headers: two })).status).toBe(200);
    const principals = relay.connections.map((connection) => connection.principal);
    expect(principals).toHaveLength(2);
    expect(principals[0]).toMatch(/^bearer:[0-9a-f]{32}$/);
    expect(principals[1]).toMatch(/^bearer:[0-9a-f]{32}$/);
    expect(principals[0]).not.toBe(principals[1]);
    expect(JSON.stringify(principals)).not.toContain('agent-one-token');
  });

  it('refuses two token variables that hold the same token, and an empty one', async () => {
    const onConnection = (): void => {};
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, tokens: ['same-token-value', 'same-token-value'], onConnection })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('the same token') });
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, tokens: ['one-token-value', ''], onConnection })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('empty') });
  });

  it('on a loopback bind serves only loopback origins on its own port (and --allow-origin), 403 to any other', async () => {
    const { url, port } = await start();
    const status = async (origin: string): Promise<number> => (await post(url, initializeRequest(), { headers: { origin } })).status;
    expect(await status('http://evil.example')).toBe(403);
    expect(await status('null')).toBe(403);
    // A page of another local server (a dev server, another tool) is not this gateway.
    expect(await status('http://localhost:5173')).toBe(403);
    expect(await status(`http://evil.example:${port}`)).toBe(403);
    expect(await status(`http://localhost:${port}/path`)).toBe(403);
    expect(await status(`http://localhost:${port}`)).toBe(200);
    expect(await status(`http://127.0.0.1:${port}`)).toBe(200);
    expect(await status(`http://[::1]:${port}`)).toBe(200);
    const refused = await post(url, initializeRequest(), { headers: { origin: 'http://localhost:5173' } });
    expect(JSON.parse(await refused.text())).toMatchObject({ error: { message: expect.stringContaining('--allow-origin') } });

    const allowing = await start({ allowOrigins: ['http://localhost:5173'] });
    const allowed = async (origin: string): Promise<number> => (await post(allowing.url, initializeRequest(), { headers: { origin } })).status;
    expect(await allowed('http://localhost:5173')).toBe(200);
    expect(await allowed('http://localhost:5174')).toBe(403);
  });

  it('on a loopback bind answers 403 to a Host that does not name it on its port (DNS rebinding), unless --allow-host lists it', async () => {
    const { url, port } = await start();
    const status = async (host: string | undefined): Promise<number> =>
      (await rawPost(url, initializeRequest(), host === undefined ? { noHost: true } : { headers: { host } })).status;
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status('evil.example')).toBe(403);
    expect(await status(`127.0.0.1:${port + 1}`)).toBe(403);
    expect(await status(`localhost:${port}@evil.example`)).toBe(403);
    // Without Host at all, Node's HTTP/1.1 server answers 400 before the front sees the request.
    expect(await status(undefined)).toBe(400);
    expect(await status(`127.0.0.1:${port}`)).toBe(200);
    expect(await status(`LOCALHOST:${port}`)).toBe(200);
    expect(await status(`[::1]:${port}`)).toBe(200);
    const refused = await rawPost(url, initializeRequest(), { headers: { host: `evil.example:${port}` } });
    expect(JSON.parse(refused.text)).toMatchObject({ error: { message: expect.stringContaining('DNS rebinding') } });
    expect(front(url).sessions).toBe(3);

    const allowing = await start({ allowHosts: [`mcp.internal:${port}`, 'proxy.example'] });
    expect((await rawPost(allowing.url, initializeRequest(), { headers: { host: `mcp.internal:${port}` } })).status).toBe(200);
    expect((await rawPost(allowing.url, initializeRequest(), { headers: { host: 'proxy.example' } })).status).toBe(200);
    expect((await rawPost(allowing.url, initializeRequest(), { headers: { host: 'proxy.example:8080' } })).status).toBe(403);
  });

  it('refuses malformed --allow-host and --allow-origin values before listening', async () => {
    const onConnection = (): void => undefined;
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, allowHosts: ['http://x'], onConnection })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('--allow-host') });
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, allowOrigins: ['localhost:5173'], onConnection })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('--allow-origin') });
    await expect(startHttpFront({ host: '127.0.0.1', port: 0, allowOrigins: ['http://x/path'], onConnection })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('on a non-loopback bind checks Host and Origin only against --allow-host and --allow-origin, when given', () => {
    const remote = { loopbackBind: false, port: 8808, allowHosts: [], allowOrigins: [] };
    expect(hostAllowed('gateway.example:8808', remote)).toBe(true);
    expect(originAllowed('https://app.example', remote)).toBe(true);
    const listed = { ...remote, allowHosts: ['gateway.example:8808'], allowOrigins: ['https://app.example'] };
    expect(hostAllowed('gateway.example:8808', listed)).toBe(true);
    expect(hostAllowed('GATEWAY.example:8808', listed)).toBe(true);
    expect(hostAllowed('10.0.0.5:8808', listed)).toBe(false);
    expect(hostAllowed(undefined, listed)).toBe(false);
    expect(originAllowed('https://app.example', listed)).toBe(true);
    expect(originAllowed('https://app.example:443', listed)).toBe(true);
    expect(originAllowed('https://evil.example', listed)).toBe(false);
    expect(originAllowed('null', listed)).toBe(false);
    expect(originAllowed(undefined, listed)).toBe(true);
  });

  it('refuses a non-loopback host without allowRemote and a token, before listening', async () => {
    const onConnection = (): void => undefined;
    await expect(startHttpFront({ host: '0.0.0.0', port: 0, onConnection })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('--allow-remote') });
    await expect(startHttpFront({ host: '0.0.0.0', port: 0, allowRemote: true, onConnection })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('token') });
    await expect(startHttpFront({ host: '0.0.0.0', port: 0, token: 'secret-token', onConnection })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('names host:port when the port is in use', async () => {
    const first = await start();
    const failure = startHttpFront({ host: '127.0.0.1', port: first.port, onConnection: () => undefined });
    await expect(failure).rejects.toMatchObject({ code: 'LISTEN_FAILED', message: expect.stringContaining(`127.0.0.1:${first.port}: the port is in use`) });
  });
});

describe('HTTP front: bounds', () => {
  it('answers 413 to a body over maxBodyBytes', async () => {
    const { url } = await start({ maxBodyBytes: 1024 });
    const session = await openSession(url);
    const big = { jsonrpc: '2.0', id: 1, method: 'echo/raw', params: { text: 'x'.repeat(2000) } };
    expect((await post(url, big, { session })).status).toBe(413);
    // Chunked, so no Content-Length warns ahead: the count while reading must refuse it.
    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const chunked = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-session-id': session },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 256) controller.enqueue(bytes.subarray(at, at + 256));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(relay.received.some((message) => message.method === 'echo/raw')).toBe(false);
  });

  it('answers 400 with a JSON-RPC parse error to bad JSON, and 400 to a body nested too deep', async () => {
    const { url } = await start();
    const session = await openSession(url);
    const bad = await post(url, '{"jsonrpc":"2.0",', { session });
    expect(bad.status).toBe(400);
    expect(JSON.parse(await bad.text())).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const deep = `{"jsonrpc":"2.0","id":1,"method":"echo/raw","params":${'['.repeat(600)}${']'.repeat(600)}}`;
    const nested = await post(url, deep, { session });
    expect(nested.status).toBe(400);
    expect(JSON.parse(await nested.text())).toMatchObject({ error: { code: -32600, message: expect.stringContaining('deeper') } });
    expect((await post(url, { id: 1, method: 'ping' }, { session })).status).toBe(400);
  });

  it('drops the session of a client that stops reading its GET stream', async () => {
    const { url } = await start({ maxBufferedBytes: 256 * 1024 });
    const session = await openSession(url);
    const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(get.status).toBe(200); // and never read
    const connection = relay.connections[0];
    const chunk = 'y'.repeat(64 * 1024);
    let sent = 0;
    // Kernel and fetch buffers take a few MiB before the front sees any backpressure; bounded at 256 MiB.
    for (; sent < 4096 && relay.closeReasons.length === 0; sent += 1) {
      await connection?.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: chunk } }).catch(() => undefined);
      if (sent % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await pollUntil(() => relay.closeReasons.length > 0, 10_000)).toBe(true);
    expect(relay.closeReasons[0]).toMatch(/^dropped: the client left \d+ bytes unread/);
    await get.body?.cancel().catch(() => undefined);
  });
});
