import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH, isPlainObject } from '../json/index.js';

/**
 * One allowed field: a path into the record, an optional output name, an optional character cap.
 * A path is a dot path (`user.login`) or, for keys that contain dots, the list of keys
 * (`['labels.v1']`, `['user', 'e.mail']`).
 */
export type FieldSpec = string | { readonly path: FieldPath; readonly as?: string; readonly maxChars?: number };

export type FieldPath = string | readonly string[];

export interface ProjectedField {
  /** The path as written: the dot path, or the keys joined with dots (for messages). */
  readonly path: string;
  /** The keys the path walks, one per level. */
  readonly keys: readonly string[];
  readonly name: string;
  /** When set, longer strings are cut to this many characters and `<name>_truncated` says so. */
  readonly maxChars: number | undefined;
}

export interface ProjectionOptions {
  /** The paths that exist in the data (dot paths or lists of keys): every allowed path must be one of them. */
  readonly knownPaths?: Iterable<FieldPath>;
  /** Records to take the known paths from (union over all of them), when `knownPaths` is not given. */
  readonly sample?: readonly unknown[];
}

/**
 * An allowlist of fields applied to records. Everything not listed is left out; a listed path that
 * a record lacks (or holds null on the way) is `null`, so every projected record has the same keys.
 */
export interface Projection {
  readonly fields: readonly ProjectedField[];
  /** Output keys in order, truncation flags included. */
  readonly outputNames: readonly string[];
  apply(record: unknown): Record<string, unknown>;
  /** The same projection with other caps on capped fields, by output name (`{ body: 4000 }`). */
  withCaps(caps: Readonly<Record<string, number>>): Projection;
}

/**
 * Defines a projection and checks it now, not at call time: unknown paths, duplicate or clashing
 * output names and bad caps are INVALID_PROJECTION errors naming the field.
 */
export function defineProjection(fields: readonly FieldSpec[], options: ProjectionOptions): Projection {
  const known = options.knownPaths !== undefined ? knownFromPaths(options.knownPaths) : knownFromSample(options.sample);
  if (fields.length === 0) throw invalid('A projection needs at least one field.');
  const projected = fields.map((spec) => normalize(spec));
  const outputNames: string[] = [];
  for (const field of projected) {
    if (!known.has(pathKey(field.keys))) throw unknownPath(field, known);
    outputNames.push(field.name);
    if (field.maxChars !== undefined) outputNames.push(truncationFlag(field.name));
  }
  const seen = new Set<string>();
  for (const name of outputNames) {
    if (seen.has(name)) throw invalid(`Output name "${name}" is produced twice; rename one field with "as".`);
    seen.add(name);
  }
  return {
    fields: projected,
    outputNames,
    apply: (record) => applyFields(projected, record),
    withCaps: (caps) => {
      for (const name of Object.keys(caps)) {
        if (!projected.some((field) => field.name === name && field.maxChars !== undefined)) {
          throw invalid(`withCaps: "${name}" is not a capped field of this projection.`);
        }
      }
      const recapped = projected.map((field) => ({
        path: field.keys,
        as: field.name,
        maxChars: Object.hasOwn(caps, field.name) ? caps[field.name] : field.maxChars,
      }));
      return defineProjection(recapped, { knownPaths: [...known.values()] });
    },
  };
}

/**
 * Every dot path present in the records (objects are walked, arrays are leaves). A key that
 * contains a dot makes its dot path ambiguous: name such a field by its list of keys.
 */
export function pathsOf(records: readonly unknown[] | undefined): Set<string> {
  return new Set([...knownFromSample(records).values()].map((keys) => keys.join('.')));
}

/** Paths known to exist, by `pathKey` of their keys. */
type KnownPaths = Map<string, readonly string[]>;

function knownFromSample(records: readonly unknown[] | undefined): KnownPaths {
  if (records === undefined) {
    throw invalid('A projection needs knownPaths or sample records to check its fields against.');
  }
  const known: KnownPaths = new Map();
  const walk = (value: unknown, prefix: readonly string[]): void => {
    // Deeper than any projection needs; the bound keeps a hostile sample from overflowing the stack.
    if (!isPlainObject(value) || prefix.length >= MAX_JSON_DEPTH) return;
    for (const [key, child] of Object.entries(value)) {
      const keys = [...prefix, key];
      known.set(pathKey(keys), keys);
      walk(child, keys);
    }
  };
  for (const record of records) walk(record, []);
  return known;
}

function knownFromPaths(paths: Iterable<FieldPath>): KnownPaths {
  const known: KnownPaths = new Map();
  for (const path of paths) {
    const keys = typeof path === 'string' ? path.split('.') : [...path];
    known.set(pathKey(keys), keys);
  }
  return known;
}

function pathKey(keys: readonly string[]): string {
  return JSON.stringify(keys);
}

function unknownPath(field: ProjectedField, known: KnownPaths): McpctxError {
  // A dot path the data has only as one key containing dots ("labels.v1"): say how to name it.
  const joined = [...known.values()].find((keys) => keys.some((key) => key.includes('.')) && keys.join('.') === field.path);
  if (joined !== undefined) {
    return invalid(
      `Field path "${field.path}" names a key that contains a dot (${JSON.stringify(joined)}), which a dot path cannot reach. ` +
        `Give the path as a list of keys: { path: ${JSON.stringify(joined)} }.`,
    );
  }
  return invalid(`Unknown field path ${describePath(field)}: the data has no such field. Known paths include ${preview(known)}.`);
}

/** Cuts `text` to at most `maxChars` UTF-16 units without splitting a surrogate pair. */
export function capText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (!Number.isSafeInteger(maxChars) || maxChars < 0) {
    throw new McpctxError('INVALID_ARGUMENT', `capText needs a cap that is a non-negative integer of characters, got ${String(maxChars)}.`);
  }
  if (text.length <= maxChars) return { text, truncated: false };
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}

export function truncationFlag(name: string): string {
  return `${name}_truncated`;
}

function applyFields(fields: readonly ProjectedField[], record: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = valueAt(record, field.keys);
    if (field.maxChars === undefined) {
      out[field.name] = value;
      continue;
    }
    if (typeof value === 'string') {
      const capped = capText(value, field.maxChars);
      out[field.name] = capped.text;
      out[truncationFlag(field.name)] = capped.truncated;
    } else {
      out[field.name] = value;
      out[truncationFlag(field.name)] = false;
    }
  }
  return out;
}

function valueAt(record: unknown, keys: readonly string[]): unknown {
  let current: unknown = record;
  for (const key of keys) {
    // Own keys only: a record without "constructor" has none, whatever Object.prototype has.
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return null;
    current = current[key];
  }
  return current === undefined ? null : current;
}

function normalize(spec: FieldSpec): ProjectedField {
  if (typeof spec !== 'string' && (typeof spec !== 'object' || spec === null)) {
    throw invalid(`A field is a path or { path, as?, maxChars? }, got ${spec === null ? 'null' : `a ${typeof spec}`}.`);
  }
  const given: unknown = typeof spec === 'string' ? spec : spec.path;
  const keys = pathKeys(given);
  const path = keys.join('.');
  const name: unknown = typeof spec === 'string' ? spec : (spec.as ?? path);
  const maxChars = typeof spec === 'string' ? undefined : spec.maxChars;
  if (typeof name !== 'string' || name === '') throw invalid(`Field "${path}" has an empty output name.`);
  if (name === '__proto__') {
    // Assigning it would replace the projected record's prototype instead of adding a key.
    throw invalid(`Field "${path}": "__proto__" cannot be an output name (it is the prototype of a JavaScript object); rename it with "as".`);
  }
  if (maxChars !== undefined && (!Number.isSafeInteger(maxChars) || maxChars < 1)) {
    throw invalid(`Field "${path}": maxChars must be a positive integer, got ${String(maxChars)}.`);
  }
  return { path, keys, name, maxChars };
}

/** The keys of a dot path or of a list of keys; every key non-empty. */
function pathKeys(path: unknown): string[] {
  if (typeof path === 'string') {
    if (path === '') throw invalid('A field needs a non-empty path.');
    const keys = path.split('.');
    if (keys.includes('')) throw invalid(`Field path "${path}" has an empty segment.`);
    return keys;
  }
  if (Array.isArray(path) && path.length > 0 && path.every((key) => typeof key === 'string' && key !== '')) return [...(path as string[])];
  throw invalid(`A field path is a dot path or a non-empty list of non-empty keys, got ${JSON.stringify(path) ?? typeof path}.`);
}

function describePath(field: ProjectedField): string {
  return field.keys.some((key) => key.includes('.')) ? JSON.stringify(field.keys) : `"${field.path}"`;
}

function preview(known: KnownPaths): string {
  const list = [...known.values()].filter((keys) => keys.length === 1).map((keys) => keys[0]).slice(0, 12);
  return list.length === 0 ? '(none: the sample is empty)' : list.map((path) => `"${path}"`).join(', ');
}

function invalid(message: string): McpctxError {
  return new McpctxError('INVALID_PROJECTION', message);
}
