/**
 * Process-group signalling. Servers run as group leaders (spawned detached), so a signal to the
 * negative pid reaches everything they started.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Sends `signal` to the group; false when no process of the group is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/** Polls until no process of the group is left, or `timeoutMs` passes. True when gone. */
export async function waitForGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (performance.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * If our own process exits while a server group is still up (Ctrl-C, a crash), kill the group:
 * detached servers do not get the terminal's signals, so nobody else would.
 */
export function killGroupOnExit(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}

export function releaseGroupOnExit(pgid: number): void {
  liveGroups.delete(pgid);
}
