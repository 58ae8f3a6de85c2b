import { McpctxError } from '../errors/index.js';
import { isPlainObject } from '../tokens/index.js';

/** One allowed field: a dot path into the record, an optional output name, an optional character cap. */
export type FieldSpec = string | { readonly path: string; readonly as?: string; readonly maxChars?: number };

export interface ProjectedField {
  readonly path: string;
  readonly name: string;
  /** When set, longer strings are cut to this many characters and `<name>_truncated` says so. */
  readonly maxChars: number | undefined;
}

export interface ProjectionOptions {
  /** The paths that exist in the data: every allowed path must be one of them. */
  readonly knownPaths?: Iterable<string>;
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

const PATH_SEGMENT = /^[^.]+$/;

/**
 * Defines a projection and checks it now, not at call time: unknown paths, duplicate or clashing
 * output names and bad caps are INVALID_PROJECTION errors naming the field.
 */
export function defineProjection(fields: readonly FieldSpec[], options: ProjectionOptions): Projection {
  const known = options.knownPaths !== undefined ? new Set(options.knownPaths) : pathsOf(options.sample);
  if (fields.length === 0) throw invalid('A projection needs at least one field.');
  const projected = fields.map((spec) => normalize(spec));
  const outputNames: string[] = [];
  for (const field of projected) {
    if (!field.path.split('.').every((segment) => PATH_SEGMENT.test(segment))) {
      throw invalid(`Field path "${field.path}" has an empty segment.`);
    }
    if (!known.has(field.path)) {
      throw invalid(`Unknown field path "${field.path}": the data has no such field. Known paths include ${preview(known)}.`);
    }
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
      const recapped = projected.map((field) => ({ path: field.path, as: field.name, maxChars: caps[field.name] ?? field.maxChars }));
      return defineProjection(recapped, { knownPaths: known });
    },
  };
}

/** Every dot path present in the records (objects are walked, arrays are leaves). */
export function pathsOf(records: readonly unknown[] | undefined): Set<string> {
  if (records === undefined) {
    throw invalid('A projection needs knownPaths or sample records to check its fields against.');
  }
  const paths = new Set<string>();
  const walk = (value: unknown, prefix: string): void => {
    if (!isPlainObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      paths.add(path);
      walk(child, path);
    }
  };
  for (const record of records) walk(record, '');
  return paths;
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
    const value = valueAt(record, field.path);
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

function valueAt(record: unknown, path: string): unknown {
  let current: unknown = record;
  for (const segment of path.split('.')) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return null;
    current = current[segment];
  }
  return current === undefined ? null : current;
}

function normalize(spec: FieldSpec): ProjectedField {
  if (typeof spec !== 'string' && (typeof spec !== 'object' || spec === null)) {
    throw invalid(`A field is a path or { path, as?, maxChars? }, got ${spec === null ? 'null' : `a ${typeof spec}`}.`);
  }
  const path = typeof spec === 'string' ? spec : spec.path;
  const name = typeof spec === 'string' ? spec : (spec.as ?? spec.path);
  const maxChars = typeof spec === 'string' ? undefined : spec.maxChars;
  if (typeof path !== 'string' || path === '') throw invalid('A field needs a non-empty path.');
  if (typeof name !== 'string' || name === '') throw invalid(`Field "${path}" has an empty output name.`);
  if (maxChars !== undefined && (!Number.isSafeInteger(maxChars) || maxChars < 1)) {
    throw invalid(`Field "${path}": maxChars must be a positive integer, got ${String(maxChars)}.`);
  }
  return { path, name, maxChars };
}


function preview(paths: ReadonlySet<string>): string {
  const list = [...paths].filter((path) => !path.includes('.')).slice(0, 12);
  return list.length === 0 ? '(none: the sample is empty)' : list.map((path) => `"${path}"`).join(', ');
}

function invalid(message: string): McpctxError {
  return new McpctxError('INVALID_PROJECTION', message);
}
