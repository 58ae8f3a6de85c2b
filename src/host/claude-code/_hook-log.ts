import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { PRIVATE_FILE_MODE } from '../../private-file/index.js';

/** One line of the hook's log: what was done to one call's result, never the result. */
export interface HookLogEntry {
  readonly time: string;
  /** Claude Code's tool name (`mcp__prs__list_pull_requests`). */
  readonly tool?: string;
  readonly toolUseId?: string;
  readonly server?: string;
  /**
   * The shaper's action (passed, projected, offloaded, refused, host-notice, not-a-result), or
   * not-mcp (a built-in tool), read-result (read_result's own pages, never shaped), bad-input
   * (stdin not the hook's JSON), failed (rules or store unusable: the result went as it came).
   */
  readonly action: string;
  readonly form?: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  readonly handle?: string;
  /** Claude Code's own notice, when its limit fired before the hook: passed through untouched, reported here. */
  readonly notice?: { host: string; text: string; file?: string; characters?: number; tokens?: number };
  readonly reason?: string;
}

/** Appends the entry as one JSON line to a 0600 file; returns what went wrong instead of throwing (a log must not stop the hook). */
export function appendHookLog(file: string, entry: HookLogEntry): string | undefined {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: PRIVATE_FILE_MODE });
    return undefined;
  } catch (error) {
    return `cannot append to the hook log ${file}: ${(error as Error).message}`;
  }
}
