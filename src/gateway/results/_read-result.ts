import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { INVALID_PARAMS, toolError, toolErrorFrom, toolResultCost } from '../../shape/index.js';
import { isWithinTokenLimit, jsonText } from '../../tokens/index.js';
import { isPlainObject } from '../../json/index.js';
import type { TokenCodec } from './_handles.js';
import { selectPath, runQuery } from './_json-select.js';
import { PATH_SYNTAX } from '../config/index.js';
import { HANDLE_SCOPE, defaultWalk, readScope, walkOf } from './_offload.js';
import type { AnyOffloadStore } from './_offload-store.js';
import type { StoreSteps } from './_store-steps.js';
import type { ShapeOutcome } from './_result-types.js';
import { loadEntry } from './_stored-pages.js';
import { walkPage } from './_walk.js';

export const READ_RESULT_TOOL = 'read_result';

/**
 * A read_result page holds at most this many tokens, or the stored tool's pageTokens when it has
 * one, and never more than the gateway's cap.
 */
export const READ_PAGE_TOKENS = 4000;

export const READ_RESULT_DEFINITION: Record<string, unknown> = {
  name: READ_RESULT_TOOL,
  description:
    'Read a tool result that was stored because it was too large to send whole (the preview gives its handle). ' +
    'With handle only: pages through it (pass next_cursor as cursor to read on). ' +
    `path: one value, ${PATH_SYNTAX}. query: a JMESPath expression, like items[*].number or items[?state=='open'].title.`,
  inputSchema: {
    type: 'object',
    properties: {
      handle: { type: 'string', description: 'The handle from the preview.' },
      cursor: { type: 'string', description: 'next_cursor of the previous page; omit for the first page.' },
      path: { type: 'string', description: 'One value, like items[3].title. Not with query.' },
      query: { type: 'string', description: 'JMESPath over the stored result. Not with path.' },
    },
    required: ['handle'],
    additionalProperties: false,
  },
};

const ARGUMENTS = ['handle', 'cursor', 'path', 'query'];

export interface ReadResultDeps {
  readonly store: AnyOffloadStore;
  readonly codec: TokenCodec;
}

/**
 * read_result: a malformed call (not an object, no handle, a non-string argument, path and query
 * together, an unknown argument) throws INVALID_ARGUMENT with rpcCode -32602; every refusal
 * of a well-formed call (bad handle or cursor, missing path, bad query) is an isError result.
 */
export function* readResult(deps: ReadResultDeps, args: Record<string, unknown> | undefined, ctx: { sessionId: string; capTokens: number }): StoreSteps<ShapeOutcome> {
  const { handle, cursor, path, query } = checkArguments(args);
  const { store, codec } = deps;
  try {
    const now = store.now();
    const opened = codec.open(handle, { kind: 'handle', sessionId: ctx.sessionId, scope: HANDLE_SCOPE, now, ttlMs: store.ttlMs });
    const entry = yield* loadEntry(store, opened.id, 'offload', 'handle');
    const scope = readScope(opened.id, path, query);
    const at = cursor === undefined ? { position: 0, offset: 0 } : codec.open(cursor, { kind: 'cursor', sessionId: ctx.sessionId, scope, now, ttlMs: store.ttlMs });
    const budget = Math.max(1, Math.min(ctx.capTokens, entry.pageTokens ?? READ_PAGE_TOKENS));
    const walk = path !== undefined ? walkOf(selectPath(entry.value, path), path) : query !== undefined ? walkOf(runQuery(entry.value, query), '') : defaultWalk(entry.value);
    if (cursor === undefined) {
      const whole = jsonText(walk.whole, 'The selected value') ?? 'null';
      if (isWithinTokenLimit(whole, budget) !== false) return delivered({ content: [{ type: 'text', text: whole }] }, 'passed', 'read whole');
    }
    const { items, unit } = walk;
    const page = walkPage({
      items,
      budget,
      at: { position: at.position, offset: at.offset },
      codec,
      id: opened.id,
      issuedAt: opened.issuedAt,
      sessionId: ctx.sessionId,
      scope,
      revision: entry.revision,
      continueHint: `call read_result again with the same handle${path !== undefined ? ' and path' : ''}${query !== undefined ? ' and query' : ''} and cursor set to next_cursor`,
      itemName: query !== undefined ? (position) => `item ${position + 1} of the query's value` : walk.itemName,
    });
    if (page.tokens > ctx.capTokens) {
      return refused(`RESULT_TOO_LARGE: even one ${unit === 'pieces' ? 'piece' : 'item'} of this value is ${page.tokens} tokens, over the cap of ${ctx.capTokens}. Select a smaller part with path or query.`);
    }
    const part = page.part === undefined ? '' : `, characters ${page.part.from + 1}-${page.part.to} of ${page.part.length}`;
    return delivered({ content: [{ type: 'text', text: page.text }] }, 'paged', `${unit} ${page.start + 1}-${page.end} of ${items.length}${part}`);
  } catch (error) {
    const result = toolErrorFrom(error);
    return { result, action: 'refused', upstreamTokens: 0, deliveredTokens: toolResultCost(result).textTokens, note: isMcpctxError(error) ? error.code : 'error' };
  }
}

function delivered(result: Record<string, unknown>, action: ShapeOutcome['action'], note: string): ShapeOutcome {
  return { result, action, upstreamTokens: 0, deliveredTokens: toolResultCost(result).textTokens, note };
}

function refused(text: string): ShapeOutcome {
  const result = toolError(text);
  return { result, action: 'refused', upstreamTokens: 0, deliveredTokens: toolResultCost(result).textTokens };
}

function checkArguments(args: Record<string, unknown> | undefined): { handle: string; cursor?: string; path?: string; query?: string } {
  const malformed = (why: string): McpctxError =>
    new McpctxError('INVALID_ARGUMENT', `read_result: ${why}. Call it as read_result({ handle, cursor?, path?, query? }) with the handle from the preview.`, {
      rpcCode: INVALID_PARAMS,
    });
  if (!isPlainObject(args)) throw malformed('its arguments must be an object');
  const unknown = Object.keys(args).filter((key) => !ARGUMENTS.includes(key));
  if (unknown.length > 0) throw malformed(`unknown argument ${unknown.map((key) => JSON.stringify(key)).join(', ')}`);
  for (const key of ARGUMENTS) {
    if (args[key] !== undefined && typeof args[key] !== 'string') throw malformed(`"${key}" must be a string`);
  }
  if (typeof args.handle !== 'string' || args.handle === '') throw malformed('"handle" is required');
  if (args.path !== undefined && args.query !== undefined) throw malformed('pass path or query, not both (a query can do what a path does)');
  return args as { handle: string; cursor?: string; path?: string; query?: string };
}
