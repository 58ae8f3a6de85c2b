/**
 * Reading an experiment's config text and collecting its problems. The gateway and the audit each
 * have their own copy of this (gateway/config/_config-problems.ts, _jsonc.ts; audit/_read-config.ts),
 * private to their folders; this one is experiment's until the three move to one shared module.
 */
import { parseTree, printParseErrorCode, type Node as JsoncNode, type ParseError } from 'jsonc-parser';
import { parseDocument } from 'yaml';
import { McpctxError, type McpctxErrorCode } from '../errors/index.js';
import { isPlainObject, lineAndColumn, type JsonObject } from '../tokens/index.js';

export interface ConfigProblem {
  path: string;
  reason: string;
}

/** Problems listed in an error's message; `data.problems` has all of them. */
const LISTED_PROBLEMS = 50;

/** Collects every problem with its path, so one run reports them all. */
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

  /** An integer in [min, max]; `fallback` (with a problem) when it is something else. */
  integer(value: unknown, path: string, min: number, max: number, fallback: number): number {
    if (value === undefined) return fallback;
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    this.add(path, `must be an integer from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`);
    return fallback;
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

  /** A mapping, or undefined (with a problem) when it is something else. */
  mapping(value: unknown, path: string, what: string): JsonObject | undefined {
    if (isPlainObject(value)) return value;
    this.add(path, `must be a mapping of ${what}`);
    return undefined;
  }

  /** A list of distinct non-empty strings; a bad or repeated element is a problem and left out. */
  names(value: unknown, path: string): string[] | undefined {
    if (!Array.isArray(value)) {
      this.add(path, 'must be a list of names');
      return undefined;
    }
    const list: string[] = [];
    value.forEach((item: unknown, index) => {
      if (typeof item !== 'string' || item === '') this.add(`${path}[${index}]`, 'must be a non-empty string');
      else if (list.includes(item)) this.add(`${path}[${index}]`, `repeats "${item}"`);
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
 * `data.file` and `data.problems` ({path, reason}[]); the message lists the first 50.
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

/**
 * The document in a config text: JSON (comments and trailing commas allowed) for `.json`/`.jsonc`
 * files, and for texts that open with `{` or `[` unless the file is `.yaml`/`.yml` (a YAML flow
 * mapping opens with `{` too); YAML otherwise. A syntax error is INVALID_CONFIG
 * naming the line and column; the text around it is not quoted.
 */
export function parseConfigText(text: string, file: string, what: string): unknown {
  const json = /\.jsonc?$/i.test(file) || (!/\.ya?ml$/i.test(file) && /^\s*[[{]/.test(text));
  if (json) {
    const errors: ParseError[] = [];
    const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    const first = errors[0];
    if (first !== undefined) {
      const where = lineAndColumn(text, first.offset);
      throw configError([{ path: '(file)', reason: `is not valid JSON: ${printParseErrorCode(first.error)} at line ${where.line}, column ${where.column}` }], file, what);
    }
    return tree === undefined ? undefined : jsonValue(tree);
  }
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    throw configError(
      document.errors.map((error) => {
        const where = lineAndColumn(text, error.pos[0]);
        return { path: '(file)', reason: `is not valid YAML at line ${where.line}, column ${where.column}: ${firstLine(error.message)}` };
      }),
      file,
      what,
    );
  }
  try {
    return document.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw configError([{ path: '(file)', reason: `cannot be read as YAML: ${firstLine((error as Error).message)}` }], file, what);
  }
}

/**
 * The value of a parsed JSON tree with every key an own property: jsonc-parser's own `parse`
 * assigns keys, so a `__proto__` key would vanish instead of being reported as unknown.
 */
function jsonValue(node: JsoncNode): unknown {
  if (node.type === 'array') return (node.children ?? []).map(jsonValue);
  if (node.type !== 'object') return node.value as unknown;
  const object: JsonObject = {};
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key === undefined) continue;
    Object.defineProperty(object, String(key.value), { value: value === undefined ? null : jsonValue(value), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

function firstLine(message: string): string {
  const end = message.indexOf('\n');
  return (end === -1 ? message : message.slice(0, end)).slice(0, 200);
}
