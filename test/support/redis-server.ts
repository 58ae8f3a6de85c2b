// A real redis-server for the shared-state tests: on 127.0.0.1 and a free port, no persistence
// (unless persistDir),
// spawned with markedEnv() so the run's leak check finds it. stop() ends it (SIGTERM, then SIGKILL
// after a bound) and awaits its exit; restart() starts it again on the same port, empty.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedis, parseStateUrl, type RedisConnection } from '../../src/gateway/state/index.js';
import { freePort } from './free-port.js';
import { markedEnv } from './processes.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const READY_WAIT_MS = 10_000;
const STOP_WAIT_MS = 5_000;

/** The redis-server binary, or undefined when it is not installed. */
export function redisServerPath(): string | undefined {
  return existsSync(REDIS_SERVER) ? REDIS_SERVER : undefined;
}

export const REDIS_SKIP_MESSAGE = 'redis-server is not installed: apt-get install redis-server (.ci/run does)';

export interface RedisServer {
  /** redis://127.0.0.1:PORT/0 (no password in it, even with requirepass). */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

export interface RedisServerOptions {
  /** AUTH for the default user (`--requirepass`). */
  readonly requirePass?: string;
  /** Keep the data across restart() in an append-only file in this folder (the caller's: never removed). Default: none kept. */
  readonly persistDir?: string;
  /** The process's environment; default the test mark (markedEnv), which a bench replaces with its own. */
  readonly env?: Record<string, string>;
}

/** True when something on `port` answers PING like Redis (+PONG, or -NOAUTH with a password set). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(/^[+-]/.test(data.toString('utf8'))));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = redisServerPath();
  if (binary === undefined) throw new Error(REDIS_SKIP_MESSAGE);
  const port = await freePort();
  const dir = options.persistDir ?? mkdtempSync(join(tmpdir(), 'mcpctx-redis-'));
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    mkdirSync(dir, { recursive: true }); // stop() removed it; restart() after stop() makes it again
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', options.persistDir === undefined ? 'no' : 'yes', '--dir', dir, '--loglevel', 'warning'];
    if (options.requirePass !== undefined) args.push('--requirepass', options.requirePass);
    const spawned = spawn(binary, args, { env: options.env ?? markedEnv({ PATH: process.env.PATH ?? '' }), stdio: ['ignore', 'pipe', 'pipe'] });
    child = spawned;
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = `${output}${chunk.toString('utf8')}`.slice(-4_000);
    };
    spawned.stdout?.on('data', keep);
    spawned.stderr?.on('data', keep);
    const deadline = Date.now() + READY_WAIT_MS;
    for (;;) {
      if (spawned.exitCode !== null || spawned.signalCode !== null) throw new Error(`redis-server on port ${port} exited at start: ${output}`);
      if (await answersPing(port)) return;
      if (Date.now() >= deadline) {
        await stop();
        throw new Error(`redis-server on port ${port} did not answer PING within ${READY_WAIT_MS} ms: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const stop = async (): Promise<void> => {
    const running = child;
    if (running === undefined) return;
    child = undefined;
    const gone = exited(running);
    running.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        running.kill('SIGKILL');
        resolve();
      }, STOP_WAIT_MS);
    });
    await Promise.race([gone, killed]);
    clearTimeout(timer);
    await gone;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    async stop() {
      await stop();
      if (options.persistDir === undefined) rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stop();
      await start();
    },
  };
}

/** A redis-server and two connections to it: two gateway instances on one shared state. */
export interface RedisPair {
  readonly server: RedisServer;
  readonly first: RedisConnection;
  readonly second: RedisConnection;
}

export async function startRedisPair(): Promise<RedisPair> {
  const server = await startRedisServer();
  const first = await connectRedis(parseStateUrl(server.url));
  const second = await connectRedis(parseStateUrl(server.url));
  return { server, first, second };
}

/** Closes both connections and stops the server (a pair that never started is nothing to stop). */
export async function stopRedisPair(pair: Partial<RedisPair>): Promise<void> {
  await pair.first?.close();
  await pair.second?.close();
  await pair.server?.stop();
}
