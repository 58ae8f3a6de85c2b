import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';

/**
 * What a server starts may leave its process group (`setsid`, `detached: true`, a daemon's double
 * fork), so signalling the group is not enough. On Linux, every server is followed through /proc:
 * - its descendants (by parent pid) are recorded while it runs, by a poll shared by all servers,
 *   each with its start time so that a reused pid is never signalled;
 * - it is launched with a random tag in its environment (`MCPCTX_SERVER_TAG`), which every
 *   descendant inherits unless it clears its environment; at shutdown every process carrying the
 *   tag is found, however it was reparented.
 * What escapes: a descendant that clears its environment AND leaves its parent between two polls;
 * processes of another user; anything on a system without /proc (there only the group is ended).
 */
export const SERVER_TAG_NAME = 'MCPCTX_SERVER_TAG';

/** How often live servers' descendants are looked for. */
const POLL_MS = 500;
/** Stat files the background poll reads between two turns of the event loop (about 0.25 ms of reads). */
const POLL_SLICE = 4;

export interface ProcEntry {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgrp: number;
  /** Start time in clock ticks since boot: with the pid, identifies one process for its lifetime. */
  startTime: string;
  state: string;
}

/** A snapshot of /proc, or undefined where there is no /proc. */
export function readProcTable(): Map<number, ProcEntry> | undefined {
  const pids = procPids();
  if (!pids) return undefined;
  const table = new Map<number, ProcEntry>();
  for (const pid of pids) {
    const entry = readStat(pid);
    if (entry) table.set(entry.pid, entry);
  }
  return table;
}

/**
 * The same snapshot read a few stat files at a time, yielding to the event loop in between: each
 * read is a syscall (about 60 us each in a VM), so a whole scan of 120 processes held the loop
 * for 8 ms every POLL_MS, and every message relayed meanwhile (a gateway's) waited for it.
 */
async function readProcTableInSlices(): Promise<Map<number, ProcEntry> | undefined> {
  const pids = procPids();
  if (!pids) return undefined;
  const table = new Map<number, ProcEntry>();
  for (let index = 0; index < pids.length; index += 1) {
    if (index > 0 && index % POLL_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const entry = readStat(pids[index] as number);
    if (entry) table.set(entry.pid, entry);
  }
  return table;
}

function procPids(): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  return names.filter((name) => /^\d+$/.test(name)).map(Number);
}

function readStat(pid: number): ProcEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  // "pid (comm) state ppid pgrp ... starttime(22nd)": comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  const startTime = fields[19] ?? '';
  return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), startTime, state };
}

function hasTag(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return false; // gone, or not ours to read
  }
}

/** Running, not a zombie (a zombie has exited and only awaits its parent's reaping). */
export function isLive(entry: ProcEntry | undefined): entry is ProcEntry {
  return entry !== undefined && entry.state !== 'Z' && entry.state !== 'X';
}

/** Every process below `roots` in `table` (roots excluded). */
function descendantsOf(roots: Iterable<number>, table: Map<number, ProcEntry>): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table.values()) {
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const found: ProcEntry[] = [];
  const seen = new Set<number>();
  const stack = [...roots];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      stack.push(child.pid);
    }
  }
  return found;
}

const liveTrees = new Set<ProcessTree>();
let poller: NodeJS.Timeout | undefined;
/** A background scan is under way (a slow one is not overlapped by the next). */
let polling = false;

async function pollAll(): Promise<void> {
  if (polling) return;
  polling = true;
  try {
    const table = await readProcTableInSlices();
    if (!table) return;
    for (const tree of liveTrees) tree.record(table);
  } finally {
    polling = false;
  }
}

/** The processes one server started, followed until the server is shut down. */
export class ProcessTree {
  /** The env entry the server and its descendants carry: `MCPCTX_SERVER_TAG=<random>`. */
  readonly tag: { name: string; value: string } = { name: SERVER_TAG_NAME, value: randomBytes(12).toString('hex') };
  private root: ProcEntry | undefined;
  private readonly seen = new Map<number, string>();

  /** Starts following `pid` (the server, just spawned). */
  follow(pid: number): void {
    this.root = readStat(pid) ?? { pid, ppid: process.pid, pgrp: pid, startTime: '', state: 'R' };
    liveTrees.add(this);
    poller ??= setInterval(() => void pollAll(), POLL_MS).unref();
  }

  /** Records the server's current descendants from a /proc snapshot. */
  record(table: Map<number, ProcEntry>): void {
    if (!this.root) return;
    const roots = [this.root.pid, ...this.seen.keys()].filter((pid) => this.isSame(table.get(pid)));
    for (const entry of descendantsOf(roots, table)) this.seen.set(entry.pid, entry.startTime);
  }

  /** Records the server's current descendants now (no environment is read: cheap enough to call before every kill). */
  recordNow(): void {
    const table = readProcTable();
    if (table) this.record(table);
  }

  /** Stops following (the server and everything found are gone, or given up on). */
  release(): void {
    liveTrees.delete(this);
    if (liveTrees.size === 0 && poller) {
      clearInterval(poller);
      poller = undefined;
    }
  }

  /**
   * Every live process that belongs to this server, the server itself included: recorded
   * descendants, processes carrying the tag, and their descendants. Empty without /proc.
   */
  members(): ProcEntry[] {
    const table = readProcTable();
    if (!table) return [];
    this.record(table);
    const tagEntry = `${this.tag.name}=${this.tag.value}`;
    const members = new Map<number, ProcEntry>();
    for (const entry of table.values()) {
      if (!isLive(entry) || entry.pid === process.pid) continue;
      const recorded = this.seen.get(entry.pid) === entry.startTime || this.isSame(entry);
      if (recorded || hasTag(entry.pid, tagEntry)) members.set(entry.pid, entry);
    }
    for (const entry of descendantsOf(members.keys(), table)) if (isLive(entry)) members.set(entry.pid, entry);
    members.delete(process.pid);
    return [...members.values()];
  }

  /** Sends SIGKILL to every member at once. Synchronous, for exit hooks. */
  killAllNow(): void {
    signalEach(this.members(), 'SIGKILL');
  }

  /**
   * Ends every member: SIGTERM, then SIGKILL to what is left after `graceMs`. Looked for again
   * a few times, because a member may fork while it is being killed. True when none is left.
   */
  async endAll(graceMs: number): Promise<boolean> {
    let targets = this.members();
    signalEach(targets, 'SIGTERM');
    for (let round = 0; round < 5 && targets.length > 0; round += 1) {
      const waiting = targets;
      await waitUntil(() => waiting.every((entry) => !isSameProcess(readStat(entry.pid), entry)), round === 0 ? graceMs : 200);
      targets = this.members();
      signalEach(targets, 'SIGKILL');
    }
    return targets.length === 0;
  }

  private isSame(entry: ProcEntry | undefined): boolean {
    const root = this.root;
    return root !== undefined && entry !== undefined && entry.pid === root.pid && (root.startTime === '' || entry.startTime === root.startTime);
  }
}

/** `now` is still the live process `then` was (a reused pid has another start time). */
function isSameProcess(now: ProcEntry | undefined, then: ProcEntry): boolean {
  return isLive(now) && now.startTime === then.startTime;
}

function signalEach(entries: readonly ProcEntry[], signal: NodeJS.Signals): void {
  for (const { pid } of entries) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile, or not ours
    }
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!done() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
}
