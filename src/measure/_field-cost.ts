import { countTokens, sha256Hex } from '../tokens/index.js';
import { isPlainObject, type JsonObject } from '../json/index.js';
import { isCopyable, memberText } from './_json-value.js';

/** What one field of the records costs, summed over the records. */
export interface FieldCost {
  /** `head` for a top-level field, `head.repo` for a field of the nested object `head`. */
  path: string;
  /** The top-level field a nested field belongs to; null for a top-level field. */
  parent: string | null;
  /** o200k tokens of the field's compact `"key":value` text in each record, summed. */
  tokens: number;
  /** `tokens` / tokens of the whole payload's compact text, rounded to 4 decimals. */
  share: number;
  /** At least half of `tokens` are in object or array values already seen at the same path in an earlier record. */
  copy: boolean;
  /** Tokens of this field's non-empty object or array values (whole, or nested at any depth) seen identically in an earlier record. */
  repeatedTokens: number;
  /** Records in which the field is present. */
  records: number;
}

interface Accumulator {
  path: string;
  parent: string | null;
  tokens: number;
  repeatedTokens: number;
  records: number;
}

/**
 * Tokens per field of a list of records: each top-level key, and beneath each nested object its
 * own top-level keys (one level). A field is a copy when at least half of its tokens are in object
 * or array values that appear identically (canonical JSON, key order as parsed) at the same path in
 * an earlier record; a value not itself repeated is looked into, at any depth. Scalars never count,
 * nor do empty objects and arrays (`"labels":[]` in every record repeats nothing).
 * Sorted by tokens, largest first (then by path).
 */
export function fieldCosts(records: readonly JsonObject[], payloadTokens: number): FieldCost[] {
  const fields = new Map<string, Accumulator>();
  const field = (path: string, parent: string | null): Accumulator => {
    // Keyed by parent and key: a top-level key that contains a dot cannot collide with a nested path.
    const id = JSON.stringify([parent, path]);
    let found = fields.get(id);
    if (!found) {
      found = { path, parent, tokens: 0, repeatedTokens: 0, records: 0 };
      fields.set(id, found);
    }
    return found;
  };
  const repeats = new RepeatTracker();

  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      const top = field(key, null);
      const tokens = countTokens(memberText(key, value));
      top.tokens += tokens;
      top.records += 1;
      const children = isPlainObject(value)
        ? Object.entries(value).map(([childKey, child]) => ({
            key: childKey,
            value: child,
            tokens: countTokens(memberText(childKey, child)),
            field: field(`${key}.${childKey}`, key),
          }))
        : [];
      for (const child of children) {
        child.field.tokens += child.tokens;
        child.field.records += 1;
      }
      if (!isCopyable(value)) continue;
      if (repeats.seenBefore(key, value)) {
        top.repeatedTokens += tokens;
        // Every object or array inside was at the same path in that earlier record too.
        for (const child of children) if (isCopyable(child.value)) child.field.repeatedTokens += child.tokens;
        continue;
      }
      if (Array.isArray(value)) {
        for (const item of value) top.repeatedTokens += repeats.repeatedTokens(undefined, item, `${key}[]`);
        continue;
      }
      for (const child of children) {
        const repeated = repeats.repeatedTokens(child.key, child.value, `${key}.${child.key}`, child.tokens);
        child.field.repeatedTokens += repeated;
        top.repeatedTokens += repeated;
      }
    }
    repeats.endRecord();
  }

  return [...fields.values()]
    .map((entry) => ({
      path: entry.path,
      parent: entry.parent,
      tokens: entry.tokens,
      share: payloadTokens > 0 ? Math.round((entry.tokens / payloadTokens) * 10_000) / 10_000 : 0,
      copy: entry.tokens > 0 && entry.repeatedTokens * 2 >= entry.tokens,
      repeatedTokens: entry.repeatedTokens,
      records: entry.records,
    }))
    .sort((a, b) => b.tokens - a.tokens || compareText(a.path, b.path));
}

/** Object and array values seen per path in earlier records (by the hash of their canonical JSON). */
class RepeatTracker {
  private readonly seen = new Map<string, Set<string>>();
  private pending: Array<[string, string]> = [];

  /** True when this value was at this path in an earlier record; otherwise remembers it for later records. */
  seenBefore(path: string, value: unknown): boolean {
    const hash = sha256Hex(JSON.stringify(value));
    if (this.seen.get(path)?.has(hash)) return true;
    this.pending.push([path, hash]);
    return false;
  }

  /**
   * Tokens of `"key":value` (or of the bare value for an array item) when the value is repeated;
   * otherwise the repeated tokens found inside it. `tokens` saves counting a text already counted.
   */
  repeatedTokens(key: string | undefined, value: unknown, path: string, tokens?: number): number {
    if (!isCopyable(value)) return 0;
    if (this.seenBefore(path, value)) {
      return tokens ?? countTokens(key === undefined ? JSON.stringify(value) : memberText(key, value));
    }
    let sum = 0;
    if (Array.isArray(value)) {
      for (const item of value) sum += this.repeatedTokens(undefined, item, `${path}[]`);
    } else {
      for (const [childKey, child] of Object.entries(value)) sum += this.repeatedTokens(childKey, child, `${path}.${childKey}`);
    }
    return sum;
  }

  /** Values of the record just read count as earlier from the next record on. */
  endRecord(): void {
    for (const [path, hash] of this.pending) {
      let hashes = this.seen.get(path);
      if (!hashes) {
        hashes = new Set();
        this.seen.set(path, hashes);
      }
      hashes.add(hash);
    }
    this.pending = [];
  }
}

/** Code-unit order: deterministic whatever the locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
