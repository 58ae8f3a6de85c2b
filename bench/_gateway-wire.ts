// The wire side of the gateway benchmark: the four ways a client reaches the relay test server
// (direct over stdio, the gateway over stdio, the gateway over streamable HTTP, mcp-proxy over
// streamable HTTP), one small raw streamable-HTTP client shared by the two HTTP peers, and the
// bookkeeping that ends every process the benchmark started.
import { readFileSync, readdirSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BoundedStdioTransport, Deadline, RawClient, initialize } from '../src/mcp/index.js';
import { freePort } from '../test/support/free-port.js';
import { TEST_MARK_NAME, type MarkedProcess, waitForNoMarkedProcesses } from '../test/support/processes.js';
import { PROJECT_ROOT } from './_harness.js';

export const RELAY_SERVER = fileURLToPath(new URL('../test/servers/relay-server.mjs', import.meta.url));
export const GATEWAY_CLI = `${PROJECT_ROOT}dist/cli/main.js`;
/** mcp-proxy's own entry (what node_modules/.bin/mcp-proxy links to), run with this node. */
export const MCP_PROXY_BIN = `${PROJECT_ROOT}node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs`;
export const PIPE_RELAY = `${PROJECT_ROOT}bench/_pipe-relay.mjs`;
export const PROTOCOL_VERSION = '2025-11-25';

const START_TIMEOUT_MS = 30_000;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const CLIENT_INFO = { name: 'mcpctx-bench', version: '0' };

/** One way to reach the echo tool; `call` makes one tools/call and resolves to its result. */
export interface Path {
  readonly label: string;
  /** The process the client talks to (whose CPU time is read); undefined when it is not running. */
  readonly pid: number | undefined;
  call(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
  /** Ends the session and every process of this path; idempotent. */
  close(): Promise<void>;
}

// ---- processes: every one carries the benchmark's mark, so none can outlive the run unseen ----

/** The variable the leak check looks for (the tests' own mark; this run's value is unique). */
export function markEnv(mark: string): Record<string, string> {
  return { [TEST_MARK_NAME]: mark };
}

/**
 * Waits for every marked process to end; any left after `timeoutMs` is killed by its pid and
 * returned, so the caller can fail the run naming it.
 */
export async function endMarkedProcesses(mark: string, timeoutMs = 10_000): Promise<MarkedProcess[]> {
  const survivors = await waitForNoMarkedProcesses(timeoutMs, { mark, owner: 'any' });
  for (const survivor of survivors) {
    try {
      process.kill(survivor.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return survivors;
}

/** A launched process that is not spoken to over stdio (an HTTP server), with `env` beside the mark; shutdown ends its group. */
export function launch(args: readonly string[], mark: string, env: Record<string, string> = {}): BoundedStdioTransport {
  return new BoundedStdioTransport({ command: process.execPath, args, env: { ...markEnv(mark), ...env } }, { exitGraceMs: 500, termGraceMs: 2_000 });
}

export async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, transport: BoundedStdioTransport): Promise<T> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (transport.exit !== undefined) throw new Error(`${what}: the process exited (${JSON.stringify(transport.exit)}); stderr: ${transport.stderrTail}`);
    if (performance.now() >= deadline) throw new Error(`${what}: not ready within ${START_TIMEOUT_MS} ms; stderr: ${transport.stderrTail}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface SchedTimes {
  /** Time the process's threads ran on a CPU, in ms. */
  cpuMs: number;
  /** Time its threads were ready to run but waited for a CPU (the machine's load), in ms. */
  runQueueMs: number;
}

/**
 * What the scheduler accounted to a process so far, summed over its threads, from
 * /proc/<pid>/task/<tid>/schedstat (Linux, nanoseconds, exact rather than tick-sampled);
 * undefined elsewhere or when the process is gone.
 */
export function schedTimesOf(pid: number | undefined): SchedTimes | undefined {
  if (pid === undefined) return undefined;
  try {
    let cpuNs = 0;
    let waitNs = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      cpuNs += onCpu ?? 0;
      waitNs += waiting ?? 0;
    }
    return { cpuMs: cpuNs / 1e6, runQueueMs: waitNs / 1e6 };
  } catch {
    return undefined;
  }
}

// ---- stdio: our raw client (RawClient over BoundedStdioTransport) ----

async function stdioPath(label: string, args: readonly string[], mark: string): Promise<Path> {
  const transport = new BoundedStdioTransport({ command: process.execPath, args, env: markEnv(mark) });
  const client = new RawClient(transport);
  const path: Path = {
    label,
    get pid() {
      return transport.pid;
    },
    call: (name, callArgs, timeoutMs) => client.request('tools/call', { name, arguments: callArgs }, new Deadline(timeoutMs, name)),
    close: async () => {
      await transport.shutdown();
    },
  };
  try {
    await client.start();
    await initialize(client, { protocolVersion: PROTOCOL_VERSION, clientInfo: CLIENT_INFO, deadline: new Deadline(START_TIMEOUT_MS, 'initialize') });
  } catch (error) {
    await path.close();
    throw error;
  }
  return path;
}

/** 1. Our raw stdio client -> relay-server. */
export function directStdio(mark: string): Promise<Path> {
  return stdioPath('direct (stdio)', [RELAY_SERVER], mark);
}

/** The floor of a stdio relay: our raw stdio client -> a Node process copying bytes both ways -> relay-server. */
export function pipeRelayStdio(mark: string): Promise<Path> {
  return stdioPath('node pipe relay (stdio)', [PIPE_RELAY, '--', process.execPath, RELAY_SERVER], mark);
}

/** The gateway's arguments for one stdio upstream: the relay server, marked too (the gateway passes only named variables on). */
export function gatewayUpstream(mark: string): string[] {
  return ['--env', `${TEST_MARK_NAME}=${mark}`, '--', process.execPath, RELAY_SERVER];
}

/** 2. Our raw stdio client -> `mcpctx gateway -- node relay-server.mjs`. */
export function gatewayStdio(mark: string): Promise<Path> {
  return stdioPath('gateway (stdio)', [GATEWAY_CLI, 'gateway', ...gatewayUpstream(mark)], mark);
}

// ---- streamable HTTP: one raw client for both HTTP peers ----

interface JsonRpcMessage {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  result?: unknown;
  error?: { code?: number; message?: string };
}

interface Posted {
  status: number;
  sessionId: string | undefined;
  messages: JsonRpcMessage[];
}

/** The non-empty `data:` payloads of an SSE body, one string per event. */
function sseMessages(body: string): string[] {
  const out: string[] = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    // An event with empty data (the priming event a resumable stream starts with) carries no message.
    const payload = data.join('\n');
    if (payload.trim() !== '') out.push(payload);
  }
  return out;
}

/**
 * A small raw streamable-HTTP client: POST one JSON-RPC message, read the whole answer (JSON or
 * SSE), keep the Mcp-Session-Id. One keep-alive socket, one request in flight.
 */
export class RawHttpClient {
  readonly #url: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  #sessionId: string | undefined;
  #protocolVersion = PROTOCOL_VERSION;
  #nextId = 1;

  constructor(url: string) {
    this.#url = new URL(url);
  }

  #send(method: 'POST' | 'DELETE', body: string | undefined, timeoutMs: number): Promise<Posted> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': this.#protocolVersion };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    return new Promise<Posted>((resolve, reject) => {
      const timer = setTimeout(() => outgoing.destroy(new Error(`${method} ${this.#url.href}: no answer within ${timeoutMs} ms`)), timeoutMs);
      const outgoing = httpRequest(this.#url, { method, headers, agent: this.#agent }, (response) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_BODY_BYTES) response.destroy(new Error(`answer over ${MAX_BODY_BYTES} bytes`));
          else chunks.push(chunk);
        });
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        response.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          const type = response.headers['content-type'] ?? '';
          const header = response.headers['mcp-session-id'];
          try {
            const payloads = text === '' ? [] : type.includes('text/event-stream') ? sseMessages(text) : [text];
            const messages = payloads.flatMap((payload) => JSON.parse(payload) as JsonRpcMessage | JsonRpcMessage[]);
            resolve({ status: response.statusCode ?? 0, sessionId: typeof header === 'string' ? header : undefined, messages });
          } catch (error) {
            reject(new Error(`${method}: unreadable answer (${response.statusCode}, ${type}): ${text.slice(0, 300)}; ${(error as Error).message}`));
          }
        });
      });
      outgoing.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      outgoing.end(body);
    });
  }

  async request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const id = this.#nextId;
    this.#nextId += 1;
    const posted = await this.#send('POST', JSON.stringify({ jsonrpc: '2.0', id, method, params }), timeoutMs);
    if (posted.sessionId !== undefined) this.#sessionId = posted.sessionId;
    const answer = posted.messages.find((message) => message.id === id && message.method === undefined);
    if (posted.status !== 200 || answer === undefined) throw new Error(`${method}: HTTP ${posted.status}, no answer to id ${id}: ${JSON.stringify(posted.messages).slice(0, 300)}`);
    if (answer.error !== undefined) throw new Error(`${method}: error ${answer.error.code}: ${answer.error.message}`);
    return answer.result;
  }

  async notify(method: string, timeoutMs: number): Promise<void> {
    const posted = await this.#send('POST', JSON.stringify({ jsonrpc: '2.0', method }), timeoutMs);
    if (posted.status !== 202 && posted.status !== 200) throw new Error(`${method}: HTTP ${posted.status}`);
  }

  async initialize(timeoutMs: number): Promise<void> {
    const result = (await this.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO }, timeoutMs)) as { protocolVersion?: unknown };
    if (this.#sessionId === undefined) throw new Error('initialize: no Mcp-Session-Id');
    if (typeof result.protocolVersion === 'string') this.#protocolVersion = result.protocolVersion;
    await this.notify('notifications/initialized', timeoutMs);
  }

  /** DELETE of the session (best effort: the server may not support it), then the socket. */
  async close(timeoutMs = 5_000): Promise<void> {
    try {
      if (this.#sessionId !== undefined) await this.#send('DELETE', undefined, timeoutMs);
    } catch {
      // the process is ended next anyway
    } finally {
      this.#agent.destroy();
    }
  }
}

function httpPath(label: string, url: string, server: BoundedStdioTransport): Promise<Path> {
  const client = new RawHttpClient(url);
  const path: Path = {
    label,
    get pid() {
      return server.pid;
    },
    call: (name, args, timeoutMs) => client.request('tools/call', { name, arguments: args }, timeoutMs),
    close: async () => {
      await client.close();
      await server.shutdown();
    },
  };
  return client.initialize(START_TIMEOUT_MS).then(
    () => path,
    async (error: unknown) => {
      await path.close();
      throw error;
    },
  );
}

/** 3. The raw HTTP client -> `mcpctx gateway --http 127.0.0.1:0 -- node relay-server.mjs`. */
export async function gatewayHttp(mark: string): Promise<Path> {
  const server = launch([GATEWAY_CLI, 'gateway', '--http', '127.0.0.1:0', ...gatewayUpstream(mark)], mark);
  try {
    await server.start();
    const url = await until(() => /listening on (http:\/\/\S+)/.exec(server.stderrTail)?.[1], 'mcpctx gateway --http', server);
    return await httpPath('gateway (HTTP)', url, server);
  } catch (error) {
    await server.shutdown();
    throw error;
  }
}


function accepting(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
  });
}

/** 4. The raw HTTP client -> `mcp-proxy --port P -- node relay-server.mjs` (streamable HTTP only, its other defaults kept). */
export async function mcpProxyHttp(mark: string): Promise<Path> {
  const port = await freePort();
  const server = launch([MCP_PROXY_BIN, '--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--', process.execPath, RELAY_SERVER], mark);
  try {
    await server.start();
    await until(() => accepting(port), 'mcp-proxy', server);
    return await httpPath('mcp-proxy (HTTP)', `http://127.0.0.1:${port}/mcp`, server);
  } catch (error) {
    await server.shutdown();
    throw error;
  }
}
