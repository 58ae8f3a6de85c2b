import { childPath, type Problems } from '../../config/index.js';
import { nearestName } from '../../text/index.js';

/** Keys named in one note; the rest are counted. */
const NAMED_KEYS = 12;

/**
 * The keys of `object` that are not `own`, sorted into mistakes and foreign settings. A gateway
 * config is often a client's whole file (Claude Desktop's, VS Code's, Cline's), which holds the
 * client's own settings beside the servers; a typo of one of the gateway's keys looks like none of
 * those. So a key within an edit or two of one of `own` (`capToken`, `comand`) is a problem with
 * the key it was likely meant to be, a key listed in `misplaced` (a tool rule written at the top)
 * is a problem with where it belongs, and any other key is returned: ignored, for a note.
 */
export function foreignKeys(
  object: Readonly<Record<string, unknown>>,
  own: readonly string[],
  path: string,
  problems: Problems,
  misplaced: Readonly<Record<string, string>> = {},
): string[] {
  const ignored: string[] = [];
  for (const key of Object.keys(object)) {
    if (own.includes(key)) continue;
    const at = childPath(path, key);
    const meant = nearestName(key, own);
    if (meant !== undefined) problems.add(at, `unknown key; did you mean ${meant}? (allowed here: ${own.join(', ')})`);
    else if (Object.hasOwn(misplaced, key)) problems.add(at, misplaced[key] ?? 'does not belong here');
    else ignored.push(key);
  }
  return ignored;
}

/**
 * One note for the keys `foreignKeys` returned: `where: a (what a is), b, c: not gateway
 * settings, ignored`, with what each known one is for.
 */
export function ignoredKeysNote(where: string, keys: readonly string[], known: Readonly<Record<string, string>>): string | undefined {
  if (keys.length === 0) return undefined;
  const named = keys.slice(0, NAMED_KEYS).map((key) => (Object.hasOwn(known, key) ? `${key} (${known[key] ?? ''})` : key));
  const more = keys.length > NAMED_KEYS ? ` and ${keys.length - NAMED_KEYS} more` : '';
  return `${where}: ${named.join(', ')}${more}: not gateway settings, ignored`;
}
