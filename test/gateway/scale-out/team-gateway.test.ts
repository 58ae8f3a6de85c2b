// The team gateway against real peers: a real redis-server, Debian's haproxy routing each session
// by Mcp-Session-Id, two gateway instances (the built CLI, as separate processes) behind it, and
// the official SDK client (1.x) over streamable HTTP. What one instance offloads, another serves;
// pins approved once hold on both; an instance killed mid-call ends its sessions cleanly (an error
// for the call in flight, 404 after, a new session through the other instance that still reads
// the old handle); Redis restarted mid-run gives errors that name it and service comes back.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, relayEntry, runCliProcess, tempDir, writeConfig } from '../_gateway-process.js';
import { startListening, type ListeningProcess } from '../../support/conformance.js';
import { HAPROXY_MISSING, freePort, haproxyPath, startHaproxy, type Balancer } from '../../support/haproxy.js';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { redisServerPath, startRedisServer, type RedisServer } from '../../support/redis-server.js';

const KEY_VARIABLE = 'MCPCTX_TEAM_TEST_KEY';
const KEY = 'team-gateway-test-key-0123456789';
const CALL_TIMEOUT_MS = 40_000;
const BIG_TEXT = Array.from({ length: 400 }, (_, index) => `line ${index}: the quick brown fox jumps over the lazy dog`).join('\n');

interface Instance {
  readonly name: string;
  readonly process: ListeningProcess;
}

interface Connected {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** The instance that serves the session (the relay upstream of each instance has its own name). */
  readonly servedBy: string;
}

type ToolResult = { content?: Array<{ type: string; text?: string }>; isError?: boolean; structuredContent?: Record<string, unknown> };

function textOf(result: unknown): string {
  return ((result as ToolResult).content ?? []).map((part) => part.text ?? '').join('\n');
}

const missing = [redisServerPath() === undefined ? 'redis-server is not installed: apt-get install redis-server (.ci/run does)' : undefined, haproxyPath() === undefined ? HAPROXY_MISSING : undefined].filter(
  (why): why is string => why !== undefined,
);

describe.skipIf(missing.length > 0)(`a team gateway: two instances behind haproxy, state in Redis${missing.length > 0 ? ` (skipped: ${missing.join('; ')})` : ''}`, () => {
  let redis: RedisServer;
  let balancer: Balancer;
  const instances = new Map<string, Instance>();
  const clients: Client[] = [];
  const dir = tempDir('mcpctx-team-');
  let stateUrl: string;
  let balancerPort: number;

  async function startInstance(name: string): Promise<Instance> {
    // The same config on every instance, as a team runs it. The pins live in Redis (strict:
    // nothing trusted until approved); the file is only read to fill empty shared pins.
    const config = writeConfig({ mcpServers: { relay: relayEntry('team') }, capTokens: 300, offload: true, pin: { file: join(dir, 'pins.json'), mode: 'strict' } }, tempDir(`mcpctx-team-${name}-`));
    const started = await startListening(process.execPath, [CLI, 'gateway', '--config', config, '--http', '127.0.0.1:0', '--state', stateUrl, '--key-env', KEY_VARIABLE, '--allow-host', `127.0.0.1:${balancerPort}`], /listening on (http:\/\/\S+)/, 30_000, {
      [KEY_VARIABLE]: KEY,
    });
    return { name, process: started };
  }

  async function connect(): Promise<Connected> {
    const transport = new StreamableHTTPClientTransport(new URL(balancer.url));
    const client = new Client({ name: 'mcpctx-team-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    clients.push(client);
    return { client, transport, servedBy: await instanceOf(transport.sessionId) };
  }

  /** The instance holding a session: asked directly (not through haproxy), only it knows the id. */
  async function instanceOf(sessionId: string | undefined): Promise<string> {
    if (sessionId === undefined) throw new Error('the client has no session id');
    const holders: string[] = [];
    for (const [name, instance] of instances) {
      const response = await fetch(instance.process.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'where', method: 'ping' }),
      }).catch(() => undefined); // a killed instance refuses the connection
      await response?.body?.cancel();
      if (response?.status === 200) holders.push(name);
    }
    expect(holders).toHaveLength(1);
    return holders[0] as string;
  }

  /** Clients until one lands on each instance (round robin gives one each within a few). */
  async function oneOnEach(): Promise<Map<string, Connected>> {
    const byInstance = new Map<string, Connected>();
    for (let attempt = 0; attempt < 8 && byInstance.size < instances.size; attempt += 1) {
      const connected = await connect();
      if (!byInstance.has(connected.servedBy)) byInstance.set(connected.servedBy, connected);
    }
    expect([...byInstance.keys()].sort()).toEqual([...instances.keys()].sort());
    return byInstance;
  }

  async function approveEverything(): Promise<void> {
    const env = { MCPCTX_TEAM_STATE: stateUrl };
    // Listing records what was shown; approving all needs each definition to be the one shown.
    const listed = await runCliProcess(['gateway', 'pins', '--state-env', 'MCPCTX_TEAM_STATE', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const approved = await runCliProcess(['gateway', 'pins', stateUrl, '--approve-all', '--json'], { env });
    expect(approved.code, approved.stderr).toBe(0);
  }

  beforeAll(async () => {
    redis = await startRedisServer({ persistDir: tempDir('mcpctx-team-redis-') });
    stateUrl = redis.url;
    // Clients name the balancer in Host, and haproxy passes it on: each instance must accept it.
    balancerPort = await freePort();
    for (const name of ['a', 'b']) instances.set(name, await startInstance(name));
    balancer = await startHaproxy([...instances.values()].map((instance) => Number(new URL(instance.process.url).port)), { port: balancerPort });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.allSettled([...instances.values()].map((instance) => instance.process.stop()));
    await balancer?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000, { owner: process.pid })).toEqual([]);
  }, 60_000);

  let handle: string;
  let onEach: Map<string, Connected>;

  it('pins live in Redis: what one instance held is approved once, and new sessions on both instances are served', async () => {
    // Strict pins: the first session's check records every tool as pending in Redis, and holds it.
    const first = new StreamableHTTPClientTransport(new URL(balancer.url));
    const probe = new Client({ name: 'mcpctx-team-probe', version: '1.0.0' }, { capabilities: {} });
    await probe.connect(first, { timeout: CALL_TIMEOUT_MS });
    clients.push(probe);
    const held = await probe.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    expect(held.tools.map((tool) => tool.name)).not.toContain('echo');
    const refused = await probe.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/held back by the gateway/);

    await approveEverything();
    onEach = await oneOnEach();
    for (const connected of onEach.values()) {
      const listed = await connected.client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
      expect(listed.tools.map((tool) => tool.name)).toContain('echo');
    }
  });

  it('a result offloaded through one instance is read through the other', async () => {
    const [[, writer], [, reader]] = [...onEach.entries()] as [[string, Connected], [string, Connected]];
    expect(writer.servedBy).not.toBe(reader.servedBy);
    const offloaded = await writer.client.callTool({ name: 'echo', arguments: { text: BIG_TEXT } }, undefined, { timeout: CALL_TIMEOUT_MS });
    const preview = JSON.parse(textOf(offloaded)) as { handle: string; next_cursor: string | null };
    expect(preview.handle).toMatch(/^[A-Za-z0-9_-]+$/);
    handle = preview.handle;
    const read = await reader.client.callTool({ name: 'read_result', arguments: { handle, query: 'from' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(read.isError ?? false, textOf(read)).toBe(false);
    expect(textOf(read)).toBe('"team"');
    const first = await reader.client.callTool({ name: 'read_result', arguments: { handle, path: 'text' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(textOf(first)).toContain('line 0: the quick brown fox');
    // A page cursor the first instance issued is served by the second as well.
    const paged = await reader.client.callTool({ name: 'read_result', arguments: { handle, cursor: preview.next_cursor } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(paged.isError ?? false, textOf(paged)).toBe(false);
  });

  it('an instance killed mid-call: the call in flight fails, its session is gone (404), and a new session through the other instance reads its old handle', async () => {
    const [[victimName, victim], [survivorName]] = [...onEach.entries()] as [[string, Connected], [string, Connected]];
    const inFlight = victim.client.callTool({ name: 'slow', arguments: { ms: 20_000, tag: 'never' } }, undefined, { timeout: CALL_TIMEOUT_MS }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const killed = instances.get(victimName);
    if (killed === undefined) throw new Error('no victim');
    // SIGKILL to its whole group: the gateway and its upstreams, nothing said to anyone.
    process.kill(-killed.process.pid, 'SIGKILL');
    const outcome = await inFlight;
    if ('result' in outcome) expect(outcome.result.isError).toBe(true);
    else expect(outcome.error).toBeInstanceOf(Error);

    // The old session now reaches the survivor, which does not know it: 404, not a hang.
    const stale = await victim.client.callTool({ name: 'echo', arguments: { text: 'again' } }, undefined, { timeout: CALL_TIMEOUT_MS }).catch((error: unknown) => error);
    expect(String(stale)).toMatch(/404|not found/i);

    // The client opens a new session: it lands on the survivor, and the handle stays readable.
    const reopened = await connect();
    expect(reopened.servedBy).toBe(survivorName);
    const read = await reopened.client.callTool({ name: 'read_result', arguments: { handle, path: 'text' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(read.isError ?? false, textOf(read)).toBe(false);
    expect(textOf(read)).toContain('line 0: the quick brown fox');
    await killed.process.stop();
    instances.delete(victimName);
  });

  it('Redis restarted mid-run: calls that need it fail naming it, nothing crashes, and service is back when it returns', async () => {
    const session = await connect();
    // Its catalog is built (and checked against the pins) now, while Redis is up.
    expect((await session.client.listTools(undefined, { timeout: CALL_TIMEOUT_MS })).tools.map((tool) => tool.name)).toContain('echo');
    await redis.stop();
    const failed = await session.client.callTool({ name: 'echo', arguments: { text: BIG_TEXT } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/shared state at redis:\/\/127\.0\.0\.1:\d+/);
    const read = await session.client.callTool({ name: 'read_result', arguments: { handle } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toMatch(/redis:\/\//);
    // A call that needs no state is still served.
    const small = await session.client.callTool({ name: 'echo', arguments: { text: 'still here' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(textOf(small)).toBe('still here');
    // A new session cannot check its catalog against the pins: it fails closed, naming why.
    const fresh = await connect();
    const held = await fresh.client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(held.isError).toBe(true);
    expect(textOf(held)).toMatch(/could not use the shared pins at redis:\/\/127\.0\.0\.1:\d+\/0 .*Redis/);

    await redis.restart();
    let back: unknown;
    for (let attempt = 0; attempt < 60; attempt += 1) {
      back = await session.client.callTool({ name: 'read_result', arguments: { handle, path: 'text' } }, undefined, { timeout: CALL_TIMEOUT_MS });
      if ((back as ToolResult).isError !== true) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect((back as ToolResult).isError ?? false, textOf(back)).toBe(false);
    expect(textOf(back)).toContain('line 0: the quick brown fox');
    const offloaded = await session.client.callTool({ name: 'echo', arguments: { text: BIG_TEXT } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(offloaded.isError ?? false, textOf(offloaded)).toBe(false);
    for (const instance of instances.values()) expect(instance.process.stderr()).not.toMatch(/Uncaught|unhandled/i);
  });

  it('the receipt counters add up every instance\'s calls, read with gateway report', async () => {
    const report = await runCliProcess(['gateway', 'report', stateUrl, '--json']);
    expect(report.code, report.stderr).toBe(0);
    const parsed = JSON.parse(report.stdout) as { totals: { calls: number }; rows: Array<{ tool: string; action: string; calls: number }> };
    expect(parsed.totals.calls).toBeGreaterThanOrEqual(6);
    expect(parsed.rows.some((row) => row.tool === 'read_result' && row.action === 'paged')).toBe(true);
  });
});

describe.skipIf(missing.length > 0)(`a team gateway with a token per agent${missing.length > 0 ? ` (skipped: ${missing.join('; ')})` : ''}`, () => {
  let redis: RedisServer;
  let instance: ListeningProcess;
  const clients: Client[] = [];
  const TOKENS = { MCPCTX_AGENT_ONE: 'agent-one-token-0123456789', MCPCTX_AGENT_TWO: 'agent-two-token-0123456789' };

  async function connectAs(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(instance.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'mcpctx-team-agent', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    const config = writeConfig({ mcpServers: { relay: relayEntry('team') }, capTokens: 300, offload: true });
    instance = await startListening(
      process.execPath,
      [CLI, 'gateway', '--config', config, '--http', '127.0.0.1:0', '--state', redis.url, '--key-env', KEY_VARIABLE, '--token-env', 'MCPCTX_AGENT_ONE', '--token-env', 'MCPCTX_AGENT_TWO'],
      /listening on (http:\/\/\S+)/,
      30_000,
      { [KEY_VARIABLE]: KEY, ...TOKENS },
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await instance?.stop();
    await redis?.stop();
    expect(await waitForNoMarkedProcesses(10_000, { owner: process.pid })).toEqual([]);
  }, 60_000);

  it('a handle is bound to the agent\'s token: its new sessions read it, another agent\'s are refused', async () => {
    const one = await connectAs(TOKENS.MCPCTX_AGENT_ONE);
    const offloaded = await one.callTool({ name: 'echo', arguments: { text: BIG_TEXT } }, undefined, { timeout: CALL_TIMEOUT_MS });
    const { handle } = JSON.parse(textOf(offloaded)) as { handle: string };
    const again = await connectAs(TOKENS.MCPCTX_AGENT_ONE);
    const read = await again.callTool({ name: 'read_result', arguments: { handle, query: 'from' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(textOf(read)).toBe('"team"');
    const two = await connectAs(TOKENS.MCPCTX_AGENT_TWO);
    const refused = await two.callTool({ name: 'read_result', arguments: { handle, query: 'from' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^FOREIGN_HANDLE: Foreign handle: it was issued to another session \(or, with a shared state, another client's token\)/);
  });
});
