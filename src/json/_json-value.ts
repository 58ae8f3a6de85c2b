/** Small facts about parsed JSON values, shared by every folder that reads them. */

export type JsonObject = Record<string, unknown>;

/**
 * A JSON object: not null, not an array, and a plain object (or one without a prototype), so a
 * `Date`, a `Map` or a class instance handed to a library function is not read as a record of its
 * (absent) own keys. Everything `JSON.parse` builds as an object passes.
 */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * A value as an error message names it ("got a string of 12 characters", "row 3 is number 7");
 * never throws (`String` does on an object without a prototype) and never quotes a long text.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string of ${value.length.toLocaleString('en-US')} characters`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function' || typeof value === 'symbol') return `a ${typeof value}`;
  return `${typeof value} ${String(value)}`;
}

/**
 * Deepest nesting mcpctx accepts in a value it walks or stringifies. `JSON.parse` reads any depth,
 * but stringifying and walking recurse: a hostile `[[[[...]]]]` would overflow the stack instead of
 * being refused.
 */
export const MAX_JSON_DEPTH = 512;

/** Whether objects and arrays nest deeper than `limit` levels; iterative, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [node, depth] = entry;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * The key and text of an object whose one own member is a string: `{content: "<text>"}`, the
 * wrapper servers put a text in when they return it as structuredContent too.
 */
export function soleStringMember(value: unknown): { key: string; text: string } | undefined {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  const [key] = keys;
  if (keys.length !== 1 || key === undefined) return undefined;
  const text = value[key];
  return typeof text === 'string' ? { key, text } : undefined;
}
