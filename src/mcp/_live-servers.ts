import { signalGroup } from './_process-group.js';
import type { ProcessTree } from './_process-tree.js';

/**
 * Servers that are running now. Detached servers do not get the terminal's signals, so if our
 * process ends first nobody else would end them: on `exit`, and on SIGINT/SIGTERM/SIGHUP when
 * nothing else in the program handles that signal, every live server's group and process tree is
 * killed (SIGKILL: there is no time for grace). A program that handles those signals itself keeps
 * that job: it should shut its servers down (or exit, which runs the exit hook).
 */
export interface LiveServer {
  pgid: number;
  tree: ProcessTree;
}

const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
// Shared by every copy of this module in the process (two installed versions of mcpctx), so that
// one copy's hook never counts another's as "the program handles this signal".
const OUR_HOOK = Symbol.for('mcpctx.live-servers.signal-hook');

const live = new Set<LiveServer>();
let exitHookInstalled = false;
const signalHooks = new Map<NodeJS.Signals, () => void>();

export function registerLiveServer(server: LiveServer): void {
  live.add(server);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killLiveServers);
  }
  if (signalHooks.size === 0) installSignalHooks();
}

export function unregisterLiveServer(server: LiveServer): void {
  live.delete(server);
  if (live.size === 0) removeSignalHooks();
}

/** Kills every live server's group and tree now (synchronous). */
export function killLiveServers(): void {
  for (const server of live) {
    signalGroup(server.pgid, 'SIGKILL');
    server.tree.killAllNow();
  }
}

function installSignalHooks(): void {
  for (const signal of EXIT_SIGNALS) {
    const hook = Object.assign(
      () => {
        const handledElsewhere = process.listeners(signal).some((listener) => !(OUR_HOOK in listener));
        if (handledElsewhere) return;
        killLiveServers();
        removeSignalHooks();
        // Nothing else listens: let the signal do what it would have done without us.
        process.kill(process.pid, signal);
      },
      { [OUR_HOOK]: true },
    );
    signalHooks.set(signal, hook);
    process.on(signal, hook);
  }
}

function removeSignalHooks(): void {
  for (const [signal, hook] of signalHooks) process.removeListener(signal, hook);
  signalHooks.clear();
}
