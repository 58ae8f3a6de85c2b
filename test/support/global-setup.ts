// Vitest globalSetup: one id per run, inherited by the workers (testMark()); at the end, every
// process launched with markedEnv() must be gone, else it is killed and the run fails.
import { randomUUID } from 'node:crypto';
import { waitForNoMarkedProcesses } from './processes.js';

export default function setup(): () => Promise<void> {
  const runId = `run-${randomUUID()}`;
  process.env.MCPCTX_TEST_RUN_ID = runId;

  return async function teardown(): Promise<void> {
    const survivors = await waitForNoMarkedProcesses(5000, { mark: runId, owner: 'any' });
    if (survivors.length === 0) return;
    for (const { pid } of survivors) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    // Vitest 4 only logs an error thrown here ("error during close") and still exits 0.
    process.exitCode = 1;
    const list = survivors.map(({ pid, cmdline }) => `  pid ${pid}: ${cmdline}`).join('\n');
    throw new Error(`${survivors.length} process(es) launched by tests outlived the run (now SIGKILLed):\n${list}`);
  };
}
