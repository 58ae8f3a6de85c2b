// runServer's whileClosing: the caller's own last step runs while the server shuts down (the
// server has been told to stop before it starts), within the run's deadline, and what it throws is
// the run's error; the server is shut down either way.
import { afterAll, describe, expect, it } from 'vitest';
import { runServer } from '../../src/mcp/index.js';
import { SCRIPTED_SERVER, findMarkedProcesses, isPidAlive, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const OPTIONS = {
  launch: { command: process.execPath, args: [SCRIPTED_SERVER, 'normal'], env: markedEnv() },
  protocolVersion: '2025-06-18',
  clientCapabilities: {},
  timeoutMs: 20_000,
  label: 'test run',
};
/** How long whileClosing below waits, at most, for the server to be gone. */
const EXIT_WAIT_MS = 10_000;

/** Blocks this thread (as a synchronous count would) for up to `ms`, until `done` holds. */
function blockUntil(done: () => boolean, ms: number): boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (done()) return true;
    Atomics.wait(pause, 0, 0, 20);
  }
  return done();
}

describe('runServer with whileClosing', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('runs once the server was told to stop: the server exits while it runs, and its value is the run value', async () => {
    let serverPid: number | undefined;
    const run = await runServer(
      OPTIONS,
      async () => {
        const [server] = await findMarkedProcesses(undefined, { owner: process.pid });
        serverPid = server?.pid;
        return 'listed';
      },
      (value) => {
        const pid = serverPid;
        if (pid === undefined) throw new Error('the server process was not found');
        // The server exits only at the end of its input: seen gone from inside this synchronous
        // step, it was told to stop before the step began.
        return { value, goneWhileClosing: blockUntil(() => !isPidAlive(pid), EXIT_WAIT_MS) };
      },
    );
    expect(run.error).toBeUndefined();
    expect(run.value).toEqual({ value: 'listed', goneWhileClosing: true });
    expect(run.exit).toEqual({ code: 0, signal: null });
  });

  it('reports what it throws as the error of the work step, and still shuts the server down', async () => {
    const run = await runServer(
      OPTIONS,
      async () => 'listed',
      () => {
        throw new Error('counting failed');
      },
    );
    expect(run.value).toBeUndefined();
    expect(run.failedStep).toBe('work');
    expect(run.error?.message).toContain('counting failed');
    expect(run.exit).toEqual({ code: 0, signal: null });
  });

  it('is skipped when the work failed', async () => {
    let ran = false;
    const run = await runServer(
      OPTIONS,
      async () => {
        throw new Error('listing failed');
      },
      () => {
        ran = true;
        return 'counted';
      },
    );
    expect(ran).toBe(false);
    expect(run.error?.message).toContain('listing failed');
    expect(run.failedStep).toBe('work');
  });
});
