#!/usr/bin/env node
// @ts-check
// An MCP server (stdio) over a recorded export of GitHub pull requests, in two modes:
//
//   node examples/pull-requests/server.js before   the pass-through tool as servers first ship it
//   node examples/pull-requests/server.js after    the same data shaped with mcpctx/shape
//
// Options: --data FILE, --page-tokens N (after), --max-result-tokens N. See README.md.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { CursorCodec, guardToolResult, toolErrorFrom } from 'mcpctx/shape';
import * as z from 'zod';
import {
  BODY_MAX_CHARS,
  BODY_PREVIEW_CHARS,
  DEFAULT_DATA_PATH,
  DataFileError,
  AFTER_MAX_RESULT_TOKENS,
  ENVELOPE_RESERVE,
  GET_TOOL,
  LIST_TOOL,
  PAGE_TOKENS,
  PART_MAX_CHARS,
  PER_PAGE_DEFAULT,
  PER_PAGE_MAX,
  beforePage,
  beforeRemedy,
  getPullRequest,
  getPullRequestPart,
  listPage,
  loadPullRequests,
  summaryProjection,
  summaryRows,
} from './pulls.js';

/** @typedef {import('./pulls.js').PullRequest} PullRequest */
/** @typedef {import('./pulls.js').StateFilter} StateFilter */
/** @typedef {'before' | 'after'} Mode */

const USAGE = `usage: node server.js before|after [--data FILE] [--page-tokens N] [--max-result-tokens N]

  before                 list_pull_requests returns every field of every pull request on a GitHub page
  after                  list_pull_requests returns ~${PAGE_TOKENS.toLocaleString('en-US')}-token pages of summaries; get_pull_request fetches one
  --data FILE            a JSON array of pull requests as the GitHub API returns it (default: the bundled recording)
  --page-tokens N        after: most o200k tokens per page (default ${PAGE_TOKENS})
  --max-result-tokens N  refuse any result over N tokens (default: none in before, ${AFTER_MAX_RESULT_TOKENS} in after)`;

/**
 * @typedef {{ mode: Mode, data: string, pageTokens: number, maxResultTokens: number | undefined }} Options
 */

class UsageError extends Error {}

/**
 * @param {string[]} argv
 * @returns {Options}
 */
function parseOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        data: { type: 'string' },
        'page-tokens': { type: 'string' },
        'max-result-tokens': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) throw new UsageError('');
  const [mode, ...extra] = positionals;
  if (mode !== 'before' && mode !== 'after') throw new UsageError(`the first argument must be "before" or "after", got ${JSON.stringify(mode ?? '')}.`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}.`);
  if (mode === 'before' && values['page-tokens'] !== undefined) {
    throw new UsageError('--page-tokens applies to after mode only (before pages by per_page, as GitHub does).');
  }
  const pageTokens = values['page-tokens'] === undefined ? PAGE_TOKENS : positiveInteger('--page-tokens', values['page-tokens']);
  const maxResultTokens =
    values['max-result-tokens'] !== undefined
      ? positiveInteger('--max-result-tokens', values['max-result-tokens'])
      : mode === 'after'
        ? AFTER_MAX_RESULT_TOKENS
        : undefined;
  if (maxResultTokens !== undefined && mode === 'after' && pageTokens > maxResultTokens) {
    throw new UsageError(`--page-tokens ${pageTokens} is over the result cap of ${maxResultTokens}: every full page would be refused.`);
  }
  return { mode, data: values.data ?? DEFAULT_DATA_PATH, pageTokens, maxResultTokens };
}

/**
 * @param {string} flag
 * @param {string} text
 */
function positiveInteger(flag, text) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) throw new UsageError(`${flag} needs a positive integer of tokens, got ${JSON.stringify(text)}.`);
  return value;
}

/**
 * The MCP server for one mode over loaded data.
 * @param {Options} options
 * @param {{ pulls: PullRequest[], revision: string }} data
 */
function createServer(options, { pulls, revision }) {
  const server = new McpServer({ name: `mcpctx-example-pull-requests-${options.mode}`, version: packageVersion() });
  /**
   * @template {unknown[]} A
   * @template {import('mcpctx/shape').GuardableResult} R
   * @param {string} tool
   * @param {(...args: A) => R | Promise<R>} handler
   * @param {string | ((refusal: import('mcpctx/shape').ResultRefusal<A>) => string)} remedy
   */
  const guarded = (tool, handler, remedy) =>
    options.maxResultTokens === undefined ? handler : guardToolResult(tool, handler, { maxTokens: options.maxResultTokens, remedy, idField: 'number' });
  const maxTokens = options.maxResultTokens ?? Number.MAX_SAFE_INTEGER;

  if (options.mode === 'before') {
    server.registerTool(
      LIST_TOOL,
      {
        description: 'List pull requests in the repository. Returns every field of each pull request on the page.',
        inputSchema: z.object({
          state: z
            .enum(['open', 'closed', 'all'])
            .default('all')
            .describe("Filter by state. Default 'all' here (GitHub's own default is 'open')."),
          per_page: z.number().int().min(1).max(PER_PAGE_MAX).default(PER_PAGE_DEFAULT).describe('Results per page (max 100).'),
          page: z.number().int().min(1).default(1).describe('Page number of the results to fetch.'),
        }),
        outputSchema: z.object({ pull_requests: z.array(z.looseObject({})) }),
      },
      guarded(
        LIST_TOOL,
        ({ state, per_page, page }) => beforePage({ pulls, state, perPage: per_page, page }).result,
        // A page size computed from the data that fits the cap, not a guess.
        ({ args: [{ state, per_page, page }] }) => beforeRemedy({ pulls, state, perPage: per_page, page, maxTokens }).text,
      ),
    );
    return server;
  }

  const codec = new CursorCodec(); // a random key per process: a restart voids old cursors
  const projection = summaryProjection(pulls);
  const budget = options.pageTokens;
  const reserve = Math.min(ENVELOPE_RESERVE, Math.max(0, budget - 1));
  /** @type {Map<StateFilter, Record<string, unknown>[]>} summaries per state, made at the first call */
  const rowsByState = new Map();
  /** @param {StateFilter} state */
  const rowsFor = (state) => {
    let rows = rowsByState.get(state);
    if (rows === undefined) rowsByState.set(state, (rows = summaryRows(pulls, state, projection)));
    return rows;
  };
  server.registerTool(
    LIST_TOOL,
    {
      description:
        `List pull requests as JSON pages of at most ${budget.toLocaleString('en-US')} tokens: ` +
        `{items, total_matching, truncated, next_cursor, note}. Items are summaries (body cut to ${BODY_PREVIEW_CHARS} chars, body_truncated). ` +
        `While truncated is true, call again with the same state and cursor=next_cursor. Full body: ${GET_TOOL}.`,
      inputSchema: z.object({
        state: z.enum(['all', 'open', 'closed']).default('all').describe("Default 'all'."),
        cursor: z.string().optional().describe('next_cursor of the previous page; omit for the first page.'),
      }),
    },
    guarded(LIST_TOOL, ({ state, cursor }) => {
      try {
        const { text } = listPage({ pulls, revision, state, cursor, codec, budget, reserve, rows: rowsFor(state) });
        return { content: [{ type: /** @type {const} */ ('text'), text }] };
      } catch (error) {
        return toolErrorFrom(error);
      }
    }, LIST_REMEDY),
  );
  server.registerTool(
    GET_TOOL,
    {
      description:
        'One pull request by number: the summary fields with the body up to body_max_chars (body_truncated says if cut). ' +
        'With field: that field from offset instead, as {text, next_offset}; repeat with offset=next_offset until null.',
      inputSchema: z.object({
        number: z.number().int().min(1).describe('The pull request number.'),
        body_max_chars: z.number().int().min(1).max(BODY_MAX_CHARS).default(BODY_MAX_CHARS).describe(`Default ${BODY_MAX_CHARS}.`),
        field: z.string().optional().describe('A summary field, e.g. title or body.'),
        offset: z.number().int().min(0).default(0),
        length: z.number().int().min(1).max(PART_MAX_CHARS).default(PART_MAX_CHARS),
      }),
    },
    guarded(
      GET_TOOL,
      ({ number, body_max_chars, field, offset, length }) =>
        field === undefined
          ? getPullRequest({ pulls, number, bodyMaxChars: body_max_chars, projection }).result
          : getPullRequestPart({ pulls, number, field, offset, length, projection }).result,
      GET_REMEDY,
    ),
  );
  return server;
}

/** When the guard refuses a get: ask for less, or read the long field in parts. */
const GET_REMEDY = `Ask for less of the body with a smaller body_max_chars, or read a long field in parts with field, offset and length.`;
// Pages stay within --page-tokens, which is below the cap, and the pager cuts a record too large
// for a page: only a page over its budget (a record that does not fit even cut to its number) gets here.
const LIST_REMEDY = `Fetch the pull requests of this page one at a time with ${GET_TOOL}, reading long fields in parts with field and offset.`;

function packageVersion() {
  const require = createRequire(import.meta.url);
  return /** @type {{ version: string }} */ (require('mcpctx/package.json')).version;
}

/** @param {string[]} argv */
async function main(argv) {
  /** @type {Options} */
  let options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.message === '') {
      process.stdout.write(`${USAGE}\n`); // --help
      return 0;
    }
    process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  let data;
  try {
    data = await loadPullRequests(options.data);
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    process.stderr.write(`pull-requests server: refusing the data file. ${error.message}\n`);
    return 1;
  }
  const server = createServer(options, data);
  const transport = new StdioServerTransport();
  // When the client closes stdin the session is over: close the server so the process can exit.
  process.stdin.on('end', () => {
    void server.close();
  });
  await server.connect(transport);
  return undefined;
}

const exitCode = await main(process.argv.slice(2));
if (exitCode !== undefined) process.exitCode = exitCode;
