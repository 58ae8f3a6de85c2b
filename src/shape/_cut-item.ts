import { isPlainObject, setOwn } from '../json/index.js';
import { capText } from './_projection.js';

/** The key a cut object lists its shortened values under. */
export const CUT_FLAG = '_truncated';

/** How far a cut form goes: longest string kept, most array elements and object keys kept. */
export interface CutLimits {
  readonly chars: number;
  readonly entries: number;
}

export interface CutForm {
  /** The item with long values shortened (a JSON value). */
  readonly value: unknown;
  /** Paths of the values that were shortened, in document order; at most MAX_LISTED_PATHS. */
  readonly paths: readonly string[];
  /** How many shortened values `paths` does not list. */
  readonly unlisted: number;
}

/** Paths listed in `_truncated` and the note; more are counted, not listed, so the list stays short. */
const MAX_LISTED_PATHS = 8;
/** Deeper values are replaced by null in a cut form: nothing that deep fits a page that needs cutting. */
const MAX_CUT_DEPTH = 16;
/** The path of the item itself, when it is not an object (a long string, a long array). */
export const WHOLE_ITEM = '(the item)';

/**
 * A bounded form of `item` (a parsed JSON value): strings cut to `limits.chars` characters,
 * arrays and objects to their first `limits.entries` elements or keys, values nested deeper than
 * MAX_CUT_DEPTH replaced by null. An object keeps the value of `idField` whole, first among the
 * kept keys, and gets `_truncated`: the paths that were shortened.
 */
export function cutItem(item: unknown, idField: string, limits: CutLimits): CutForm {
  const paths: string[] = [];
  let unlisted = 0;
  const shortened = (path: string): void => {
    if (paths.length < MAX_LISTED_PATHS) paths.push(path === '' ? WHOLE_ITEM : path);
    else unlisted += 1;
  };
  const cut = (value: unknown, path: string, depth: number): unknown => {
    if (typeof value === 'string') {
      const capped = capText(value, limits.chars);
      if (capped.truncated) shortened(path);
      return capped.text;
    }
    if (typeof value !== 'object' || value === null) return value;
    if (depth >= MAX_CUT_DEPTH) {
      shortened(path);
      return null;
    }
    if (Array.isArray(value)) {
      if (value.length > limits.entries) shortened(path);
      return value.slice(0, limits.entries).map((element: unknown, index) => cut(element, `${path}[${index}]`, depth + 1));
    }
    const entries = Object.entries(value);
    const kept = depth === 0 && Object.hasOwn(value, idField) ? keepId(entries, idField, limits.entries) : entries.slice(0, limits.entries);
    if (kept.length < entries.length) shortened(path);
    const out: Record<string, unknown> = {};
    for (const [key, child] of kept) {
      const childPath = path === '' ? key : `${path}.${key}`;
      // Own data properties, so that a "__proto__" key stays a key.
      const next = depth === 0 && key === idField ? child : cut(child, childPath, depth + 1);
      setOwn(out, key, next);
    }
    return out;
  };
  const value = cut(item, '', 0);
  if (!isPlainObject(value)) return { value, paths, unlisted };
  const listed = unlisted > 0 ? [...paths, `and ${unlisted} more`] : paths;
  Object.defineProperty(value, CUT_FLAG, { value: listed, enumerable: true, writable: true, configurable: true });
  return { value, paths, unlisted };
}

/** The id's entry and the first `count` - 1 others, in their order. */
function keepId(entries: ReadonlyArray<[string, unknown]>, idField: string, count: number): Array<[string, unknown]> {
  let others = 0;
  return entries.filter(([key]) => key === idField || (others += 1) < count);
}
