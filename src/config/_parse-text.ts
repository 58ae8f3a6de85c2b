import type * as JsoncParser from 'jsonc-parser';
import type * as Yaml from 'yaml';
import type { Node as JsoncNode, ParseError } from 'jsonc-parser';
import { lazyRequire } from '../lazy/index.js';
import { lineAndColumn } from '../tokens/index.js';
import { type JsonObject, setOwn } from '../json/index.js';
import { configError } from './_problems.js';

/**
 * Config text (JSON with comments, YAML) to a value, with every syntax error placed at a 1-based
 * line and column. Errors carry the parser's reason, never the text around it: a config line can
 * hold a secret, and the parsers' own pretty messages quote the source.
 */

const jsonc = lazyRequire<typeof JsoncParser>('jsonc-parser');
const yaml = lazyRequire<typeof Yaml>('yaml');

export interface SyntaxProblem {
  /** JSON: jsonc-parser's error name (`CommaExpected`); YAML: the first line of the parser's message. */
  readonly message: string;
  /** JSON: the same error name; YAML: the error's code (`DUPLICATE_KEY`). */
  readonly code: string;
  readonly line: number;
  readonly column: number;
}

/**
 * `value` when the text parsed; `syntaxErrors` (never empty) when its syntax is wrong;
 * `unparsable` (the parser's reason) when the parser gave up on a text it could read: a nesting
 * deep enough to overflow the stack, a YAML alias bomb.
 */
export type ParsedText = { readonly value: unknown } | { readonly syntaxErrors: readonly [SyntaxProblem, ...SyntaxProblem[]] } | { readonly unparsable: string };

/** JSON with comments and trailing commas (as VS Code writes it); every key an own property. */
export function parseJsonText(text: string): ParsedText {
  try {
    const errors: ParseError[] = [];
    const { parseTree, printParseErrorCode } = jsonc();
    const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    const placed = errors.map(({ error, offset }): SyntaxProblem => ({ message: printParseErrorCode(error), code: printParseErrorCode(error), ...lineAndColumn(text, offset) }));
    if (isNonEmpty(placed)) return { syntaxErrors: placed };
    return { value: tree === undefined ? undefined : jsonValue(tree) };
  } catch (error) {
    return { unparsable: reasonOf(error) };
  }
}

/** YAML with unique keys and at most 100 aliases expanded. Lines are counted as YAML counts them. */
export function parseYamlText(text: string): ParsedText {
  try {
    const { LineCounter, parseDocument } = yaml();
    const lineCounter = new LineCounter();
    const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
    const placed = document.errors.map((error): SyntaxProblem => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { message: firstLine(error.message), code: error.code, line, column: col };
    });
    if (isNonEmpty(placed)) return { syntaxErrors: placed };
    return { value: document.toJS({ maxAliasCount: 100 }) as unknown };
  } catch (error) {
    return { unparsable: reasonOf(error) };
  }
}

export type ConfigSyntax = 'json' | 'yaml';

/**
 * JSON for `.json`/`.jsonc` files, and for texts that open with `{` or `[` unless the file is
 * `.yaml`/`.yml` (a YAML flow mapping opens with `{` too); YAML otherwise.
 */
export function configSyntax(text: string, file: string | null): ConfigSyntax {
  if (file !== null && /\.jsonc?$/i.test(file)) return 'json';
  if (file !== null && /\.ya?ml$/i.test(file)) return 'yaml';
  return /^\s*[[{]/.test(text) ? 'json' : 'yaml';
}

/**
 * The document in a config text, or INVALID_CONFIG (`configError`, path `(file)`): the first JSON
 * error or every YAML error, each with its line and column.
 */
export function parseConfigText(text: string, file: string | null, what: string, syntax: ConfigSyntax = configSyntax(text, file)): unknown {
  const parsed = syntax === 'json' ? parseJsonText(text) : parseYamlText(text);
  if ('value' in parsed) return parsed.value;
  if ('unparsable' in parsed) {
    throw configError([{ path: '(file)', reason: `cannot be read as ${syntax.toUpperCase()}: ${parsed.unparsable}` }], file, what);
  }
  if (syntax === 'json') {
    const { message, line, column } = parsed.syntaxErrors[0];
    throw configError([{ path: '(file)', reason: `is not valid JSON: ${message} at line ${line}, column ${column}` }], file, what);
  }
  const problems = parsed.syntaxErrors.map(({ message, line, column }) => ({ path: '(file)', reason: `is not valid YAML at line ${line}, column ${column}: ${message}` }));
  throw configError(problems, file, what);
}

/** A parser's message fit to show: its first line, at most 200 characters. */
export function firstLine(message: string): string {
  const end = message.indexOf('\n');
  return (end === -1 ? message : message.slice(0, end)).slice(0, 200);
}

function reasonOf(error: unknown): string {
  return firstLine(error instanceof Error ? error.message : String(error));
}

function isNonEmpty<T>(list: T[]): list is [T, ...T[]] {
  return list.length > 0;
}

/**
 * The value of a parsed JSON tree, every key an own property. jsonc-parser's own `parse` assigns
 * keys, so a `__proto__` key would set the object's prototype and vanish, where JSON.parse (and
 * so the client reading the same file) keeps it as a key. Duplicate keys: the last wins, as with
 * JSON.parse.
 */
function jsonValue(node: JsoncNode): unknown {
  if (node.type === 'array') return (node.children ?? []).map(jsonValue);
  if (node.type !== 'object') return node.value as unknown;
  const object: JsonObject = {};
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key === undefined) continue;
    setOwn(object, String(key.value), value === undefined ? null : jsonValue(value));
  }
  return object;
}
