import type * as Jmespath from '@jmespath-community/jmespath';
import { McpctxError } from '../../errors/index.js';
import { lazyRequire } from '../../lazy/index.js';
import { MAX_JSON_DEPTH, isPlainObject, describeValue } from '../../json/index.js';
import { QueryLimitError, evaluateQuery, type QueryLimits } from './_query-budget.js';

/** Loaded by the first query: most sessions never ask one. */
const jmespath = lazyRequire<typeof Jmespath>('@jmespath-community/jmespath');

/**
 * The one path syntax read_result takes: keys with dots, indexes in brackets, keys that are not
 * identifiers in quoted brackets, an optional leading `$`:
 *
 *   items[3].title    $.items[0]    [2]    meta["x-rate.limit"]
 *
 * Nothing else: wildcards, slices, filters, recursive descent and negative indexes belong to
 * `query` (JMESPath), and JSON pointers (`/items/3`) are refused with the equivalent path.
 */
export const PATH_SYNTAX = 'a dotted path with bracketed indexes, like items[3].title or $.items[0] (quote odd keys: meta["x.y"])';

const MAX_PATH_CHARS = 1000;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*/;

/** The keys and indexes of `path`; INVALID_ARGUMENT with the accepted syntax otherwise. */
export function parsePath(path: string): Array<string | number> {
  if (path.length > MAX_PATH_CHARS) throw badPath(path, `it is longer than ${MAX_PATH_CHARS} characters`);
  if (path.startsWith('/')) {
    const dotted = path
      .split('/')
      .slice(1)
      .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
      .map((key, index) => (/^(0|[1-9]\d*)$/.test(key) ? `[${key}]` : IDENTIFIER.exec(key)?.[0] === key ? `${index === 0 ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`))
      .join('');
    throw badPath(path, `JSON pointers are not accepted; the same place is ${JSON.stringify(dotted || '$')}`);
  }
  let rest = path.startsWith('$') ? path.slice(1) : path;
  const steps: Array<string | number> = [];
  let first = !path.startsWith('$');
  while (rest.length > 0) {
    if (rest.startsWith('..')) throw badPath(path, 'recursive descent (..) is a query: use query instead of path');
    if (rest.startsWith('[')) {
      const index = /^\[(0|[1-9]\d{0,8})\]/.exec(rest);
      if (index !== null) {
        steps.push(Number(index[1]));
        rest = rest.slice(index[0].length);
      } else {
        const quoted = /^\["((?:[^"\\]|\\.)*)"\]/.exec(rest);
        if (quoted === null) throw badPath(path, `"${rest.slice(0, 12)}" is not an index ([3]) or a quoted key (["a.b"]); wildcards, slices, filters and negative indexes are queries: use query`);
        steps.push(JSON.parse(`"${quoted[1] ?? ''}"`) as string);
        rest = rest.slice(quoted[0].length);
      }
    } else {
      if (rest.startsWith('.')) rest = rest.slice(1);
      else if (!first) throw badPath(path, `expected "." or "[" before "${rest.slice(0, 12)}"`);
      const key = IDENTIFIER.exec(rest);
      if (key === null) throw badPath(path, `"${rest.slice(0, 12)}" is not a key; quote keys that are not identifiers (["a b"]), and use query for wildcards`);
      steps.push(key[0]);
      rest = rest.slice(key[0].length);
    }
    first = false;
  }
  return steps;
}

/** The value at `path` in `value`; INVALID_ARGUMENT naming the first step that is not there. */
export function selectPath(value: unknown, path: string): unknown {
  let current = value;
  let walked = '$';
  for (const step of parsePath(path)) {
    if (typeof step === 'number') {
      if (!Array.isArray(current)) throw notThere(path, `${walked} is ${describeValue(current)}, not an array`);
      if (step >= current.length) throw notThere(path, `${walked} has ${current.length} items (indexes 0 to ${current.length - 1})`);
      current = current[step];
      walked += `[${step}]`;
    } else {
      if (!isPlainObject(current)) throw notThere(path, `${walked} is ${describeValue(current)}, not an object`);
      if (!Object.hasOwn(current, step)) throw notThere(path, `${walked} has no key ${JSON.stringify(step)} (keys: ${previewKeys(current)})`);
      current = current[step];
      walked += IDENTIFIER.exec(step)?.[0] === step ? `.${step}` : `[${JSON.stringify(step)}]`;
    }
  }
  return current;
}

/**
 * JMESPath (`@jmespath-community/jmespath`) over `value`; INVALID_QUERY with the parser's reason,
 * or naming the budget a query ran out of: a query is metered (QUERY_STEP_BUDGET steps, at most
 * QUERY_DEADLINE_MS) and what it builds must be writable (QUERY_RESULT_CHARS, MAX_JSON_DEPTH),
 * so no query holds the gateway's one thread for long. `limits` overrides the bounds (tests).
 */
export function runQuery(value: unknown, query: string, limits: Omit<QueryLimits, 'maxDepth'> = {}): unknown {
  if (query.length > MAX_PATH_CHARS) throw badQuery(query, `it is longer than ${MAX_PATH_CHARS} characters`);
  try {
    return evaluateQuery(jmespath(), value, query, { ...limits, maxDepth: MAX_JSON_DEPTH }).result;
  } catch (error) {
    if (error instanceof QueryLimitError) throw overBudget(query, error);
    throw badQuery(query, (error as Error).message);
  }
}

function badPath(path: string, why: string): McpctxError {
  return new McpctxError('INVALID_ARGUMENT', `Invalid path ${JSON.stringify(path.slice(0, 80))}: ${why}. A path is ${PATH_SYNTAX}.`);
}

function notThere(path: string, why: string): McpctxError {
  return new McpctxError('INVALID_ARGUMENT', `Path ${JSON.stringify(path.slice(0, 80))} is not in the stored result: ${why}. Read the shape in the preview, or page from the top without path.`);
}

function badQuery(query: string, why: string): McpctxError {
  return new McpctxError(
    'INVALID_QUERY',
    `Invalid JMESPath query ${JSON.stringify(query.slice(0, 80))}: ${why}. Example: "pull_requests[*].number", "[?state=='open'].{n: number, t: title}".`,
  );
}

/** A query stopped by its budget: what ran out, and how to ask for less. */
function overBudget(query: string, error: QueryLimitError): McpctxError {
  const remedy =
    error.limit === 'size' || error.limit === 'depth'
      ? 'Build less: select the items or fields you need (items[*].{n: number, t: title}) instead of repeating or nesting whole values.'
      : 'Ask for less work: select a part first (items[0:100]), drop repeated pipes and multiselects of @, and run functions (sort_by, to_string, join) over a selection rather than the whole result.';
  return new McpctxError('INVALID_QUERY', `JMESPath query ${JSON.stringify(query.slice(0, 80))} was stopped: ${error.message}. ${remedy}`);
}

function previewKeys(object: Record<string, unknown>): string {
  const keys = Object.keys(object);
  const shown = keys.slice(0, 12).map((key) => JSON.stringify(key));
  return keys.length > shown.length ? `${shown.join(', ')} and ${keys.length - shown.length} more` : shown.join(', ') || 'none';
}
