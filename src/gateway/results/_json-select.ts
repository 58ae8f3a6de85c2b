import type * as Jmespath from '@jmespath-community/jmespath';
import { McpctxError } from '../../errors/index.js';
import { lazyRequire } from '../../lazy/index.js';
import { MAX_JSON_DEPTH, isPlainObject, describeValue } from '../../json/index.js';
import { QueryLimitError, evaluateQuery, type QueryLimits } from './_query-budget.js';
import { MAX_PATH_CHARS, PATH_IDENTIFIER as IDENTIFIER, parsePath } from '../config/index.js';

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
