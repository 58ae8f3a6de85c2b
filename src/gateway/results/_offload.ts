import { countTokens, isWithinTokenLimit, jsonText, sha256Hex } from '../../tokens/index.js';
import { isPlainObject } from '../../json/index.js';
import { newStoreId, type TokenCodec } from './_handles.js';
import type { OffloadStore } from './_offload-store.js';
import { describeShape, pageableItems, recordList } from './_records.js';
import type { StoredEntry } from './_result-types.js';

/** The scope every handle is issued under (handles differ by their store id). */
export const HANDLE_SCOPE = 'offload';

/** The scope of a read_result cursor: the handle's entry, the path and the query. */
export function readScope(id: string, path: string | undefined, query: string | undefined): string {
  return JSON.stringify(['read_result', id, path ?? null, query ?? null]);
}

/**
 * What read_result pages when it is given neither path nor query: the stored value's one list of
 * records when it has one (`pull_requests` of `{pull_requests: [...]}`), else the value itself.
 * `base` is the path of that list, for hints.
 */
export function defaultView(value: unknown): { view: unknown; base: string } {
  const list = recordList(value, '$');
  if (list.found && list.key !== undefined) return { view: list.records, base: list.key };
  return { view: value, base: '' };
}

export interface OffloadRequest {
  readonly store: OffloadStore;
  readonly codec: TokenCodec;
  readonly sessionId: string;
  readonly tool: string;
  readonly value: unknown;
  /** Tokens of the result it replaces. */
  readonly tokens: number;
  /** What the preview may cost at most. */
  readonly budget: number;
  readonly pageTokens: number | undefined;
  /** Why the result was not sent, for the note ("over the cap of 25,000 tokens"). */
  readonly reason: string;
}

export type OffloadOutcome =
  | { readonly stored: true; readonly text: string; readonly tokens: number; readonly shown: number; readonly total: number }
  | { readonly stored: false; readonly why: string };

const ITEM_SEPARATOR = ',\n';

/**
 * Stores `value` and builds the preview the client gets instead: compact JSON of
 * `{ handle, tokens, shape, items, next_cursor, note }` under `budget`, `items` being the first
 * items of the value's list that fit, `next_cursor` the read_result cursor after them.
 */
export function offload(request: OffloadRequest): OffloadOutcome {
  const { store, codec, sessionId, tool, value, tokens } = request;
  const valueText = jsonText(value, 'The offloaded value') ?? 'null';
  const entry: StoredEntry = { v: 1, kind: 'offload', session: sessionId, tool, revision: sha256Hex(valueText), pageTokens: request.pageTokens, tokens, value };
  const id = newStoreId();
  const put = store.put(id, JSON.stringify(entry));
  if (!put.stored) {
    return {
      stored: false,
      why: `it is too large for the gateway's store as well (${put.bytes.toLocaleString('en-US')} bytes, over its ${put.maxBytes.toLocaleString('en-US')}-byte cap)`,
    };
  }
  const handle = codec.issue({ kind: 'handle', id, issuedAt: put.at, sessionId, scope: HANDLE_SCOPE, position: 0 });
  const { view, base } = defaultView(value);
  const { items } = pageableItems(view);
  const example = exampleQuery(view, base);
  const build = (shown: number, body: string): string => {
    const more = shown < items.length;
    const nextCursor = more ? codec.issue({ kind: 'cursor', id, issuedAt: put.at, sessionId, scope: readScope(id, undefined, undefined), position: shown }) : null;
    const where = base === '' ? '' : ` of ${base}`;
    const note =
      `${request.reason}, so the full result is stored for this session. items: the first ${shown} of ${items.length}${where}. ` +
      `Call read_result with {"handle":"${handle}"}${more ? ' and cursor set to next_cursor to read on' : ''}; ` +
      `add "path" (like ${JSON.stringify(examplePath(view, base))}) for one value, or "query" (JMESPath, like ${JSON.stringify(example)}) to select fields.`;
    const head = jsonText({ handle, tokens, shape: describeShape(value) }, 'The preview') ?? '{}';
    const tail = jsonText({ next_cursor: nextCursor, note }, 'The preview') ?? '{}';
    return `${head.slice(0, -1)},"items":[${body}],${tail.slice(1)}`;
  };
  // Items are added one line each while the preview fits (o200k pieces end at a line break, so the
  // lines' counts add up); the finished text is counted again, and items given back until it fits.
  const MARK = '\u0000';
  const [open = '', close = ''] = build(0, MARK).split(MARK);
  let used = countTokens(open) + countTokens(close);
  const lines: string[] = [];
  for (const item of items) {
    const line = (jsonText(item, 'An offloaded item') ?? 'null') + ITEM_SEPARATOR;
    const room = request.budget - used;
    const counted = room > 0 ? isWithinTokenLimit(line, room) : false;
    if (counted === false) break;
    lines.push(line.slice(0, -ITEM_SEPARATOR.length));
    used += counted;
  }
  for (let shown = lines.length; shown >= 0; shown -= 1) {
    const text = build(shown, shown === 0 ? '' : `\n${lines.slice(0, shown).join(ITEM_SEPARATOR)}\n`);
    const textTokens = isWithinTokenLimit(text, request.budget);
    if (textTokens !== false) return { stored: true, text, tokens: textTokens, shown, total: items.length };
  }
  store.delete(id);
  return { stored: false, why: `even a preview without items is over ${request.budget.toLocaleString('en-US')} tokens` };
}

function exampleQuery(view: unknown, base: string): string {
  const prefix = base === '' ? '' : base;
  if (Array.isArray(view)) {
    const first = view.find(isPlainObject);
    const key = first === undefined ? undefined : (['number', 'id', 'name', 'title'].find((name) => Object.hasOwn(first, name)) ?? Object.keys(first)[0]);
    return key === undefined ? `${prefix}[0:5]` : `${prefix}[*].${key}`;
  }
  if (isPlainObject(view)) return 'keys(@)';
  return '@';
}

function examplePath(view: unknown, base: string): string {
  if (Array.isArray(view)) return `${base}[0]`;
  if (isPlainObject(view)) {
    const key = Object.keys(view)[0];
    return key === undefined ? '$' : /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  }
  return '$';
}
