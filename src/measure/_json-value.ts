/** Helpers over parsed JSON values for the result-cost analysis; the general ones are in src/json. */
import { isPlainObject, type JsonObject } from '../json/index.js';

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
