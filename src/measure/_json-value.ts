/** Small helpers over parsed JSON values, shared by the result-cost analysis. */

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object or an array. */
export function isContainer(value: unknown): value is JsonObject | unknown[] {
  return typeof value === 'object' && value !== null;
}

/** An object or an array with something in it: what can be repeated as a copy (scalars, `{}` and `[]` never are). */
export function isCopyable(value: unknown): value is JsonObject | unknown[] {
  if (Array.isArray(value)) return value.length > 0;
  return isPlainObject(value) && Object.keys(value).length > 0;
}

/** A number, boolean, null or string. */
export function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string';
}

/** The compact text of one object member as it appears inside its object: `"key":value`. */
export function memberText(key: string, value: unknown): string {
  return `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`;
}

/** `JSON.parse` that answers `undefined` instead of throwing. */
export function tryParseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The same JSON value: objects compare by their members whatever their order, arrays in order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  const bObject = b as JsonObject;
  return aKeys.every((key) => Object.hasOwn(bObject, key) && jsonEqual((a as JsonObject)[key], bObject[key]));
}

/**
 * Deepest nesting the analysis accepts. `JSON.parse` reads any depth, but stringifying and walking
 * a value recurse: a hostile `[[[[...]]]]` would overflow the stack instead of being refused.
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
