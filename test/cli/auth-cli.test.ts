// `mcpctx auth list` and `mcpctx auth logout` (issue 37), run in-process as a user's terminal sees
// them. A canary token sits in every login: it must never reach stdout or stderr. Logout revokes
// against a loopback revocation endpoint that records each form it gets. MCPCTX_AUTH_FILE points
// into a temp folder in every test (never the real home), and MCPCTX_AUTH_STORE=file keeps the
// OS keychain out of it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { logout, openTokenStore, type StoredLogin } from '../../src/auth/index.js';
import { runCliCaptured } from '../support/cli-run.js';

const CANARY = 'canary-token-51d0e2b7';
const dirs: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function authEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-auth-cli-'));
  dirs.push(dir);
  return { MCPCTX_AUTH_FILE: join(dir, 'auth.json'), MCPCTX_AUTH_STORE: 'file', ...extra };
}

function login(resource: string, changes: { expiresAt?: number; refresh?: boolean; client?: Partial<StoredLogin['client']>; revocation?: string } = {}): StoredLogin {
  return {
    resource,
    issuer: 'http://127.0.0.1:9/issuer',
    grant: 'authorization_code',
    client: { clientId: 'client id+1', registration: 'dynamic', ...changes.client },
    endpoints: { authorizationServer: 'http://127.0.0.1:9/issuer', token: 'http://127.0.0.1:9/token', ...(changes.revocation === undefined ? {} : { revocation: changes.revocation }) },
    scope: 'mcp:read mcp:write',
    tokens: {
      accessToken: `${CANARY}-access`,
      ...(changes.refresh === false ? {} : { refreshToken: `${CANARY}-refresh` }),
      tokenType: 'Bearer',
      ...(changes.expiresAt === undefined ? {} : { expiresAt: changes.expiresAt }),
      scope: 'mcp:read mcp:write',
    },
    savedAt: '2026-12-05T10:00:00.000Z',
  };
}

async function seed(env: NodeJS.ProcessEnv, logins: StoredLogin[]): Promise<void> {
  const store = await openTokenStore({ env, mode: 'file' });
  for (const entry of logins) await store.put(entry);
}

interface Received {
  form: Record<string, string>;
  authorization: string | undefined;
}

/** A revocation endpoint on loopback answering `status` to every POST, recording each form. */
async function revocationEndpoint(status: number): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ form: Object.fromEntries(new URLSearchParams(body)), authorization: request.headers.authorization });
      response.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '' : JSON.stringify({ error: 'temporarily_unavailable', error_description: `echo ${CANARY}` }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}/revoke`, received };
}

function expectNoCanary(run: { stdout: string; stderr: string }): void {
  expect(run.stdout).not.toContain(CANARY);
  expect(run.stderr).not.toContain(CANARY);
}

describe('mcpctx auth list', () => {
  it('shows each login (server, issuer, grant, scope, expiry, refresh token, store) and never a token', async () => {
    const env = authEnv();
    const now = Date.now();
    await seed(env, [login('https://live.example.com/mcp', { expiresAt: now + 90 * 60_000 }), login('https://old.example.com/mcp', { expiresAt: now - 60_000, refresh: false })]);
    const run = await runCliCaptured(['auth', 'list'], process.cwd(), env);
    expect(run.code, run.stderr).toBe(0);
    expectNoCanary(run);
    const lines = run.stdout.split('\n');
    const live = lines.find((line) => line.includes('https://live.example.com/mcp')) ?? '';
    const old = lines.find((line) => line.includes('https://old.example.com/mcp')) ?? '';
    expect(live).toMatch(/authorization_code +mcp:read mcp:write +in 1 h (29|30) min \(\d{4}-\d\d-\d\dT[\d:.]+Z\) +yes/);
    expect(old).toMatch(/expired \(\d{4}-.+Z\) +no/);
    expect(run.stdout).toContain('http://127.0.0.1:9/issuer');
    expect(run.stdout).toContain(`Kept in ${env.MCPCTX_AUTH_FILE}.`);
  });

  it('--json gives the same rows as data, without a token', async () => {
    const env = authEnv();
    await seed(env, [login('https://live.example.com/mcp', { expiresAt: Date.UTC(2099, 0, 1) })]);
    const run = await runCliCaptured(['auth', 'list', '--json'], process.cwd(), env);
    expect(run.code, run.stderr).toBe(0);
    expectNoCanary(run);
    expect(JSON.parse(run.stdout)).toEqual({
      store: { kind: 'file', file: env.MCPCTX_AUTH_FILE },
      logins: [
        {
          resource: 'https://live.example.com/mcp',
          issuer: 'http://127.0.0.1:9/issuer',
          grant: 'authorization_code',
          scope: 'mcp:read mcp:write',
          expiresAt: '2099-01-01T00:00:00.000Z',
          expired: false,
          refreshToken: true,
          savedAt: '2026-12-05T10:00:00.000Z',
        },
      ],
    });
  });

  it('with no login says how to log in', async () => {
    const run = await runCliCaptured(['auth', 'list'], process.cwd(), authEnv());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No logins. Log in with: mcpctx auth login URL');
  });
});

describe('mcpctx auth logout', () => {
  it('revokes the refresh token, then the access token (client_secret_basic with a stored secret), and forgets the login', async () => {
    const endpoint = await revocationEndpoint(200);
    const env = authEnv();
    await seed(env, [login('https://a.example.com/mcp', { revocation: endpoint.url, client: { clientSecret: `${CANARY}-secret` } }), login('https://b.example.com/mcp')]);
    // The fragment is not part of the resource a login is kept under.
    const run = await runCliCaptured(['auth', 'logout', 'https://a.example.com/mcp#section'], process.cwd(), env);
    expect(run.code, run.stderr).toBe(0);
    expectNoCanary(run);
    expect(run.stdout).toContain('Logged out of https://a.example.com/mcp.');
    expect(run.stdout).toMatch(/refresh token: revoked\n {2}access token: revoked/);
    expect(endpoint.received).toEqual([
      { form: { token: `${CANARY}-refresh`, token_type_hint: 'refresh_token' }, authorization: `Basic ${Buffer.from(`client+id%2B1:${CANARY}-secret`).toString('base64')}` },
      { form: { token: `${CANARY}-access`, token_type_hint: 'access_token' }, authorization: `Basic ${Buffer.from(`client+id%2B1:${CANARY}-secret`).toString('base64')}` },
    ]);
    const left = JSON.parse((await runCliCaptured(['auth', 'list', '--json'], process.cwd(), env)).stdout) as { logins: Array<{ resource: string }> };
    expect(left.logins.map((entry) => entry.resource)).toEqual(['https://b.example.com/mcp']);
  });

  it('sends client_id in the body for a public client; a refused revocation is reported and the login is removed all the same', async () => {
    const endpoint = await revocationEndpoint(503);
    const env = authEnv();
    await seed(env, [login('https://a.example.com/mcp', { revocation: endpoint.url })]);
    const run = await runCliCaptured(['auth', 'logout', 'https://a.example.com/mcp', '--json'], process.cwd(), env);
    expect(run.code, run.stderr).toBe(0);
    expectNoCanary(run);
    const result = JSON.parse(run.stdout) as { found: boolean; deleted: boolean; revocations: unknown[] };
    expect(result).toMatchObject({ found: true, deleted: true, revocationEndpoint: endpoint.url });
    expect(result.revocations).toEqual([
      { token: 'refresh_token', outcome: 'failed', reason: 'the revocation endpoint answered HTTP 503 (temporarily_unavailable)' },
      { token: 'access_token', outcome: 'failed', reason: 'the revocation endpoint answered HTTP 503 (temporarily_unavailable)' },
    ]);
    expect(endpoint.received.map((entry) => [entry.form.client_id, entry.authorization])).toEqual([
      ['client id+1', undefined],
      ['client id+1', undefined],
    ]);
    expect((await openTokenStore({ env, mode: 'file' }).then((store) => store.list())).length).toBe(0);
  });

  it('authenticates a client_credentials login with the secret from the variable it names', async () => {
    const endpoint = await revocationEndpoint(200);
    const env = authEnv({ M2M_SECRET: `${CANARY}-from-env` });
    await seed(env, [{ ...login('https://m2m.example.com/mcp', { revocation: endpoint.url, refresh: false, client: { clientSecretEnv: 'M2M_SECRET', registration: 'preregistered' } }), grant: 'client_credentials' }]);
    const run = await runCliCaptured(['auth', 'logout', 'https://m2m.example.com/mcp'], process.cwd(), env);
    expect(run.code, run.stderr).toBe(0);
    expectNoCanary(run);
    expect(endpoint.received).toEqual([{ form: { token: `${CANARY}-access`, token_type_hint: 'access_token' }, authorization: `Basic ${Buffer.from(`client+id%2B1:${CANARY}-from-env`).toString('base64')}` }]);
  });

  it('says a login without a revocation endpoint keeps its tokens valid until they expire', async () => {
    const env = authEnv();
    await seed(env, [login('https://a.example.com/mcp')]);
    const run = await runCliCaptured(['auth', 'logout', 'https://a.example.com/mcp'], process.cwd(), env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('offers no revocation endpoint');
  });

  it('exits 1 for a URL with no login, naming auth list; 2 for a URL with credentials, without repeating them', async () => {
    const env = authEnv();
    await seed(env, [login('https://a.example.com/mcp')]);
    const unknown = await runCliCaptured(['auth', 'logout', 'https://nobody.example.com/mcp'], process.cwd(), env);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe('mcpctx: no login for https://nobody.example.com/mcp; `mcpctx auth list` shows the logins\n');
    const credentials = await runCliCaptured(['auth', 'logout', 'https://user:hunter2@a.example.com/mcp'], process.cwd(), env);
    expect(credentials.code).toBe(2);
    expect(credentials.stderr).not.toContain('hunter2');
  });

  it('gives up on a revocation endpoint that never answers within its bound, and still forgets the login', async () => {
    const silent = createServer(() => {});
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const env = authEnv();
    await seed(env, [login('https://a.example.com/mcp', { revocation: `http://127.0.0.1:${address.port}/revoke` })]);
    const store = await openTokenStore({ env, mode: 'file' });
    const result = await logout(store, 'https://a.example.com/mcp', { env, revokeTimeoutMs: 300 });
    expect(result.revocations.map((entry) => entry.reason)).toEqual(['the revocation endpoint did not answer in time', 'the revocation endpoint did not answer in time']);
    expect(result.deleted).toBe(true);
    silent.closeAllConnections();
  });
});
