/**
 * How `verifyReceipt` reports: every mismatch is one problem naming its JSON path, the recorded
 * value and the recomputed one; a part of the receipt too broken to check is one problem naming
 * its path, never an exception.
 */
import { isPlainObject, ownValue } from '../../json/index.js';
import { shown as shownUpTo } from './_shown.js';

const SHOWN_CHARS = 120;
/** Mismatches listed per compared value: a tampered array should not bury the rest. */
const MAX_DIFFERENCES = 20;
/** Past this depth two values are compared as JSON text. */
const MAX_WALK_DEPTH = 64;

/** How a difference names its two sides. */
export interface Words {
  recorded: string;
  recomputed: string;
}
const RECORDED_RECOMPUTED: Words = { recorded: 'recorded', recomputed: 'recomputed' };

export class Problems {
  readonly list: string[] = [];

  add(problem: string): void {
    this.list.push(problem);
  }

  /**
   * `path: recorded X, recomputed Y` when the values differ as JSON (key order and absent keys
   * aside); `words` names the two sides otherwise (e.g. what was sent, what the receipt makes).
   */
  compare(path: string, recorded: unknown, recomputed: unknown, words: Words = RECORDED_RECOMPUTED): boolean {
    const found: string[] = [];
    walk(recorded, recomputed, path, found, 0, words);
    for (const problem of found.slice(0, MAX_DIFFERENCES)) this.list.push(problem);
    if (found.length > MAX_DIFFERENCES) this.list.push(`${path}: ${found.length - MAX_DIFFERENCES} more differences not listed`);
    return found.length === 0;
  }

  /** Runs one check; a value in the wrong shape becomes a problem at `path` instead of an exception. */
  guard(path: string, check: () => void): void {
    try {
      check();
    } catch (error) {
      this.list.push(`${path}: cannot be checked: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function walk(recorded: unknown, recomputed: unknown, path: string, found: string[], depth: number, words: Words): void {
  if (found.length > MAX_DIFFERENCES) return;
  if (depth > MAX_WALK_DEPTH) {
    if (jsonOf(recorded) !== jsonOf(recomputed)) found.push(mismatch(path, recorded, recomputed, words));
    return;
  }
  if (Array.isArray(recorded) && Array.isArray(recomputed)) {
    if (recorded.length !== recomputed.length) {
      found.push(`${path}: ${words.recorded} ${recorded.length} items, ${words.recomputed} ${recomputed.length} (${words.recorded} ${shown(recorded)}, ${words.recomputed} ${shown(recomputed)})`);
      return;
    }
    recorded.forEach((item, index) => walk(item, recomputed[index], `${path}[${index}]`, found, depth + 1, words));
    return;
  }
  if (isPlainObject(recorded) && isPlainObject(recomputed)) {
    const keys = new Set([...Object.keys(recorded), ...Object.keys(recomputed)]);
    for (const key of keys) walk(ownValue(recorded, key), ownValue(recomputed, key), `${path}.${key}`, found, depth + 1, words);
    return;
  }
  if (recorded !== recomputed) found.push(mismatch(path, recorded, recomputed, words));
}

function mismatch(path: string, recorded: unknown, recomputed: unknown, words: Words): string {
  return `${path}: ${words.recorded} ${shown(recorded)}, ${words.recomputed} ${shown(recomputed)}`;
}

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch {
    return undefined;
  }
}

/** A value as JSON, cut to 120 characters; `absent` for undefined. */
export function shown(value: unknown): string {
  return shownUpTo(value, SHOWN_CHARS);
}
