// @ts-check
// The data side of the pull-requests example: loading and validating an export of GitHub pull
// requests, the summary projection, and the two ways of listing them (the pass-through page as
// servers first ship it, and the token-budget page). No MCP here: server.js wires these into
// tools, and bench/shape.bench.ts measures them. Everything but loadPullRequests is pure.
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildToolResult, defineProjection, pageByTokens, pathsOf, toolError } from 'mcpctx/shape';
import { sha256Hex } from 'mcpctx/tokens';

/** @typedef {import('mcpctx/shape').CursorCodec} CursorCodec */
/** @typedef {import('mcpctx/shape').Projection} Projection */
/** @typedef {import('mcpctx/shape').FieldSpec} FieldSpec */
/** @typedef {import('mcpctx/shape').TextToolResult} TextToolResult */
/** @typedef {import('mcpctx/shape').TokenPageResult<Record<string, unknown>>} SummaryPage */

/**
 * One pull request as the GitHub REST API returns it. Only the fields below are checked;
 * every other field is kept as it is and sent by the `before` tool.
 * @typedef {{
 *   number: number,
 *   title: string,
 *   state: 'open' | 'closed',
 *   body: string | null,
 *   user: { login: string },
 *   head: { ref: string },
 *   base: { ref: string },
 *   created_at: string,
 *   [key: string]: unknown,
 * }} PullRequest
 */

/** @typedef {'all' | 'open' | 'closed'} StateFilter */

/** The recording this example serves: 30 closed pull requests of openmicroscopy/ome-documentation. */
export const DEFAULT_DATA_PATH = fileURLToPath(new URL('./data/pulls.json', import.meta.url));

/** Most o200k tokens in one `after` page, envelope included. */
export const PAGE_TOKENS = 4000;
/** Tokens set aside for the page envelope (counts, cursor, note) while records are added. */
export const ENVELOPE_RESERVE = 150;
/** Body characters a list summary keeps. */
export const BODY_PREVIEW_CHARS = 280;
/** Most body characters `get_pull_request` returns (and its default). */
export const BODY_MAX_CHARS = 4000;
/** Limits on a data file, checked before it is parsed (bytes) and after (records). */
export const MAX_RECORDS = 100_000;
export const MAX_BYTES = 64 * 1024 * 1024;

/** The result cap `after` applies unless told otherwise; `before` has none, to show the problem. */
export const AFTER_MAX_RESULT_TOKENS = 25_000;

/** GitHub's per_page limits and default, which the `before` tool keeps. */
export const PER_PAGE_DEFAULT = 30;
export const PER_PAGE_MAX = 100;

export const LIST_TOOL = 'list_pull_requests';
export const GET_TOOL = 'get_pull_request';
/** @type {readonly StateFilter[]} */
export const STATE_FILTERS = ['all', 'open', 'closed'];

/**
 * What a list summary keeps: about a dozen fields, the number (the id a follow-up call needs)
 * first, the body cut to a preview with `body_truncated` saying so.
 * @type {readonly FieldSpec[]}
 */
export const SUMMARY_FIELDS = [
  'number',
  'title',
  'state',
  { path: 'user.login', as: 'author' },
  'created_at',
  'closed_at',
  'merged_at',
  { path: 'head.ref', as: 'head' },
  { path: 'base.ref', as: 'base' },
  'html_url',
  { path: 'body', maxChars: BODY_PREVIEW_CHARS },
];

/** A data file that breaks a rule: the message names the file, the record and the rule. */
export class DataFileError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'DataFileError';
    this.code = 'INVALID_RECORDS';
  }
}

/**
 * Reads and validates a JSON export of pull requests (an array, as `GET /repos/{owner}/{repo}/pulls`
 * returns it). The revision is the SHA-256 of the file's bytes, so any edit invalidates cursors.
 * @param {string} path
 * @returns {Promise<{ pulls: PullRequest[], revision: string }>}
 */
export async function loadPullRequests(path) {
  let size;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new DataFileError(`${path}: cannot read the data file (${errorMessage(error)}).`);
  }
  // Checked before reading, so a huge file is refused without loading it.
  if (size > MAX_BYTES) throw new DataFileError(`${path}: the file is ${size} bytes, over the limit of ${MAX_BYTES} (64 MiB).`);
  let bytes;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new DataFileError(`${path}: cannot read the data file (${errorMessage(error)}).`);
  }
  if (bytes.length > MAX_BYTES) throw new DataFileError(`${path}: the file is ${bytes.length} bytes, over the limit of ${MAX_BYTES} (64 MiB).`);
  let parsed;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new DataFileError(`${path}: the file is not valid UTF-8 JSON (${errorMessage(error)}).`);
  }
  return { pulls: validatePullRequests(parsed, path), revision: sha256Hex(bytes) };
}

/**
 * Checks the rules every record must follow; the first record that breaks one is reported by
 * its index (from 0) and its number, with the rule.
 * @param {unknown} value the parsed file
 * @param {string} [source] how to name the file in messages
 * @returns {PullRequest[]}
 */
export function validatePullRequests(value, source = 'data') {
  if (!Array.isArray(value)) throw new DataFileError(`${source}: the file must hold a JSON array of pull requests, not ${describe(value)}.`);
  if (value.length > MAX_RECORDS) {
    throw new DataFileError(`${source}: it holds ${value.length} records, over the limit of ${MAX_RECORDS}.`);
  }
  /** @type {Map<number, number>} number -> index of the record that has it */
  const seen = new Map();
  value.forEach((record, index) => {
    /** @param {string} rule */
    const broken = (rule) => {
      const number = isPlainObject(record) && isPositiveInteger(record.number) ? ` (number ${record.number})` : '';
      return new DataFileError(`${source}: record ${index}${number}: ${rule}`);
    };
    if (!isPlainObject(record)) throw broken(`must be an object, not ${describe(record)}.`);
    if (!isPositiveInteger(record.number)) throw broken(`"number" must be a positive integer, got ${describe(record.number)}.`);
    const earlier = seen.get(record.number);
    if (earlier !== undefined) throw broken(`"number" ${record.number} repeats record ${earlier}; numbers must be unique.`);
    seen.set(record.number, index);
    if (typeof record.title !== 'string') throw broken(`"title" must be a string, got ${describe(record.title)}.`);
    if (record.state !== 'open' && record.state !== 'closed') {
      throw broken(`"state" must be "open" or "closed", got ${describe(record.state)}.`);
    }
    if (typeof record.body !== 'string' && record.body !== null) throw broken(`"body" must be a string or null, got ${describe(record.body)}.`);
    for (const [object, key] of /** @type {const} */ ([['user', 'login'], ['head', 'ref'], ['base', 'ref']])) {
      const parent = record[object];
      const child = isPlainObject(parent) ? parent[key] : undefined;
      if (typeof child !== 'string') {
        throw broken(`"${object}.${key}" must be a string, got ${isPlainObject(parent) ? describe(child) : `${describe(parent)} for "${object}"`}.`);
      }
    }
    if (typeof record.created_at !== 'string') throw broken(`"created_at" must be a string, got ${describe(record.created_at)}.`);
  });
  return /** @type {PullRequest[]} */ (value);
}

/**
 * Summary fields the rules do not require: a record without them shows null (GitHub always sends
 * them; closed_at and merged_at stay null until a pull request is closed or merged).
 */
export const NULLABLE_SUMMARY_PATHS = ['closed_at', 'merged_at', 'html_url'];

/**
 * The list summary. Its paths are checked against the data (with the nullable ones allowed to
 * be absent), so a misspelt field fails at start instead of showing a column of nulls.
 * @param {readonly PullRequest[]} pulls
 * @returns {Projection}
 */
export function summaryProjection(pulls) {
  // With no records there is nothing to check the paths against (and nothing to show).
  const knownPaths =
    pulls.length === 0
      ? SUMMARY_FIELDS.map((spec) => (typeof spec === 'string' ? spec : spec.path))
      : [...pathsOf(pulls), ...NULLABLE_SUMMARY_PATHS];
  return defineProjection(SUMMARY_FIELDS, { knownPaths });
}

/**
 * The query a cursor is bound to: the tool and its filter.
 * @param {StateFilter} state
 */
export function listBinding(state) {
  return { tool: LIST_TOOL, state };
}

/**
 * @param {readonly PullRequest[]} pulls
 * @param {StateFilter} state
 */
export function filterByState(pulls, state) {
  return state === 'all' ? [...pulls] : pulls.filter((pull) => pull.state === state);
}

/**
 * The summaries of the pull requests that match `state`, in the data's order.
 * @param {readonly PullRequest[]} pulls
 * @param {StateFilter} state
 * @param {Projection} projection
 */
export function summaryRows(pulls, state, projection) {
  return filterByState(pulls, state).map((pull) => projection.apply(pull));
}

/**
 * The `after` list: summaries in the data's order, paged by the o200k tokens of the exact text
 * sent. Cursor errors (INVALID_CURSOR, FOREIGN_CURSOR, STALE_CURSOR) are thrown as McpctxError.
 * @param {{
 *   pulls: readonly PullRequest[],
 *   revision: string,
 *   state?: StateFilter,
 *   cursor?: string | undefined,
 *   codec: CursorCodec,
 *   budget?: number,
 *   reserve?: number,
 *   projection?: Projection,
 *   rows?: readonly Record<string, unknown>[],
 * }} options `projection` defaults to `summaryProjection(pulls)`; `rows` to `summaryRows(pulls, state,
 *   projection)`. A server whose data does not change passes them to make them once, not per page.
 * @returns {SummaryPage}
 */
export function listPage({ pulls, revision, state = 'all', cursor, codec, budget = PAGE_TOKENS, reserve = ENVELOPE_RESERVE, projection, rows }) {
  return pageByTokens({
    items: rows ?? summaryRows(pulls, state, projection ?? summaryProjection(pulls)),
    budget,
    reserve,
    cursor,
    codec,
    binding: { query: listBinding(state), revision },
    continueHint: `call ${LIST_TOOL} again with state "${state}" and cursor set to next_cursor`,
  });
}

/**
 * The `after` get: one pull request's summary fields with its body up to `bodyMaxChars`.
 * An unknown number is an `isError` result saying which numbers exist and what to call.
 * @param {{ pulls: readonly PullRequest[], number: number, bodyMaxChars?: number, projection?: Projection }} options
 *   `projection`: the summary projection, when already made (its paths are checked once, there).
 * @returns {{ found: true, pull: Record<string, unknown>, result: TextToolResult, text: string, tokens: number }
 *   | { found: false, message: string, result: TextToolResult }}
 */
export function getPullRequest({ pulls, number, bodyMaxChars = BODY_MAX_CHARS, projection }) {
  const pull = pulls.find((candidate) => candidate.number === number);
  if (pull === undefined) {
    const message = notFoundMessage(pulls, number);
    return { found: false, message, result: toolError(message) };
  }
  const projected = (projection ?? summaryProjection(pulls)).withCaps({ body: bodyMaxChars }).apply(pull);
  const built = buildToolResult(projected, { mode: 'text-only' });
  return { found: true, pull: projected, result: built.result, text: built.text, tokens: built.textTokens };
}

/**
 * @param {readonly PullRequest[]} pulls
 * @param {number} number
 */
export function notFoundMessage(pulls, number) {
  const head = `NOT_FOUND: there is no pull request #${number} in this data.`;
  if (pulls.length === 0) return `${head} It holds no pull requests.`;
  let below;
  let above;
  let lowest = Infinity;
  let highest = -Infinity;
  for (const pull of pulls) {
    lowest = Math.min(lowest, pull.number);
    highest = Math.max(highest, pull.number);
    if (pull.number < number && (below === undefined || pull.number > below)) below = pull.number;
    if (pull.number > number && (above === undefined || pull.number < above)) above = pull.number;
  }
  const nearest = [below, above].filter((value) => value !== undefined).map((value) => `#${value}`);
  return (
    `${head} It holds ${pulls.length} pull requests numbered #${lowest} to #${highest} (not every number in between); ` +
    `the nearest are ${nearest.join(' and ')}. Call ${LIST_TOOL} to see which exist.`
  );
}

/**
 * The `before` list, as a pass-through server ships it: GitHub's page of every field of every
 * pull request, as the text block and again as `structuredContent` (a typed return; MCP wants
 * an object there, so the array is wrapped). For the defaults the text is the file's bytes.
 * @param {{ pulls: readonly PullRequest[], state?: StateFilter, perPage?: number, page?: number }} options
 * @returns {{ pulls: PullRequest[], text: string, result: { content: { type: 'text', text: string }[], structuredContent: { pull_requests: PullRequest[] } } }}
 */
export function beforePage({ pulls, state = 'all', perPage = PER_PAGE_DEFAULT, page = 1 }) {
  if (!Number.isSafeInteger(perPage) || perPage < 1 || perPage > PER_PAGE_MAX) {
    throw new RangeError(`per_page must be an integer from 1 to ${PER_PAGE_MAX}, got ${perPage}`);
  }
  if (!Number.isSafeInteger(page) || page < 1) throw new RangeError(`page must be a positive integer, got ${page}`);
  const start = (page - 1) * perPage;
  const shown = filterByState(pulls, state).slice(start, start + perPage);
  const text = JSON.stringify(shown);
  return { pulls: shown, text, result: { content: [{ type: 'text', text }], structuredContent: { pull_requests: shown } } };
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @param {unknown} value
 * @returns {value is number}
 */
function isPositiveInteger(value) {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** @param {unknown} value */
function describe(value) {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const shown = JSON.stringify(value);
  return `${typeof value === 'string' ? 'the string' : `the ${typeof value}`} ${shown.length > 40 ? `${shown.slice(0, 40)}...` : shown}`;
}

/** @param {unknown} error */
function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}
