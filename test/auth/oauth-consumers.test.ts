// The stored login is used wherever mcpctx reaches a remote server: the gateway in front of an
// HTTP upstream behind OAuth (a client lists and calls its tools through the gateway, which holds
// the login), and audit's url entries. One login in a headless browser against a real
// authorization server serves every case; without it each says to log in.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/index.js';
import { loginWithBrowser, openTokenStore } from '../../src/auth/index.js';
import { gatewayOverStdio } from '../gateway/_gateway-process.js';
import { runCliCaptured } from '../support/cli-run.js';
import { approveInBrowser } from '../support/oauth-browser.js';
import { startOAuthWorld, type OAuthWorld } from '../support/oauth-world.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

let world: OAuthWorld;
let scratch: string;
let authFile: string;
let accessToken: string;

beforeAll(async () => {
  world = await startOAuthWorld();
  scratch = mkdtempSync(join(tmpdir(), 'mcpctx-oauth-consumers-'));
  authFile = join(scratch, 'auth.json');
  const store = await openTokenStore({ env: { MCPCTX_AUTH_FILE: authFile, MCPCTX_AUTH_STORE: 'file' } });
  let walk: Promise<unknown> = Promise.resolve();
  const { login } = await loginWithBrowser({
    url: world.mcpUrl,
    store,
    env: {},
    open: async (url) => {
      walk = approveInBrowser(url);
      return true;
    },
  });
  await walk;
  accessToken = login.tokens.accessToken;
}, 90_000);

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  await world?.close();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

function gatewayConfig(auth: 'oauth' | undefined): string {
  const file = join(scratch, `gateway-${auth ?? 'default'}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: { remote: { url: world.mcpUrl, ...(auth === undefined ? {} : { auth }) } } }));
  return file;
}

describe('the gateway in front of a server behind OAuth', () => {
  it('lists and calls its tools with the stored login, renewing it after a 401, and no token reaches the client', async () => {
    const receipts = join(scratch, 'receipts.jsonl');
    const client = gatewayOverStdio(['--config', gatewayConfig('oauth'), '--receipts', receipts, '--receipts-args'], { MCPCTX_AUTH_FILE: authFile, MCPCTX_AUTH_STORE: 'file' });
    try {
      await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } });
      await client.notify('notifications/initialized');
      const listed = await client.request('tools/list');
      const names = ((listed.result as { tools: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);
      expect(names.some((name) => name.endsWith('echo'))).toBe(true);
      // The upstream refuses the token from now on: the gateway renews it and the call still answers.
      const before = world.counts().refreshToken;
      world.expireAccessTokens();
      const echo = names.find((name) => name.endsWith('echo')) as string;
      const called = await client.request('tools/call', { name: echo, arguments: { text: 'through the gateway' } });
      expect(JSON.stringify(called.result)).toContain('through the gateway');
      expect(world.counts().refreshToken).toBe(before + 1);
      expect(world.bearerTokensSeen).toContain(`Bearer ${accessToken}`);
      expect(JSON.stringify(client.received)).not.toContain(accessToken);
    } finally {
      await client.close();
    }
    // Nor the gateway's receipts (arguments included) or its log, whatever token it held.
    const held = (await openTokenStore({ env: { MCPCTX_AUTH_FILE: authFile, MCPCTX_AUTH_STORE: 'file' } })).get(world.mcpUrl);
    const renewedToken = (await held)?.tokens.accessToken ?? 'none';
    const written = readFileSync(receipts, 'utf8');
    expect(written).toContain('through the gateway');
    for (const token of [accessToken, renewedToken]) {
      expect(written).not.toContain(token);
      expect(client.stderr()).not.toContain(token);
    }
  }, 60_000);

  it('without a login the upstream is unavailable, and the reason names the login command', async () => {
    const client = gatewayOverStdio(['--config', gatewayConfig(undefined)], { MCPCTX_AUTH_FILE: join(scratch, 'nobody.json'), MCPCTX_AUTH_STORE: 'file' });
    try {
      const answer = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } });
      expect(JSON.stringify(answer)).toContain(`mcpctx auth login ${world.mcpUrl}`);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("audit's url entries", () => {
  it('are measured with the stored login; without one they are remote-auth-wall naming the login command', async () => {
    const config = join(scratch, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { remote: { type: 'http', url: world.mcpUrl } } }));
    const logged = await runCliCaptured(['audit', '--config', config, '--runs', '1', '--json'], scratch, { MCPCTX_AUTH_FILE: authFile, MCPCTX_AUTH_STORE: 'file' });
    expect(logged.code, logged.stderr).toBe(0);
    const remote = (JSON.parse(logged.stdout) as AuditReport).entries.find((entry) => entry.name === 'remote');
    expect(remote?.measurement?.status).toBe('measured');
    expect(remote?.measurement?.totalTokens).toBeGreaterThan(0);
    expect(logged.stdout + logged.stderr).not.toContain(accessToken);

    const anonymous = await runCliCaptured(['audit', '--config', config, '--runs', '1', '--json'], scratch, { MCPCTX_AUTH_FILE: join(scratch, 'nobody.json'), MCPCTX_AUTH_STORE: 'file' });
    const walled = (JSON.parse(anonymous.stdout) as AuditReport).entries.find((entry) => entry.name === 'remote');
    expect(walled?.measurement?.status).toBe('remote-auth-wall');
    expect(walled?.measurement?.note).toContain(`mcpctx auth login ${world.mcpUrl}`);
  }, 60_000);
});
