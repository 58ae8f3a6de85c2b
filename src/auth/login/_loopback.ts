import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpctxError } from '../../errors/index.js';

/** What the authorization server sent back through the browser. */
export interface AuthorizationResponse {
  code: string;
  /** RFC 9207 `iss`, when the server sends it. */
  iss?: string;
}

export interface RedirectListener {
  /** `http://127.0.0.1:PORT/callback`: what the client is registered with and the browser is sent to. */
  redirectUri: string;
  /** Settles with the first redirect that reaches /callback: its code, or why it was refused. */
  response: Promise<AuthorizationResponse>;
  close(): Promise<void>;
}

const CALLBACK_PATH = '/callback';
const PAGE_DONE = '<!doctype html><meta charset="utf-8"><title>mcpctx</title><p>mcpctx: logged in. You can close this tab.</p>';
const pageRefused = (why: string): string =>
  `<!doctype html><meta charset="utf-8"><title>mcpctx</title><p>mcpctx: the login was not completed (${escapeHtml(why)}). Go back to the terminal.</p>`;

/**
 * Listens on 127.0.0.1 (RFC 8252 section 7.3: a loopback IP, not `localhost`) for the one redirect
 * that ends a login, on `preferredPort` when it is free, else on a port the system picks. A redirect
 * whose `state` is not the one sent is refused and ends the login (someone else sent it: a forged or
 * replayed redirect); so does an `error` from the authorization server. Only GET /callback counts.
 */
export async function listenForRedirect(expectedState: string, preferredPort?: number): Promise<RedirectListener> {
  let settle: { resolve: (value: AuthorizationResponse) => void; reject: (error: McpctxError) => void } | undefined;
  const response = new Promise<AuthorizationResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  response.catch(() => {}); // the caller awaits it; an early refusal must not count as unhandled
  let settled = false;
  const finish = (outcome: AuthorizationResponse | McpctxError): void => {
    if (settled) return;
    settled = true;
    if (outcome instanceof McpctxError) settle?.reject(outcome);
    else settle?.resolve(outcome);
  };
  const server = createServer((request, reply) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      reply.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const outcome = readRedirect(url.searchParams, expectedState);
    const refused = outcome instanceof McpctxError;
    reply.writeHead(refused ? 400 : 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    reply.end(refused ? pageRefused(outcome.message) : PAGE_DONE);
    finish(outcome);
  });
  const port = await listenOn(server, preferredPort);
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    response,
    close: async () => {
      finish(new McpctxError('AUTH_FLOW', 'the login was stopped before the browser came back', { step: 'redirect' }));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readRedirect(params: URLSearchParams, expectedState: string): AuthorizationResponse | McpctxError {
  const state = params.get('state');
  if (state === null || !sameText(state, expectedState)) {
    return new McpctxError('AUTH_FLOW', 'a redirect arrived with a state that is not the one this login sent; the login was stopped (it may have been forged)', {
      step: 'redirect',
    });
  }
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    const said = description === null ? '' : `: ${description.slice(0, 200)}`;
    return new McpctxError('AUTH_FLOW', `the authorization server refused the login (${error.slice(0, 64)}${said})`, {
      step: 'redirect',
      oauthError: error.slice(0, 64),
    });
  }
  const code = params.get('code');
  if (code === null || code === '') return new McpctxError('AUTH_FLOW', 'the redirect carried no authorization code', { step: 'redirect' });
  const iss = params.get('iss');
  return iss === null ? { code } : { code, iss };
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

async function listenOn(server: Server, preferredPort: number | undefined): Promise<number> {
  const attempt = (port: number): Promise<boolean> =>
    new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        server.off('listening', onListening);
        if (port !== 0 && (error.code === 'EADDRINUSE' || error.code === 'EACCES')) resolve(false);
        else reject(new McpctxError('AUTH_FLOW', `cannot listen on 127.0.0.1 for the login redirect (${error.code ?? error.message})`, { step: 'redirect' }));
      };
      const onListening = (): void => {
        server.off('error', onError);
        resolve(true);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, '127.0.0.1');
    });
  if (preferredPort === undefined || !(await attempt(preferredPort))) await attempt(0);
  return (server.address() as AddressInfo).port;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
