// A real load balancer for the scale-out tests and bench: Debian's haproxy on loopback, routing each
// MCP session to the instance that opened it by its Mcp-Session-Id header (a stick table learns the
// id from the initialize response), round robin for new sessions, and re-dispatching to a live
// instance when a session's own is down (that instance answers 404, and the client initializes again).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { markedEnv } from './processes.js';

export { freePort };

const HAPROXY = '/usr/sbin/haproxy';

export function haproxyPath(): string | undefined {
  return existsSync(HAPROXY) ? HAPROXY : undefined;
}

export const HAPROXY_MISSING = 'haproxy is not installed: apt-get install haproxy (.ci/run does)';

export interface Balancer {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** The haproxy config: sessions stick to their instance by Mcp-Session-Id; a down instance's sessions go elsewhere. */
export function haproxyConfig(port: number, backends: readonly number[], options: { maxconn?: number } = {}): string {
  return [
    'global',
    `  maxconn ${options.maxconn ?? 2048}`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    // A request whose instance refuses the connection is retried, the last time on another instance.
    '  retries 2',
    '  option redispatch',
    '  option forwardfor',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend gateways',
    'backend gateways',
    '  balance roundrobin',
    '  stick-table type string len 64 size 100k expire 30m',
    '  stick on req.hdr(mcp-session-id)',
    '  stick store-response res.hdr(mcp-session-id)',
    ...backends.map((backend, index) => `  server g${index + 1} 127.0.0.1:${backend} check inter 300ms fall 2 rise 1`),
    '',
  ].join('\n');
}

/** Starts haproxy in the foreground (marked for the leak check) and waits until it accepts connections. */
/** `port`: where it listens (default a free one). `env`: the process's environment; default the test mark (markedEnv), which a bench replaces with its own. */
export async function startHaproxy(backends: readonly number[], options: { maxconn?: number; env?: Record<string, string>; port?: number } = {}): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-haproxy-'));
  // Given when the instances must know it before it starts (their --allow-host names it: clients send it in Host).
  const port = options.port ?? (await freePort());
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig(port, backends, options));
  const child = spawn(HAPROXY, ['-db', '-f', file], { env: options.env ?? markedEnv({ PATH: process.env.PATH ?? '' }), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, child, () => stderr);
  } catch (error) {
    await stopChild(child, exited);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    stop: async () => {
      await stopChild(child, exited);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const { connect } = await import('node:net');
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`haproxy did not listen on ${port} within 10 s: ${stderr()}`);
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(killed);
}
