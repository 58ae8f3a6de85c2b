import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH } from '../json/index.js';

/**
 * A canonical text for any value a tool's (zod-parsed) arguments can hold, used to hash cursor
 * queries and key cached results: two values get the same text exactly when they are the same
 * query. JSON values are written as JSON with object keys sorted at every depth (key order is not
 * part of a query; an `undefined` property is the same as an absent one). Values JSON has no form
 * for are written in a syntax that is not JSON text, so none can collide with a JSON value or with
 * a string that looks like it:
 *
 * - `Date(2020-01-01T00:00:00.000Z)`, `Date(invalid)`;
 * - `Map([k,v],...)` and `Set(v,...)`, entries sorted by their own encoding (insertion order is not
 *   part of a query);
 * - `12n` for a bigint; `NaN`, `Infinity`, `-Infinity`; `undefined` (in an array, or alone).
 *
 * Anything else (functions, symbols, class instances it does not know, cycles, nesting deeper than
 * MAX_JSON_DEPTH) is refused with an INVALID_ARGUMENT McpctxError: a value without a faithful
 * encoding would silently share a cursor or a cache entry with another.
 */
export function stableJson(value: unknown): string {
  return encode(value, [], 0);
}

function encode(value: unknown, ancestors: object[], depth: number): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // NaN and the infinities are not JSON text: they cannot meet `null` or a string.
      return Number.isFinite(value) ? JSON.stringify(value) : String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return 'undefined';
    case 'function':
      throw refuse('a function');
    case 'symbol':
      throw refuse('a symbol');
  }
  if (value === null) return 'null';
  const object = value as object;
  if (depth >= MAX_JSON_DEPTH) throw refuse(`a value nested deeper than ${MAX_JSON_DEPTH} levels`);
  // Only the current path counts: the same object twice side by side is a repeat, not a cycle.
  if (ancestors.includes(object)) throw refuse('a cycle (a value that contains itself)');
  ancestors.push(object);
  try {
    return encodeObject(object, ancestors, depth + 1);
  } finally {
    ancestors.pop();
  }
}

function encodeObject(object: object, ancestors: object[], depth: number): string {
  const child = (item: unknown): string => encode(item, ancestors, depth);
  if (Array.isArray(object)) {
    // Array.from turns holes into undefined, so a sparse array is not silently shorter.
    return `[${Array.from(object as unknown[], child).join(',')}]`;
  }
  if (object instanceof Date) {
    const time = object.getTime();
    return `Date(${Number.isNaN(time) ? 'invalid' : object.toISOString()})`;
  }
  if (object instanceof Map) {
    const entries = [...(object as Map<unknown, unknown>)].map(([key, item]) => `[${child(key)},${child(item)}]`);
    return `Map(${entries.sort(byCodeUnits).join(',')})`;
  }
  if (object instanceof Set) {
    return `Set(${[...(object as Set<unknown>)].map(child).sort(byCodeUnits).join(',')})`;
  }
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    throw refuse(`an instance of ${typeof name === 'string' && name !== '' ? name : 'an unknown class'}`);
  }
  const entries = Object.entries(object)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => byCodeUnits(a, b));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${child(item)}`).join(',')}}`;
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function refuse(what: string): McpctxError {
  return new McpctxError(
    'INVALID_ARGUMENT',
    `A query or cache key cannot hold ${what}: it has no canonical form, so two different queries could share a cursor or a cached result. ` +
      'Pass JSON values, Dates, Maps, Sets or bigints.',
    { reason: 'no-canonical-form' },
  );
}
