/** Small facts about parsed JSON values, shared by every folder that reads them. */

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
