// Processes die with us (C of issue 10): what a server starts is ended at shutdown even when it
// left the process group (setsid, a daemon's double fork, a cleared environment), and a program
// that uses the library gets its servers killed when it is signalled.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BoundedStdioTransport, Deadline, RawClient, initialize } from '../../src/mcp/index.js';
import { SCRIPTED_SERVER, isPidAlive, markedEnv, pollUntil, waitForNoMarkedProcesses } from '../support/processes.js';
import { PROJECT_ROOT } from '../support/real-servers.js';

const HOST = `${PROJECT_ROOT}test/support/library-signal-host.mjs`;
const DIST_MCP = `${PROJECT_ROOT}dist/mcp/index.js`;


function reportedPids(stderr: string): Map<string, number> {
  return new Map([...stderr.matchAll(/(setsid|daemon|env-cleared) pid (\d+)/g)].map((match) => [match[1] ?? '', Number(match[2])]));
}

/** SIGKILLs what a failed assertion would leave behind (the env-cleared one escapes the leak check). */
function cleanUp(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

describe('shutdown ends everything the server started', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('a setsid child, a double-forked daemon and a child with no environment in its own session', async () => {
    const transport = new BoundedStdioTransport({ command: process.execPath, args: [SCRIPTED_SERVER, 'escapees'], env: markedEnv() });
    const client = new RawClient(transport);
    let pids = new Map<string, number>();
    try {
      await client.start();
      await initialize(client, { deadline: new Deadline(20_000, 'initialize') });
      await pollUntil(() => (pids = reportedPids(transport.stderrTail)).size === 3, 20_000);
      expect([...pids.keys()].sort()).toEqual(['daemon', 'env-cleared', 'setsid']);
      for (const pid of pids.values()) expect(isPidAlive(pid)).toBe(true);
    } finally {
      await transport.shutdown();
    }
    const alive = [...pids.entries()].filter(([, pid]) => isPidAlive(pid));
    cleanUp(pids.values());
    expect(alive).toEqual([]);
  });
});

interface HostRun {
  pids: number[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal: (signal: NodeJS.Signals) => void;
}

async function startHost(mode: string[] = []): Promise<HostRun> {
  const host = spawn(process.execPath, [HOST, DIST_MCP, SCRIPTED_SERVER, ...mode], { env: markedEnv({ PATH: process.env.PATH ?? '' }), stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => host.once('exit', (code, signal) => resolve({ code, signal })));
  let out = '';
  let err = '';
  host.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  host.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const ready = await pollUntil(() => out.includes('\n'), 30_000);
  if (!ready) {
    host.kill('SIGKILL');
    throw new Error(`the host never got ready; stderr: ${err}`);
  }
  const pids = (out.match(/^ready ([\d ]+)/)?.[1] ?? '').trim().split(' ').map(Number);
  return { pids, exit, signal: (signal) => host.kill(signal) };
}

describe('a program using the library is signalled', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it.each([['SIGTERM'], ['SIGINT'], ['SIGHUP']] as const)('%s: the server and what it started die, and the program dies of the signal as it would have', async (signal) => {
    const host = await startHost();
    expect(host.pids).toHaveLength(3); // the server, its setsid child, its daemon
    host.signal(signal);
    const exit = await host.exit;
    const gone = await pollUntil(() => host.pids.every((pid) => !isPidAlive(pid)), 10_000);
    cleanUp(host.pids);
    expect(exit).toEqual({ code: null, signal });
    expect(gone).toBe(true);
  });

  it('a program that handles SIGTERM itself keeps that job; its exit still ends the servers', async () => {
    const host = await startHost(['own-handler']);
    host.signal('SIGTERM');
    const exit = await host.exit;
    const gone = await pollUntil(() => host.pids.every((pid) => !isPidAlive(pid)), 10_000);
    cleanUp(host.pids);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(gone).toBe(true);
  });
});
