// Remote servers behind OAuth, end to end against a real authorization server (oidc-provider on
// loopback: dynamic registration, PKCE, resource indicators) guarding MCP servers that check each
// token's audience and scope. A headless chromium completes the login and consent pages the way a
// person would. Every login, measurement and refusal goes through the mcpctx CLI as a user runs it,
// and the access and refresh tokens (the canaries) must never show up in anything it prints or
// writes, except the 0600 auth file that exists to hold them.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginWithBrowser, openTokenStore, type StoredLogin, type TokenStore } from '../../src/auth/index.js';
import { runCliCaptured, type CliRun } from '../support/cli-run.js';
import { approveInBrowser, writeBrowserCommand } from '../support/oauth-browser.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { startOAuthWorld, type OAuthWorld } from '../support/oauth-world.js';

let world: OAuthWorld;
let scratch: string;
let env: NodeJS.ProcessEnv;
let store: TokenStore;
/** Every line mcpctx printed in this file's tests, and every folder it wrote to. */
const printed: string[] = [];
const written: string[] = [];
/** Refresh tokens of logins ended in this file (they leave the store, not the canary list). */
const retired: string[] = [];

beforeAll(async () => {
  world = await startOAuthWorld();
  scratch = mkdtempSync(join(tmpdir(), 'mcpctx-oauth-'));
  // The browser a user's BROWSER names: here chromium, driven through the login and consent pages
  // (marked, so a browser that outlives its login is found below).
  const browser = await writeBrowserCommand(scratch);
  env = markedEnv({ PATH: process.env.PATH ?? '', HOME: scratch, BROWSER: browser, MCPCTX_AUTH_FILE: join(scratch, 'config', 'auth.json'), MCPCTX_AUTH_STORE: 'file' });
  store = await openTokenStore({ env });
}, 60_000);

afterAll(async () => {
  // The CLI does not wait for the browser it started: each ends once its redirect page loaded.
  expect(await waitForNoMarkedProcesses(30_000)).toEqual([]);
  await world?.close();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

async function cli(args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const run = await runCliCaptured(args, scratch, { ...env, ...extraEnv });
  printed.push(run.stdout, run.stderr);
  return run;
}

async function stored(url: string = world.mcpUrl): Promise<StoredLogin> {
  const login = await store.get(url);
  if (login === undefined) throw new Error(`no login stored for ${url}`);
  return login;
}

/** `measure --url URL --json`: status, note and tool count. */
async function measure(url: string = world.mcpUrl, extra: readonly string[] = []): Promise<{ status: string; note: string; tools: number; run: CliRun }> {
  const out = join(scratch, `measure-${written.length}`);
  written.push(out);
  const run = await cli(['measure', '--url', url, '--json', '--out', out, ...extra]);
  const record = JSON.parse(run.stdout) as { status: string; notes?: string[]; note?: string; toolCount?: number; perTool?: unknown[] };
  const note = [record.note ?? '', ...(record.notes ?? [])].join(' ');
  return { status: record.status, note, tools: record.perTool?.length ?? 0, run };
}

describe('mcpctx auth login against a real authorization server', () => {
  it('a first login goes through the browser (login and consent), registers a client, and stores tokens for the resource only', async () => {
    const before = world.counts();
    const run = await cli(['auth', 'login', world.mcpUrl, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ resource: world.mcpUrl, issuer: world.issuer, grant: 'authorization_code', clientRegistration: 'dynamic', refreshToken: true });
    expect(String(report.scope)).toContain('mcp:read');
    expect(run.stderr).toContain('A browser was opened');
    expect(world.counts().registrations).toBe(before.registrations + 1);
    expect(world.counts().authorizationCode).toBe(before.authorizationCode + 1);
    const login = await stored();
    expect(login.tokens.refreshToken).toBeDefined();
    // The token is bound to this server (RFC 8707): its audience is the MCP URL.
    const payload = JSON.parse(Buffer.from(login.tokens.accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { aud: unknown };
    expect(payload.aud).toBe(world.mcpUrl);
    // 0600 file in a 0700 folder.
    expect(statSync(env.MCPCTX_AUTH_FILE as string).mode & 0o777).toBe(0o600);
  }, 90_000);

  it('measure --url then uses the stored login: measured, with the token the world saw', async () => {
    const { status, tools, run } = await measure();
    expect(status, run.stdout).toBe('measured');
    expect(tools).toBeGreaterThan(0);
    expect(world.bearerTokensSeen).toContain(`Bearer ${(await stored()).tokens.accessToken}`);
  }, 60_000);

  it('auth list shows the login without any token', async () => {
    const run = await cli(['auth', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(world.mcpUrl);
    const json = await cli(['auth', 'list', '--json']);
    expect(json.code).toBe(0);
  });

  it('renews the token before it expires (the stored expiry has come) with the refresh token', async () => {
    const before = world.counts().refreshToken;
    const old = (await stored()).tokens.accessToken;
    await store.update(world.mcpUrl, async (login) => login && { ...login, tokens: { ...login.tokens, expiresAt: Date.now() - 1_000 } });
    const oldSent = world.bearerTokensSeen.filter((seen) => seen === `Bearer ${old}`).length;
    const { status } = await measure();
    expect(status).toBe('measured');
    expect(world.counts().refreshToken).toBe(before + 1);
    const renewed = (await stored()).tokens.accessToken;
    expect(renewed).not.toBe(old);
    // The old token was never sent again: the renewal came first.
    expect(world.bearerTokensSeen.at(-1)).toBe(`Bearer ${renewed}`);
    expect(world.bearerTokensSeen.filter((seen) => seen === `Bearer ${old}`).length).toBe(oldSent);
  }, 60_000);

  it('renews the token after a 401 from the server (it refuses tokens issued before now) and retries once', async () => {
    const before = world.counts().refreshToken;
    const old = (await stored()).tokens.accessToken;
    world.expireAccessTokens();
    const { status, run } = await measure();
    expect(status, run.stdout).toBe('measured');
    expect(world.counts().refreshToken).toBe(before + 1);
    expect((await stored()).tokens.accessToken).not.toBe(old);
  }, 60_000);

  it('two measurements renewing one expired login at once spend its refresh token once (the second uses the first renewal)', async () => {
    const before = world.counts().refreshToken;
    await store.update(world.mcpUrl, async (login) => login && { ...login, tokens: { ...login.tokens, expiresAt: Date.now() - 1_000 } });
    const [first, second] = await Promise.all([measure(), measure()]);
    expect([first.status, second.status]).toEqual(['measured', 'measured']);
    expect(world.counts().refreshToken).toBe(before + 1);
  }, 60_000);

  it('a step-up: a 403 insufficient_scope names the scope and the login command, and the next login asks for it', async () => {
    world.setToolsScope('mcp:tools');
    try {
      const refused = await measure();
      expect(refused.status).toBe('remote-auth-wall');
      expect(refused.note).toContain('insufficient_scope');
      expect(refused.note).toContain(`mcpctx auth login ${world.mcpUrl} --scope "mcp:read mcp:tools"`);
      expect((await stored()).wantedScope).toBe('mcp:read mcp:tools');
      const registrations = world.counts().registrations;
      const again = await cli(['auth', 'login', world.mcpUrl, '--json']);
      expect(again.code, again.stderr).toBe(0);
      // The client registered at the first login is reused: its loopback port was free again.
      expect(world.counts().registrations).toBe(registrations);
      expect(String((JSON.parse(again.stdout) as { scope: string }).scope).split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:tools']));
      const { status, tools } = await measure();
      expect(status).toBe('measured');
      expect(tools).toBeGreaterThan(0);
    } finally {
      world.setToolsScope(undefined);
    }
  }, 90_000);

  it('a token for another server is refused there (its audience is not that server), and said so', async () => {
    // A login copied under another server's URL: the token's audience stays the first server.
    const login = await stored();
    await store.put({ ...login, resource: world.otherMcpUrl });
    try {
      const { status, note } = await measure(world.otherMcpUrl);
      expect(status).toBe('remote-auth-wall');
      expect(note).toContain('HTTP 401');
      expect(note).toContain('invalid_token');
      expect(note).toContain(`mcpctx auth login ${world.otherMcpUrl}`);
    } finally {
      await store.delete(world.otherMcpUrl);
    }
  }, 60_000);

  it('a revoked refresh token: remote-auth-wall naming why and the login command; the login is kept for auth list', async () => {
    await world.revokeRefreshTokens();
    world.expireAccessTokens();
    const { status, note } = await measure();
    expect(status).toBe('remote-auth-wall');
    expect(note).toContain('invalid_grant');
    expect(note).toContain(`run: mcpctx auth login ${world.mcpUrl}`);
    // Logging in again mends it.
    const again = await cli(['auth', 'login', world.mcpUrl]);
    expect(again.code, again.stderr).toBe(0);
    expect((await measure()).status).toBe('measured');
  }, 90_000);

  it('auth logout revokes the tokens at the authorization server and forgets the login', async () => {
    const { tokens } = await stored();
    if (tokens.refreshToken !== undefined) retired.push(tokens.refreshToken);
    const run = await cli(['auth', 'logout', world.mcpUrl, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(await store.get(world.mcpUrl)).toBeUndefined();
    // Revoked there: the refresh token no longer renews anything.
    const refused = await fetch(`${world.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken ?? '', client_id: (await store.list())[0]?.client.clientId ?? 'x' }),
    });
    expect(refused.ok).toBe(false);
    const after = await measure();
    expect(after.status).toBe('remote-auth-wall');
    expect(after.note).toContain(`mcpctx auth login ${world.mcpUrl}`);
  }, 60_000);

  it('without a login, a server behind OAuth is remote-auth-wall with the login command (auth: oauth in a servers file too)', async () => {
    const servers = join(scratch, 'servers.yaml');
    writeFileSync(servers, `servers:\n  - name: behind-oauth\n    url: ${world.otherMcpUrl}\n    auth: oauth\n`);
    const out = join(scratch, 'sweep-results');
    written.push(out);
    const run = await cli(['sweep', servers, '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const record = JSON.parse(readFileSync(join(out, 'behind-oauth', 'measurement.json'), 'utf8')) as { status: string; note: string };
    expect(record.status).toBe('remote-auth-wall');
    expect(record.note).toContain(`there is no login for this server; run: mcpctx auth login ${world.otherMcpUrl}`);
  }, 60_000);
});

describe('the login refuses what an attacker could send', () => {
  it('a redirect with another state ends the login and stores nothing', async () => {
    const isolated = await openTokenStore({ env: { ...env, MCPCTX_AUTH_FILE: join(scratch, 'state', 'auth.json') } });
    const login = loginWithBrowser({
      url: world.mcpUrl,
      store: isolated,
      env,
      timeoutMs: 30_000,
      open: async (authorizationUrl) => {
        const redirect = new URL(authorizationUrl).searchParams.get('redirect_uri') as string;
        void fetch(`${redirect}?code=attacker-code&state=not-the-state`).catch(() => {});
        return true;
      },
    });
    await expect(login).rejects.toThrow(/state that is not the one this login sent/);
    expect(await isolated.list()).toEqual([]);
  }, 60_000);

  it("a code bound to another PKCE challenge (an injected code) is refused by the server's token endpoint, and nothing is stored", async () => {
    const isolated = await openTokenStore({ env: { ...env, MCPCTX_AUTH_FILE: join(scratch, 'pkce', 'auth.json') } });
    let walk: Promise<unknown> = Promise.resolve();
    const login = loginWithBrowser({
      url: world.mcpUrl,
      store: isolated,
      env,
      timeoutMs: 60_000,
      // The attacker's own authorization, with the attacker's challenge, comes back to our redirect with our state.
      open: async (authorizationUrl) => {
        const tampered = new URL(authorizationUrl);
        tampered.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
        walk = approveInBrowser(tampered.href).catch(() => {});
        return true;
      },
    });
    await expect(login).rejects.toMatchObject({ code: 'AUTH_FLOW', data: { step: 'token', oauthError: 'invalid_grant' } });
    await walk;
    expect(await isolated.list()).toEqual([]);
  }, 90_000);
});

describe('where no browser can be started', () => {
  it('prints the URL to open (PKCE S256, state, resource) and gives up after --timeout, storing nothing', async () => {
    const isolated = { MCPCTX_AUTH_FILE: join(scratch, 'headless', 'auth.json') };
    for (const extra of [{ args: ['--no-browser'], env: {} }, { args: [], env: { BROWSER: join(scratch, 'no-such-browser') } }]) {
      const run = await cli(['auth', 'login', world.mcpUrl, '--timeout', '1', ...extra.args], { ...isolated, ...extra.env });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(`Open this URL in a browser to log in to ${world.mcpUrl}:`);
      const shown = new URL(/^ {2}(http\S+)$/m.exec(run.stderr)?.[1] ?? 'http://none');
      expect(shown.origin).toBe(world.issuer);
      expect(shown.searchParams.get('code_challenge_method')).toBe('S256');
      expect(shown.searchParams.get('state')).toMatch(/^[\w-]{40,}$/);
      expect(shown.searchParams.get('resource')).toBe(world.mcpUrl);
      expect(run.stderr).toContain('the browser did not come back within 1 s');
    }
    expect(await (await openTokenStore({ env: { ...env, ...isolated } })).list()).toEqual([]);
  }, 60_000);
});

describe('machine-to-machine: the client credentials grant', () => {
  it('logs in with the secret from a variable, stores only its name, and renews without a person', async () => {
    const secretEnv = { MACHINE_SECRET: world.machineClient.clientSecret };
    const run = await cli(
      ['auth', 'login', world.otherMcpUrl, '--client-credentials', '--client-id', world.machineClient.clientId, '--client-secret-env', 'MACHINE_SECRET', '--json'],
      secretEnv,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ resource: world.otherMcpUrl, grant: 'client_credentials', clientRegistration: 'preregistered' });
    expect(readFileSync(env.MCPCTX_AUTH_FILE as string, 'utf8')).not.toContain(world.machineClient.clientSecret);
    const measured = await cli(['measure', '--url', world.otherMcpUrl, '--json'], secretEnv);
    expect((JSON.parse(measured.stdout) as { status: string }).status).toBe('measured');
    // Expired at the server: a new token is fetched with the same grant.
    const before = world.counts().clientCredentials;
    world.expireAccessTokens();
    const renewed = await cli(['measure', '--url', world.otherMcpUrl, '--json'], secretEnv);
    expect((JSON.parse(renewed.stdout) as { status: string }).status).toBe('measured');
    expect(world.counts().clientCredentials).toBe(before + 1);
    // A 403 naming a wider scope: the machine asks for it itself, no person involved.
    world.setToolsScope('mcp:tools');
    try {
      const widened = await cli(['measure', '--url', world.otherMcpUrl, '--json'], secretEnv);
      expect((JSON.parse(widened.stdout) as { status: string }).status).toBe('measured');
      expect((await stored(world.otherMcpUrl)).scope?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:tools']));
    } finally {
      world.setToolsScope(undefined);
    }
    // Without the variable the renewal cannot happen, and the note says which variable to set.
    world.expireAccessTokens();
    const unset = await cli(['measure', '--url', world.otherMcpUrl, '--json']);
    const record = JSON.parse(unset.stdout) as { status: string; note: string };
    expect(record.status).toBe('remote-auth-wall');
    expect(record.note).toContain('MACHINE_SECRET');
  }, 60_000);
});

describe('no token in anything mcpctx printed or wrote', () => {
  it('the access and refresh tokens seen in this file appear only in the auth file', async () => {
    const tokens = world.bearerTokensSeen.map((value) => value.replace(/^Bearer /, ''));
    const refresh = (await store.list()).flatMap((login) => (login.tokens.refreshToken === undefined ? [] : [login.tokens.refreshToken]));
    const canaries = [...new Set([...tokens, ...refresh, ...retired, world.machineClient.clientSecret])];
    expect(canaries.length).toBeGreaterThan(3);
    const everything = [...printed, ...written.flatMap((folder) => filesUnder(folder).map((file) => readFileSync(file, 'utf8')))];
    expect(everything.length).toBeGreaterThan(10);
    for (const canary of canaries) for (const text of everything) expect(text.includes(canary)).toBe(false);
    // The auth file holds the current ones (so the canaries do reach a place they are looked for).
    const kept = readFileSync(env.MCPCTX_AUTH_FILE as string, 'utf8');
    expect((await store.list()).some((login) => kept.includes(login.tokens.accessToken) && tokens.includes(login.tokens.accessToken))).toBe(true);
  });
});

function filesUnder(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
