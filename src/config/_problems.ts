import { McpctxError, type McpctxErrorCode } from '../errors/index.js';
import { isPlainObject, type JsonObject } from '../json/index.js';

/** One thing wrong with a config: where (`mcpServers.files.command`, `(file)`) and why. */
export interface ConfigProblem {
  readonly path: string;
  readonly reason: string;
}

/** Problems listed in an error's message; `data.problems` has all of them. */
const LISTED_PROBLEMS = 50;

/**
 * Collects every problem of a config with its path, so one run reports them all. Each reader
 * answers the value when it is good and otherwise records why and answers undefined (or the
 * caller's fallback), so parsing goes on past the first mistake.
 */
export class Problems {
  readonly list: ConfigProblem[] = [];

  add(path: string, reason: string): void {
    this.list.push({ path, reason });
  }

  /** A problem for each key of `object` not in `allowed`: a typo must not be silently ignored. */
  unknownKeys(object: Readonly<Record<string, unknown>>, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(object)) {
      if (!allowed.includes(key)) this.add(childPath(path, key), `unknown key; allowed here: ${allowed.join(', ')}`);
    }
  }

  /**
   * An integer in [min, max]. With a `fallback`, an absent value is the fallback (no problem) and
   * a bad one is a problem and the fallback; without one, anything else is a problem and undefined.
   */
  integer(value: unknown, path: string, min: number, max: number): number | undefined;
  integer(value: unknown, path: string, min: number, max: number, fallback: number): number;
  integer(value: unknown, path: string, min: number, max: number, fallback?: number): number | undefined {
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    this.add(path, `must be an integer from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`);
    return fallback;
  }

  /** A finite number above `above` and at most `max`, or undefined with a problem. */
  numberIn(value: unknown, path: string, above: number, max: number): number | undefined {
    if (typeof value === 'number' && Number.isFinite(value) && value > above && value <= max) return value;
    this.add(path, `must be a number above ${above} and at most ${max}`);
    return undefined;
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (typeof value === 'boolean') return value;
    this.add(path, 'must be true or false');
    return undefined;
  }

  /** A non-empty string, or undefined (with a problem unless the value is absent and optional). */
  text(value: unknown, path: string, required: boolean): string | undefined {
    if (value === undefined) {
      if (required) this.add(path, 'is required');
      return undefined;
    }
    if (typeof value === 'string' && value.trim() !== '') return value;
    this.add(path, 'must be a non-empty string');
    return undefined;
  }

  /** A mapping (a JSON object), or undefined (with a problem) when it is something else. */
  mapping(value: unknown, path: string, what: string): JsonObject | undefined {
    if (isPlainObject(value)) return value;
    this.add(path, `must be a mapping of ${what}`);
    return undefined;
  }

  /** One of `allowed`, or undefined (with a problem naming them). */
  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    this.add(path, `must be one of ${allowed.join(', ')}`);
    return undefined;
  }

  /** A non-empty list whose items each pass `item`, without repeats; bad and repeated items are problems and left out. */
  uniqueList<T>(value: unknown, path: string, item: (value: unknown, path: string) => T | undefined): T[] | undefined {
    if (!Array.isArray(value) || value.length === 0) {
      this.add(path, 'must be a non-empty list');
      return undefined;
    }
    const items: T[] = [];
    value.forEach((raw: unknown, index) => {
      const parsed = item(raw, `${path}[${index}]`);
      if (parsed === undefined) return;
      if (items.includes(parsed)) this.add(`${path}[${index}]`, `repeats ${JSON.stringify(parsed)}`);
      else items.push(parsed);
    });
    return items;
  }

  /** A list of non-empty strings; a bad element is a problem at its index and left out. */
  stringList(value: unknown, path: string): string[] | undefined {
    return this.strings(value, path, 'must be a list of strings', false);
  }

  /** A list of distinct non-empty strings; a bad or repeated element is a problem and left out. */
  names(value: unknown, path: string): string[] | undefined {
    return this.strings(value, path, 'must be a list of names', true);
  }

  private strings(value: unknown, path: string, notAList: string, distinct: boolean): string[] | undefined {
    if (!Array.isArray(value)) {
      this.add(path, notAList);
      return undefined;
    }
    const list: string[] = [];
    value.forEach((item: unknown, index) => {
      if (typeof item !== 'string' || item === '') this.add(`${path}[${index}]`, 'must be a non-empty string');
      else if (distinct && list.includes(item)) this.add(`${path}[${index}]`, `repeats "${item}"`);
      else list.push(item);
    });
    return list;
  }
}

/** `parent.key`, or `parent["odd key"]` when the key would make the path ambiguous. */
export function childPath(parent: string, key: string): string {
  const part = /^[A-Za-z0-9_$-]+$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (parent === '') return part;
  return part.startsWith('[') ? `${parent}${part}` : `${parent}.${part}`;
}

/**
 * One error for every problem: INVALID_CONFIG (or USAGE, for command-line flags) with
 * `data.file` and `data.problems` (every one); the message reads `Invalid <what> <file>: N problems`
 * and lists the first 50, one a line.
 */
export function configError(problems: readonly ConfigProblem[], file: string | null, what: string, code: McpctxErrorCode = 'INVALID_CONFIG'): McpctxError {
  const listed = problems.slice(0, LISTED_PROBLEMS).map(({ path, reason }) => `  - ${path}: ${reason}`);
  if (problems.length > LISTED_PROBLEMS) listed.push(`  ... and ${problems.length - LISTED_PROBLEMS} more`);
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new McpctxError(code, `Invalid ${what}${file === null ? '' : ` ${file}`}: ${count}\n${listed.join('\n')}`, {
    file,
    problems: [...problems],
  });
}
