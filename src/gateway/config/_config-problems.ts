import { isPlainObject } from '../../tokens/index.js';
import type { ConfigProblem } from './_config-types.js';

/** Collects every problem of a config with its path, so one run reports them all. */
export class Problems {
  readonly list: ConfigProblem[] = [];

  add(path: string, reason: string): void {
    this.list.push({ path, reason });
  }

  /** Adds a problem for each key of `object` not in `allowed`. */
  unknownKeys(object: Readonly<Record<string, unknown>>, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(object)) {
      if (!allowed.includes(key)) this.add(childPath(path, key), `unknown key; allowed here: ${allowed.join(', ')}`);
    }
  }

  /** An integer in [min, max], or undefined (with a problem) when it is not. */
  integer(value: unknown, path: string, min: number, max: number): number | undefined {
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    this.add(path, `must be an integer from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`);
    return undefined;
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (typeof value === 'boolean') return value;
    this.add(path, 'must be true or false');
    return undefined;
  }

  /** A mapping (a JSON object), or undefined (with a problem) when it is not. */
  mapping(value: unknown, path: string, what: string): Readonly<Record<string, unknown>> | undefined {
    if (isPlainObject(value)) return value;
    this.add(path, `must be a mapping of ${what}`);
    return undefined;
  }

  /** A list of non-empty strings; a bad element is a problem at its index and left out. */
  stringList(value: unknown, path: string): string[] | undefined {
    if (!Array.isArray(value)) {
      this.add(path, 'must be a list of strings');
      return undefined;
    }
    const list: string[] = [];
    value.forEach((item: unknown, index) => {
      if (typeof item === 'string' && item !== '') list.push(item);
      else this.add(`${path}[${index}]`, 'must be a non-empty string');
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
