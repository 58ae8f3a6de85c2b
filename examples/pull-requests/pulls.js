// @ts-check
// The data side of the pull-requests example: loading and validating an export of GitHub pull
// requests, the summary projection, and the two ways of listing them (the pass-through page as
// servers first ship it, and the token-budget page). No MCP here: server.js wires these into
// tools, and bench/shape.bench.ts measures them. Everything but loadPullRequests is pure.
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildToolResult, capText, defineProjection, pageByTokens, pathsOf, toolError, toolResultTokensWithin } from 'mcpctx/shape';
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
/** Most characters of one text field `get_pull_request` returns when it reads the field in parts. */
export const PART_MAX_CHARS = 4000;
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

/** The summary fields `get_pull_request` can read in parts (`field`, `offset`, `length`): every one but the number. */
export const PART_FIELDS = /** @type {const} */ (['title', 'state', 'author', 'created_at', 'closed_at', 'merged_at', 'head', 'base', 'html_url', 'body']);

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
    // A summary too large for a page (a 150,000-character title) is sent cut, with its number and
    // a pointer to the part of get_pull_request that reads the cut fields in pieces.
    idField: 'number',
    fetchHint: ({ id, paths }) => partsHint(id, paths),
  });
}

/**
 * What a page says about a pull request it had to cut: which call reads the cut fields in parts.
 * @param {unknown} number
 * @param {readonly string[]} paths the cut paths (summary field names)
 */
export function partsHint(number, paths) {
  /** @type {readonly string[]} */
  const readable = PART_FIELDS;
  const fields = paths.filter((path) => readable.includes(path));
  const first = fields[0] ?? 'title';
  const call = JSON.stringify({ number, field: first, offset: 0 });
  return (
    `Read ${fields.length === 0 ? 'its fields' : fields.join(', ')} in parts: call ${GET_TOOL} ${call}, ` +
    'then again with offset set to next_offset until next_offset is null'
  );
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
 * One part of one text field of a pull request: `length` characters (at most PART_MAX_CHARS) from
 * `offset`, with `next_offset` (null at the end) and the field's `total_chars`. The way to read a
 * field too long for one result, such as a title that made a list page cut its summary.
 * @param {{ pulls: readonly PullRequest[], number: number, field: string, offset?: number, length?: number, projection?: Projection }} options
 * @returns {{ found: true, part: Record<string, unknown>, result: TextToolResult } | { found: false, message: string, result: TextToolResult }}
 */
export function getPullRequestPart({ pulls, number, field, offset = 0, length = PART_MAX_CHARS, projection }) {
  const pull = pulls.find((candidate) => candidate.number === number);
  if (pull === undefined) {
    const message = notFoundMessage(pulls, number);
    return { found: false, message, result: toolError(message) };
  }
  if (!Number.isSafeInteger(length) || length < 1 || length > PART_MAX_CHARS) {
    const message = `INVALID_ARGUMENT: length must be an integer from 1 to ${PART_MAX_CHARS}, got ${length}.`;
    return { found: false, message, result: toolError(message) };
  }
  /** @type {readonly string[]} */
  const readable = PART_FIELDS;
  if (!readable.includes(field)) {
    const message = `INVALID_ARGUMENT: field must be one of ${PART_FIELDS.join(', ')}; got ${JSON.stringify(field)}.`;
    return { found: false, message, result: toolError(message) };
  }
  const spec = (projection ?? summaryProjection(pulls)).fields.find((candidate) => candidate.name === field);
  /** @type {unknown} */
  let value = pull;
  for (const key of spec?.keys ?? []) value = value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? /** @type {Record<string, unknown>} */ (value)[key] : null;
  const text = typeof value === 'string' ? value : '';
  if (offset > text.length) {
    const message = `OUT_OF_RANGE: offset ${offset} is past the end of ${field} of #${number}, which has ${text.length} characters. Start at offset 0.`;
    return { found: false, message, result: toolError(message) };
  }
  let piece = capText(text.slice(offset), length).text;
  // A length of 1 at the first half of a surrogate pair: send the pair, so the walk always advances.
  if (piece === '' && offset < text.length) piece = text.slice(offset, offset + 2);
  const end = offset + piece.length;
  const part = { number, field, offset, text: piece, next_offset: end < text.length ? end : null, total_chars: text.length };
  return { found: true, part, result: buildToolResult(part, { mode: 'text-only' }).result };
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
 * What the `before` list's guard tells the model when it refuses a page: a per_page that fits,
 * computed from the data and checked by counting. The cost of each pull request on a page of its
 * own (text and structured copy, as the guard counts them) gives the estimate, the cap divided by
 * the largest; every page of that size is then counted, and the size lowered until all of them
 * fit. When a pull request is over the cap even alone, no per_page fits: the remedy says to fetch
 * them one at a time and names the ones that cannot be fetched whole.
 * @param {{ pulls: readonly PullRequest[], state?: StateFilter, perPage?: number, page?: number, maxTokens: number }} options
 *   the refused call's arguments and the guard's cap
 * @returns {{ perPage: number | null, page: number | null, text: string }} `perPage` null when none fits
 */
export function beforeRemedy({ pulls, state = 'all', perPage = PER_PAGE_DEFAULT, page = 1, maxTokens }) {
  const matching = filterByState(pulls, state);
  const pageFits = (/** @type {number} */ size, /** @type {number} */ number) =>
    toolResultTokensWithin(beforePage({ pulls: matching, perPage: size, page: number }).result, maxTokens) !== false;
  const firstShown = (page - 1) * perPage;
  // Each pull request on a page of its own, counted as the guard counts (up to the cap).
  const alone = matching.map((pull) => toolResultTokensWithin(beforePage({ pulls: [pull] }).result, maxTokens));
  const tooLarge = matching.flatMap((pull, index) => (alone[index] === false ? [{ pull, index }] : []));
  if (tooLarge.length > 0) {
    const named = tooLarge.slice(0, 10).map(({ pull, index }) => `#${pull.number} (page ${index + 1})`);
    return {
      perPage: null,
      page: null,
      text:
        `No per_page fits the cap of ${maxTokens.toLocaleString('en-US')} tokens: fetch the pull requests one at a time with per_page 1 ` +
        `(page ${Math.min(firstShown, matching.length - 1) + 1} is the first of this page). ` +
        `Even alone, ${named.join(', ')}${tooLarge.length > named.length ? ` and ${tooLarge.length - named.length} more` : ''} ` +
        `${tooLarge.length === 1 ? 'is' : 'are'} over the cap and cannot be returned by this tool.`,
    };
  }
  // The largest pull request bounds how many fit; then every page of that size is counted.
  const largest = Math.max(1, ...alone.map((cost) => (cost === false ? maxTokens : cost)));
  let size = Math.max(1, Math.min(PER_PAGE_MAX, perPage - 1, Math.floor(maxTokens / largest)));
  const allFit = (/** @type {number} */ candidate) => {
    for (let number = 1; (number - 1) * candidate < matching.length; number += 1) if (!pageFits(candidate, number)) return false;
    return true;
  };
  while (size > 1 && !allFit(size)) size -= 1;
  const start = Math.floor(firstShown / size) + 1;
  return {
    perPage: size,
    page: start,
    text:
      `Ask for at most ${size} pull request${size === 1 ? '' : 's'} per page: every page of per_page ${size} fits the cap of ` +
      `${maxTokens.toLocaleString('en-US')} tokens, and page ${start} holds the first pull request of the page refused here. Or narrow with state.`,
  };
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
