import type { MeasuredWith } from '../_model.js';

/** What changed between two sides besides the bytes: each part null when it did not. */
export interface ConditionsChange {
  /** The differing words of the launch (`@x/y@1.0.0` → `@x/y@2.0.0`); the words both share are left out. */
  launch: { before: string; after: string } | null;
  cwd: { before: string | null; after: string | null } | null;
  serverVersion: { before: string | null; after: string | null } | null;
}

/**
 * The launch and version change between two sides; 'unavailable' when a side has none on record
 * (a vector written before they were kept), so silence is never read as "unchanged".
 */
export function conditionsChange(before: MeasuredWith | undefined, after: MeasuredWith | undefined): ConditionsChange | 'unavailable' {
  if (before === undefined || after === undefined) return 'unavailable';
  return {
    launch: launchDifference(before.launch, after.launch),
    cwd: before.cwd === after.cwd ? null : { before: before.cwd, after: after.cwd },
    serverVersion: before.serverVersion === after.serverVersion ? null : { before: before.serverVersion, after: after.serverVersion },
  };
}

/** The words between the longest shared prefix and suffix, on each side; null when the launches are the same. */
function launchDifference(before: readonly string[], after: readonly string[]): { before: string; after: string } | null {
  if (before.length === after.length && before.every((word, index) => word === after[index])) return null;
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  return { before: before.slice(start, before.length - end).join(' '), after: after.slice(start, after.length - end).join(' ') };
}

/** `launch changed: a → b; server version 1.0.0 → 2.0.0`; '' when nothing changed. */
export function conditionsText(change: ConditionsChange | 'unavailable'): string {
  if (change === 'unavailable') return 'launch and server version not on record for both sides';
  const said: string[] = [];
  if (change.launch !== null) said.push(`launch changed: ${shown(change.launch.before)} → ${shown(change.launch.after)}`);
  if (change.cwd !== null) said.push(`launch folder ${shown(change.cwd.before)} → ${shown(change.cwd.after)}`);
  if (change.serverVersion !== null) said.push(`server version ${shown(change.serverVersion.before)} → ${shown(change.serverVersion.after)}`);
  return said.join('; ');
}

function shown(text: string | null): string {
  return text === null ? 'none' : text === '' ? '(nothing)' : text;
}
