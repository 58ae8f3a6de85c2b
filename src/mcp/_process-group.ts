import { readFileSync, readdirSync } from 'node:fs';

/**
 * Process-group signalling. Servers run as group leaders (spawned detached), so a signal to the
 * negative pid reaches everything they started that stayed in the group.
 */

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

/**
 * True while a live process of the group remains. A killed member whose new parent never reaps
 * it (PID 1 in many containers) stays a zombie and still takes signals, so on Linux the members'
 * states are read from /proc and zombies do not count.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const members = liveMembersFromProc(pgid);
  return members === undefined ? true : members > 0;
}

function liveMembersFromProc(pgid: number): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined; // no /proc: trust the signal probe
  }
  let live = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses; read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') live += 1;
  }
  return live;
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

