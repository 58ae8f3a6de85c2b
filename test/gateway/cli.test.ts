// Acceptance 7 and the CLI around the gateway: bad config, unreachable upstream, port in use and a
// non-loopback bind without a token each end with a clear message and exit 2 or 3, with nothing
// started and nothing left behind; `gateway check` and `gateway report`; secrets stay out.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { gatewayOverHttp, runCliProcess, gatewayOverStdio, relayArgs, relayEntry, relayOverHttp, tempDir, writeConfig } from './_gateway-process.js';
import { initializeRequest, post, rawPost } from './_http-client.js';
import { freePort } from '../support/free-port.js';

/** Runs `mcpctx gateway ARGS` to its end (stdin closed at once), within a bound. */
const runGateway = (args: readonly string[], env: Record<string, string> = {}) => runCliProcess(['gateway', ...args], { env, timeoutMs: 30_000 });

const CANARY = 'canary-header-value-4f1d9a7c2b';

/** Asks `probe` every 50 ms until it says yes; false after `timeoutMs`. */
async function pollUntilAsync(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('mcpctx gateway: failures at start', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('a bad config exits 2 listing every problem with its path, and starts nothing', async () => {
    const config = writeConfig({
      mcpServers: { one: { ...relayEntry('one'), agrs: ['x'] } },
      capTokens: -5,
      tools: { echo: { pageTokens: 'many', maxTokenz: 3 } },
      ofload: true,
    });
    const run = await runGateway(['--config', config]);
    expect(run.code).toBe(2);
    for (const path of ['mcpServers.one.agrs', 'capTokens', 'tools.echo.pageTokens', 'tools.echo.maxTokenz', 'ofload']) {
      expect(run.stderr).toContain(path);
    }
    expect(await waitForNoMarkedProcesses(1_000)).toEqual([]);
    const checked = await runGateway(['check', config]);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain('tools.echo.maxTokenz');
  });

  it('an upstream command that does not exist, or an HTTP upstream nobody answers, exits 3 naming it', async () => {
    const missing = await runGateway(['--', 'no-such-mcp-server-command-xyz', '--flag']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no-such-mcp-server-command-xyz.*not found/);
    const port = await freePort();
    const http = await runGateway(['--config', writeConfig({ mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp` } } })]);
    expect(http.code).toBe(3);
    expect(http.stderr).toMatch(new RegExp(`remote.*127\\.0\\.0\\.1:${port}.*cannot be reached`));
  });

  it('a port in use exits 3 naming the address; a non-loopback bind needs --allow-remote and a token (exit 2)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const busy = await runGateway(['--http', `127.0.0.1:${port}`, '--', process.execPath, '-e', '0']);
      expect(busy.code).toBe(3);
      expect(busy.stderr).toContain(`127.0.0.1:${port}`);
    } finally {
      holder.close();
    }
    const noFlag = await runGateway(['--http', '0.0.0.0:0', '--', process.execPath, '-e', '0']);
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toMatch(/allow-remote/);
    const noToken = await runGateway(['--http', '0.0.0.0:0', '--allow-remote', '--', process.execPath, '-e', '0']);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/token/);
    const unsetToken = await runGateway(['--http', '0.0.0.0:0', '--allow-remote', '--token-env', 'NOT_SET_ANYWHERE', '--', process.execPath, '-e', '0']);
    expect(unsetToken.code).toBe(2);
    expect(unsetToken.stderr).toMatch(/NOT_SET_ANYWHERE.*not set/);
    expect(await waitForNoMarkedProcesses(1_000)).toEqual([]);
  });

  it('a header variable that is not set exits 2 naming the variable; a set one never appears in check, stderr or receipts', async () => {
    const upstream = await relayOverHttp('remote');
    const dir = tempDir();
    const receipts = join(dir, 'receipts.jsonl');
    try {
      const config = writeConfig({ mcpServers: { remote: { url: upstream.url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } } } }, dir);
      const unset = await runGateway(['--config', config]);
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain('REMOTE_TOKEN');
      // Offline: the relay's HTTP mode serves one session, and it is the gateway's below.
      const checked = await runGateway(['check', config, '--json', '--offline'], { REMOTE_TOKEN: CANARY });
      expect(checked.code).toBe(0);
      expect(JSON.parse(checked.stdout).upstreams[0].headerNames).toEqual(['Authorization']);
      expect(checked.stdout + checked.stderr).not.toContain(CANARY);
      const withToken = gatewayOverStdio(['--config', config, '--receipts', receipts, '--receipts-args'], { REMOTE_TOKEN: CANARY });
      await withToken.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'secret', version: '1' } });
      await withToken.request('tools/call', { name: 'echo', arguments: { text: 'hello' } });
      // The upstream echoes the header in a 500 page: the canary reaches the gateway's error path.
      const leaked = await withToken.request('tools/call', { name: 'leak', arguments: {} });
      await withToken.close();
      expect(JSON.stringify(leaked)).toMatch(/internal error; you sent authorization=/);
      expect(JSON.stringify(leaked)).not.toContain(CANARY);
      expect(withToken.stderr()).not.toContain(CANARY);
      expect(readFileSync(receipts, 'utf8')).not.toContain(CANARY);
      expect(readFileSync(receipts, 'utf8')).toContain('"hello"');
    } finally {
      await upstream.stop();
    }
  });
});

describe('mcpctx gateway: the HTTP front flags', () => {
  it('--allow-host, --allow-origin, --max-sessions-per-client and --session-idle reach the front; without --http they exit 2', async () => {
    const args = ['--allow-host', 'mcp.internal', '--allow-origin', 'http://localhost:5173', '--max-sessions-per-client', '1', '--session-idle', '200'];
    const stray = await runGateway([...args, '--max-sessions', '3', ...relayArgs()]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--allow-host, --allow-origin, --max-sessions, --max-sessions-per-client, --session-idle only apply with --http');
    const gateway = await gatewayOverHttp([...args, ...relayArgs()]);
    try {
      const headers = { host: 'mcp.internal', origin: 'http://localhost:5173' };
      const first = await rawPost(gateway.url, initializeRequest(), { headers });
      expect(first.status).toBe(200);
      const session = first.headers['mcp-session-id'] as string;
      expect((await rawPost(gateway.url, initializeRequest(), { headers: { host: 'evil.example' } })).status).toBe(403);
      expect((await post(gateway.url, initializeRequest(), { headers: { origin: 'http://localhost:5174' } })).status).toBe(403);
      // With its GET stream open the first session is in use: the client's one place stays taken.
      const stream = await fetch(gateway.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
      expect(stream.status).toBe(200);
      const second = await post(gateway.url, initializeRequest());
      expect(second.status).toBe(503);
      expect(await second.text()).toContain('holds its limit of 1 sessions');
      await stream.body?.cancel();
      // Silent with no stream open for 200 ms, the first session ends (or makes room) and frees its place.
      const served = await pollUntilAsync(async () => {
        const answer = await post(gateway.url, initializeRequest());
        await answer.text();
        return answer.status === 200;
      }, 10_000);
      expect(served).toBe(true);
      expect((await post(gateway.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { session })).status).toBe(404);
    } finally {
      await gateway.stop();
    }
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  }, 60_000);
});

describe('mcpctx gateway receipts', () => {
  it('a gateway stopped by SIGTERM right after its last reply has written a receipt for every call', async () => {
    const receipts = join(tempDir(), 'receipts.jsonl');
    const client = gatewayOverStdio(['--receipts', receipts, ...relayArgs('one')]);
    try {
      await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sigterm', version: '1' } });
      await client.request('tools/list');
      for (let call = 0; call < 20; call += 1) await client.request('tools/call', { name: 'echo', arguments: { text: `call ${call}` } });
      process.kill(client.pid as number, 'SIGTERM');
    } finally {
      await client.close();
    }
    const lines = readFileSync(receipts, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { kind: string; action: string; deliveredTokens: number });
    expect(lines.filter((line) => line.kind === 'list')).toHaveLength(1);
    const calls = lines.filter((line) => line.kind === 'call');
    expect(calls).toHaveLength(20);
    expect(calls.every((line) => line.action === 'passed' && line.deliveredTokens > 0)).toBe(true);
  });
});

describe('mcpctx gateway report', () => {
  it('sums tokens in and out and calls per tool and action; --json; bad lines counted', async () => {
    const file = join(tempDir(), 'receipts.jsonl');
    const line = (tool: string, action: string, upstreamTokens: number, deliveredTokens: number): string =>
      JSON.stringify({ time: '2026-12-01T00:00:00.000Z', kind: 'call', upstream: 'prs', tool, upstreamTokens, deliveredTokens, action, elapsedMs: 1 });
    writeFileSync(file, [line('list_pull_requests', 'paged', 227_605, 1_900), line('list_pull_requests', 'paged', 0, 1_449), line('get_pull_request', 'passed', 600, 600), 'not json'].join('\n') + '\n');
    const text = await runGateway(['report', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/list_pull_requests\s+prs\s+paged\s+2\s+227,605\s+3,349/);
    const json = JSON.parse((await runGateway(['report', file, '--json'])).stdout) as { totals: { calls: number; upstreamTokens: number; deliveredTokens: number }; badLines: number };
    expect(json.totals).toMatchObject({ calls: 3, upstreamTokens: 228_205, deliveredTokens: 3_949 });
    expect(json.badLines).toBe(1);
    expect((await runGateway(['report', join(tempDir(), 'absent.jsonl')])).code).toBe(3);
  });
});

