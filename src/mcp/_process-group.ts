import { isLive, readProcTable } from './_process-tree.js';

/**
 * Process-group signalling. Servers run as group leaders (spawned detached), so a signal to the
 * negative pid reaches everything they started that stayed in the group.
 */

/** Sends `signal` to the group; false when no process of ours is left in it. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: none left. EPERM: the group id now belongs to someone else's processes, not ours.
    return false;
  }
}

/**
 * True while a live process of the group remains. A killed member whose new parent never reaps
 * it (PID 1 in many containers) stays a zombie and still takes signals, so on Linux the members'
 * states are read from /proc and zombies do not count.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const table = readProcTable();
  return table === undefined || [...table.values()].some((entry) => entry.pgrp === pgid && isLive(entry));
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
