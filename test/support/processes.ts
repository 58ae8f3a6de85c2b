// Leak detection for tests that start processes. Every server a test launches gets
// MCPCTX_TEST_MARK=<run id> in its environment (markedEnv); children inherit it, so scanning
// /proc/<pid>/environ finds the server, its grandchildren and anything else it left behind.
// Vitest workers inherit MCPCTX_TEST_RUN_ID but not the mark, so they are never flagged.
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const TEST_MARK_NAME = 'MCPCTX_TEST_MARK';

/** Pid of the vitest worker that launched a marked process (so a file can check only its own). */
export const TEST_OWNER_NAME = 'MCPCTX_TEST_OWNER';

export const SCRIPTED_SERVER: string = fileURLToPath(new URL('../servers/scripted-server.mjs', import.meta.url));

export interface MarkedProcess {
  pid: number;
  cmdline: string;
}

// Not the bare pid: env values are scrubbed from notes and stderr, and a pid such as 1500 would
// turn "1500 ms" in a note into a redaction marker.
function ownerValue(pid: number): string {
  return `worker-${pid}`;
}

export function testMark(): string {
  const mark = process.env.MCPCTX_TEST_RUN_ID;
  if (mark === undefined || mark === '') {
    throw new Error('MCPCTX_TEST_RUN_ID is not set: run tests through vitest with test/support/global-setup.ts');
  }
  return mark;
}

/** The env for every process a test launches (add PATH etc. through `extra`). */
export function markedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { [TEST_MARK_NAME]: testMark(), [TEST_OWNER_NAME]: ownerValue(process.pid), ...extra };
}

export interface FindOptions {
  /** Only processes launched (directly or not) by this worker pid; default: any owner. */
  owner?: number;
}

/** Processes whose environment holds exactly `MCPCTX_TEST_MARK=<mark>`, excluding this one. */
export async function findMarkedProcesses(mark = testMark(), options: FindOptions = {}): Promise<MarkedProcess[]> {
  const markEntry = `${TEST_MARK_NAME}=${mark}`;
  const ownerEntry = options.owner === undefined ? undefined : `${TEST_OWNER_NAME}=${ownerValue(options.owner)}`;
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const found = await Promise.all(
    pids.map(async (pid): Promise<MarkedProcess | undefined> => {
      if (pid === process.pid) return undefined;
      try {
        const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
        if (!environ.includes(markEntry)) return undefined;
        if (ownerEntry !== undefined && !environ.includes(ownerEntry)) return undefined;
        const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
        return { pid, cmdline };
      } catch {
        return undefined; // vanished, or not ours to read
      }
    }),
  );
  return found.filter((p): p is MarkedProcess => p !== undefined);
}

export interface WaitOptions {
  mark?: string;
  /** Whose processes count: a worker pid, or 'any'. Default: this worker (process.pid). */
  owner?: number | 'any';
}

/**
 * Polls until no marked process remains or `timeoutMs` passes; returns the survivors ([] = clean).
 * By default only processes launched from this worker count, because other test files run in
 * parallel workers with live servers of their own; the global teardown checks the whole run.
 */
export async function waitForNoMarkedProcesses(timeoutMs = 5000, options: WaitOptions = {}): Promise<MarkedProcess[]> {
  const owner = options.owner ?? process.pid;
  const find: FindOptions = owner === 'any' ? {} : { owner };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const survivors = await findMarkedProcesses(options.mark ?? testMark(), find);
    if (survivors.length === 0 || Date.now() >= deadline) return survivors;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** True while `pid` exists and is not a zombie (a zombie has exited; it only awaits reaping). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) throw new RangeError(`not a pid: ${pid}`);
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ..."; comm may hold spaces and parentheses, so look after the last ')'.
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false; // gone between the two checks
  }
}

/** Polls `probe` every 20 ms until it holds (true) or `timeoutMs` passes (false). */
export async function pollUntil(probe: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    if (probe()) return true;
    if (performance.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
