// How a redirect is followed on the server's own origin: 301/302/307/308 keep the method and the
// body bytes, 303 becomes a GET without a body, and anything leaving the origin (another port, the
// other scheme) or without a usable Location is REDIRECT_REFUSED before it is sent. Loopback only.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { Redactor } from '../../src/mcp/_redact.js';
import { MAX_REDIRECTS, fetchOnOrigin } from '../../src/mcp/_redirects.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  method: string;
  path: string;
  body: string;
}

/** A server that redirects /from with `status` to `location` (or what it makes of the Host header), and answers anything else 200, recording each request. */
async function redirecting(status: number, location: string | null | ((host: string) => string)): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      const to = typeof location === 'function' ? location(request.headers.host ?? '') : location;
      if (request.url === '/from') return void response.writeHead(status, to === null ? {} : { location: to }).end();
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  cleanups.push(() => {
    http.closeAllConnections();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${port}/from`, seen };
}

function send(url: string, method = 'POST', body: string | undefined = '{"jsonrpc":"2.0","id":1,"method":"ping"}'): Promise<Response> {
  return fetchOnOrigin(new URL(url), { method, headers: { authorization: 'Bearer x' }, body, signal: new AbortController().signal }, {
    endpoint: url,
    what: 'ping',
    redactor: new Redactor([]),
  });
}

async function refusal(promise: Promise<unknown>): Promise<McpctxError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof McpctxError)) throw new Error(`expected an McpctxError, got ${String(error)}`);
  return error;
}

describe('fetchOnOrigin', () => {
  it.each([301, 302, 307, 308])('%i keeps the method and re-sends the same body bytes', async (status) => {
    const server = await redirecting(status, '/to');
    const response = await send(server.url);
    expect(response.status).toBe(200);
    expect(server.seen).toEqual([
      { method: 'POST', path: '/from', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' },
      { method: 'POST', path: '/to', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' },
    ]);
  });

  it('303 fetches its Location with GET and no body', async () => {
    const server = await redirecting(303, '/to');
    expect((await send(server.url)).status).toBe(200);
    expect(server.seen.map(({ method, path, body }) => [method, path, body])).toEqual([
      ['POST', '/from', '{"jsonrpc":"2.0","id":1,"method":"ping"}'],
      ['GET', '/to', ''],
    ]);
  });

  it('refuses another scheme of the same host and port, and a redirect without a Location, sending nothing further', async () => {
    const server = await redirecting(308, null);
    const missing = await refusal(send(server.url));
    expect(missing.code).toBe('REDIRECT_REFUSED');
    expect(missing.message).toContain('without a Location');

    const https = await redirecting(307, (host) => `https://${host}/to`);
    const other = await refusal(send(https.url));
    expect(other.code).toBe('REDIRECT_REFUSED');
    expect(other.data).toMatchObject({ status: 307, from: new URL(https.url).origin, to: new URL(https.url).origin.replace('http:', 'https:') });
    expect(https.seen).toHaveLength(1);
  });

  it(`stops after ${MAX_REDIRECTS} redirects`, async () => {
    const server = await redirecting(307, '/from');
    const error = await refusal(send(server.url));
    expect(error.data).toMatchObject({ limit: MAX_REDIRECTS, hops: MAX_REDIRECTS + 1 });
    expect(server.seen).toHaveLength(MAX_REDIRECTS + 1);
  });
});
