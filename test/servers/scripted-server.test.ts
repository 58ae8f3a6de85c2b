// Self-check of the scripted server, using only node:child_process (no project code), so a bug
// in src/mcp cannot hide a bug in the test server or the other way round.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPTED_SERVER, findMarkedProcesses, isPidAlive, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: unknown;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

interface Tool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

interface Server {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  detached: boolean;
  messages: JsonRpcMessage[];
  stderr: () => string;
  exited: Promise<Exit>;
  hasExited: () => boolean;
}

const STEP_TIMEOUT_MS = 5000;
const started = new Set<Server>();

function startServer(mode: string, options: { detached?: boolean } = {}): Server {
  const detached = options.detached ?? false;
  const child = spawn(process.execPath, [SCRIPTED_SERVER, mode], {
    env: markedEnv({ PATH: process.env.PATH ?? '' }),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached,
  });
  if (child.pid === undefined) throw new Error(`could not spawn scripted server (${mode})`);
  const messages: JsonRpcMessage[] = [];
  let stderr = '';
  let partial = '';
  let done = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') messages.push(JSON.parse(line) as JsonRpcMessage);
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => {}); // EPIPE when the server exits first
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  const server: Server = {
    child,
    pid: child.pid,
    detached,
    messages,
    stderr: () => stderr,
    exited,
    hasExited: () => done,
  };
  started.add(server);
  return server;
}

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = STEP_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function withTimeout<T>(promise: Promise<T>, what: string, timeoutMs = STEP_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function send(server: Server, message: object): void {
  server.child.stdin.write(JSON.stringify(message) + '\n');
}

async function request(server: Server, id: number, method: string, params?: object): Promise<JsonRpcMessage> {
  send(server, params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
  return until(
    () => server.messages.find((m) => m.method === undefined && m.id === id),
    `reply to ${method} (id ${id})`,
  );
}

const initializeParams = (protocolVersion: string) => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: 'scripted-server-test', version: '0.0.0' },
});

async function stop(server: Server): Promise<void> {
  if (!server.hasExited()) {
    try {
      // A detached server leads its own process group: take its children with it.
      process.kill(server.detached ? -server.pid : server.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await withTimeout(server.exited, `exit of pid ${server.pid}`);
}

afterEach(async () => {
  const servers = [...started];
  started.clear();
  await Promise.all(servers.map(stop));
});

describe('scripted-server', () => {
  it('normal: initialize and tools/list round trip, exits 0 when stdin ends', async () => {
    const server = startServer('normal');
    const init = await request(server, 1, 'initialize', initializeParams('2025-06-18'));
    expect(init.result).toMatchObject({
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'scripted-server', version: '1.0.0' },
    });
    send(server, { jsonrpc: '2.0', method: 'notifications/initialized' });

    const list = await request(server, 2, 'tools/list');
    const tools = list.result?.tools as Tool[];
    expect(tools.map((t) => t.name)).toEqual(['get_weather', 'search_docs', 'echo']);
    expect(Object.keys(tools[1] ?? {})).toEqual(['name', 'description', 'inputSchema', 'outputSchema']);
    expect(tools[0]?.description).toMatch(/°C/);

    const unknown = await request(server, 3, 'resources/list');
    expect(unknown.error).toEqual({ code: -32601, message: 'Method not found: resources/list' });

    server.child.stdin.end();
    expect(await withTimeout(server.exited, 'exit after stdin end')).toEqual({ code: 0, signal: null });
  }, 15_000);

  it('normal: an unsupported protocol version is answered with the latest', async () => {
    const server = startServer('normal');
    const init = await request(server, 1, 'initialize', initializeParams('1999-01-01'));
    expect(init.result?.protocolVersion).toBe('2025-11-25');
  }, 15_000);

  it('pages3: following nextCursor yields 7 tools over 3 pages', async () => {
    const server = startServer('pages3');
    await request(server, 1, 'initialize', initializeParams('2025-11-25'));
    const names: string[] = [];
    const cursors: unknown[] = [];
    let cursor: unknown = undefined;
    for (let id = 2; id < 10; id++) {
      const page = await request(server, id, 'tools/list', cursor === undefined ? undefined : { cursor });
      names.push(...(page.result?.tools as Tool[]).map((t) => t.name));
      cursor = page.result?.nextCursor;
      cursors.push(cursor);
      if (typeof cursor !== 'string') break;
    }
    expect(cursors).toEqual(['page-2', 'page-3', null]);
    expect(names).toHaveLength(7);
    expect(new Set(names).size).toBe(7);

    const bad = await request(server, 20, 'tools/list', { cursor: 'page-9' });
    expect(bad.error).toEqual({ code: -32602, message: 'Invalid cursor' });
  }, 15_000);

  it.each([
    ['id-true', true],
    ['id-string', '1'],
    ['wrong-id', 1001],
  ])('%s: the reply to id 1 carries id %j', async (mode, expectedId) => {
    const server = startServer(mode);
    send(server, { jsonrpc: '2.0', id: 1, method: 'ping' });
    const reply = await until(() => server.messages[0], 'a reply');
    expect(reply).toEqual({ jsonrpc: '2.0', id: expectedId, result: {} });
  }, 15_000);

  it('early-exit: exits 3 with the error on stderr, without reading stdin', async () => {
    const server = startServer('early-exit');
    expect(await withTimeout(server.exited, 'early exit')).toEqual({ code: 3, signal: null });
    expect(server.stderr()).toBe('fatal: could not read config file /etc/scripted/config.toml: no such file\n');
  }, 15_000);

  it('an unknown mode exits 2', async () => {
    const server = startServer('no-such-mode');
    expect(await withTimeout(server.exited, 'exit')).toEqual({ code: 2, signal: null });
    expect(server.stderr()).toMatch(/^unknown mode no-such-mode\n/);
  }, 15_000);

  it('grandchild: the sleep carries the mark and dies with the process group', async () => {
    const server = startServer('grandchild', { detached: true });
    const grandchild = await until(() => {
      const match = /grandchild pid (\d+)\n/.exec(server.stderr());
      return match ? Number(match[1]) : undefined;
    }, 'the grandchild pid on stderr');
    expect(grandchild).not.toBe(server.pid);
    expect(isPidAlive(grandchild)).toBe(true);
    const marked = (await findMarkedProcesses()).map((p) => p.pid);
    expect(marked).toEqual(expect.arrayContaining([server.pid, grandchild]));
    const ours = (await findMarkedProcesses(undefined, { owner: process.pid })).map((p) => p.pid);
    expect(ours).toEqual(expect.arrayContaining([server.pid, grandchild]));
    expect(await findMarkedProcesses(undefined, { owner: process.ppid })).toEqual([]);

    process.kill(-server.pid, 'SIGTERM');
    expect(await withTimeout(server.exited, 'server exit after SIGTERM')).toEqual({ code: null, signal: 'SIGTERM' });
    await until(() => (isPidAlive(grandchild) ? undefined : true), `grandchild ${grandchild} to die`);
  }, 15_000);

  it('left no marked process behind', async () => {
    expect(await waitForNoMarkedProcesses(5000)).toEqual([]);
  }, 15_000);
});
