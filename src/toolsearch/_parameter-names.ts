import { isPlainObject } from '../json/index.js';

/** Deepest schema level whose property names are read (the top-level properties are level 1). */
export const MAX_SCHEMA_DEPTH = 16;
/** Schema nodes visited per tool: a catalog's real schemas stay far below; a hostile one stops here. */
export const MAX_SCHEMA_NODES = 2_000;
/** Distinct parameter names kept per tool. */
export const MAX_PARAMETER_NAMES = 256;

// Keys under which JSON Schema nests the schemas of a value's parts.
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SCHEMA_SINGLES = ['items', 'additionalProperties'] as const;

/** Characters of parameter descriptions and enum values (`notes`) kept per tool. */
export const MAX_PARAMETER_NOTES_CHARS = 16_384;

/**
 * What an input schema says about a tool: its property names, and the descriptions and enum
 * values of its properties (`notes`), top level first (breadth first), nested objects, array
 * items and anyOf/oneOf/allOf branches included. Iterative and bounded by depth, visited nodes,
 * names and note characters, so a schema nested 100k deep or with 50k properties costs no more
 * than the bounds (no recursion, no full walk). These are search hints, not answers: what the
 * bounds leave out only makes a hostile tool harder to find.
 */
export function schemaWords(inputSchema: unknown): { names: string[]; notes: string } {
  const names = new Set<string>();
  const notes: string[] = [];
  let noteChars = 0;
  const note = (text: unknown): void => {
    if (typeof text !== 'string' || noteChars >= MAX_PARAMETER_NOTES_CHARS) return;
    const kept = text.slice(0, MAX_PARAMETER_NOTES_CHARS - noteChars);
    notes.push(kept);
    noteChars += kept.length + 1;
  };
  const queue: Array<{ schema: unknown; depth: number }> = [{ schema: inputSchema, depth: 1 }];
  let visited = 0;
  for (let next = 0; next < queue.length && visited < MAX_SCHEMA_NODES && names.size < MAX_PARAMETER_NAMES; next++) {
    const { schema, depth } = queue[next]!;
    visited += 1;
    if (!isPlainObject(schema) || depth > MAX_SCHEMA_DEPTH) continue;
    const enqueue = (child: unknown): void => {
      // The queue never grows past the node budget, whatever the fan-out.
      if (queue.length < MAX_SCHEMA_NODES && isPlainObject(child)) queue.push({ schema: child, depth: depth + 1 });
    };
    if (depth > 1) note(schema.description);
    if (Array.isArray(schema.enum)) for (const value of schema.enum.slice(0, MAX_PARAMETER_NAMES)) note(value);
    const properties = schema.properties;
    if (isPlainObject(properties)) {
      // for-in rather than Object.keys: stops at the name budget without copying 50k keys.
      for (const name in properties) {
        if (!Object.hasOwn(properties, name)) continue;
        if (names.size >= MAX_PARAMETER_NAMES) break;
        names.add(name);
        enqueue(properties[name]);
      }
    }
    for (const key of SCHEMA_SINGLES) enqueue(schema[key]);
    for (const key of SCHEMA_LISTS) {
      const list = schema[key];
      if (!Array.isArray(list)) continue;
      for (const branch of list.slice(0, MAX_SCHEMA_NODES)) enqueue(branch);
    }
  }
  return { names: [...names], notes: notes.join(' ') };
}
