// Upstreams started before their session (the stdio client's, so they boot while the gateway
// loads): what they say meanwhile reaches the session that takes them, in order, and nothing is
// left running when the gateway then fails to start or is given another config's upstreams.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareUpstreams, startGateway, type UpstreamSpec } from '../../src/gateway/index.js';
import { configForCommand } from '../../src/gateway/config/index.js';
import type { ServerNotification, ServerRequest } from '../../src/mcp/index.js';
import { SCRIPTED_SERVER, findMarkedProcesses, markedEnv, pollUntil, waitForNoMarkedProcesses } from '../support/processes.js';
import { tempDir } from './_gateway-process.js';

const EARLY_TALKER = fileURLToPath(new URL('../servers/early-talker.mjs', import.meta.url));
const WAIT_MS = 10_000;

function earlyTalkerConfig() {
  return configForCommand({ command: process.execPath, args: [EARLY_TALKER], env: markedEnv() });
}

describe('prepareUpstreams', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(WAIT_MS)).toEqual([]);
  });

  it('starts each stdio upstream at once and hands it over with what it said before, then everything after', async () => {
    const config = earlyTalkerConfig();
    const prepared = await prepareUpstreams(config, process.env, { start: true });
    const spec = config.upstreams[0] as UpstreamSpec;
    // The server runs and has spoken before any session exists.
    let running = 0;
    for (const until = Date.now() + WAIT_MS; running === 0 && Date.now() < until; ) {
      running = (await findMarkedProcesses(undefined, { owner: process.pid })).length;
      if (running === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(running).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const said: string[] = [];
    const requests: ServerRequest[] = [];
    const upstream = prepared.take(spec.name, {
      onNotification: (_upstream, notification: ServerNotification) => said.push(String(notification.params?.data)),
      onServerRequest: async (_upstream, request) => {
        requests.push(request);
        return { roots: [{ uri: 'file:///work', name: 'work' }] };
      },
      onEnded: () => said.push('ended'),
    });
    try {
      expect(upstream?.name).toBe(spec.name);
      expect(prepared.take(spec.name, { onNotification: () => {}, onServerRequest: async () => ({}), onEnded: () => {} })).toBeUndefined();
      expect(await pollUntil(() => said.length >= 2, WAIT_MS)).toBe(true);
      expect(requests.map((request) => request.method)).toEqual(['roots/list']);
      expect(said).toEqual(['booted', 'answered {"roots":[{"uri":"file:///work","name":"work"}]}']);
    } finally {
      await upstream?.close();
    }
  });

  it('starts nothing without start (an HTTP client: each session starts its own)', async () => {
    const config = earlyTalkerConfig();
    const prepared = await prepareUpstreams(config, process.env, { start: false });
    expect(prepared.resolved.map((upstream) => upstream.name)).toEqual(config.upstreams.map((upstream) => upstream.name));
    expect(prepared.take(config.upstreams[0]?.name ?? '', { onNotification: () => {}, onServerRequest: async () => ({}), onEnded: () => {} })).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await findMarkedProcesses(undefined, { owner: process.pid })).toEqual([]);
  });

  it('ends the started servers when the gateway then fails to start (a store that cannot be opened)', async () => {
    const config = earlyTalkerConfig();
    const prepared = await prepareUpstreams(config, process.env, { start: true });
    const storeFile = join(tempDir(), 'no-such-folder', 'deeper', 'store.db');
    await expect(
      startGateway({ config, prepared, front: { kind: 'stdio', input: new PassThrough(), output: new PassThrough() }, storeFile }),
    ).rejects.toThrow();
    expect(await waitForNoMarkedProcesses(WAIT_MS)).toEqual([]);
  });

  it('a session takes an upstream that already ended before it existed: the end is reported, the client is answered', async () => {
    const config = configForCommand({ command: process.execPath, args: [SCRIPTED_SERVER, 'early-exit'], env: markedEnv() });
    const prepared = await prepareUpstreams(config, process.env, { start: true });
    // The server has exited and its end is held before any session exists (the order a loaded machine gives).
    expect(await waitForNoMarkedProcesses(WAIT_MS)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const input = new PassThrough();
    const output = new PassThrough();
    const logged: string[] = [];
    const gateway = await startGateway({ config, prepared, front: { kind: 'stdio', input, output }, log: (line) => logged.push(line) });
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    expect(await pollUntil(() => written.includes('"id":1'), WAIT_MS)).toBe(true);
    expect(logged.join('\n')).toContain('fatal: could not read config file');
    input.end();
    await gateway.close();
  });

  it('refuses upstreams prepared from another config, and ends them', async () => {
    const prepared = await prepareUpstreams(earlyTalkerConfig(), process.env, { start: true });
    await expect(
      startGateway({ config: earlyTalkerConfig(), prepared, front: { kind: 'stdio', input: new PassThrough(), output: new PassThrough() } }),
    ).rejects.toThrow(/another config/);
    expect(await waitForNoMarkedProcesses(WAIT_MS)).toEqual([]);
  });
});
