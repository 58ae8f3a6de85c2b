import { countTokens, isWithinTokenLimit, jsonText, sha256Hex } from '../../tokens/index.js';
import { isPlainObject, soleStringMember } from '../../json/index.js';
import { newStoreId, type TokenCodec } from './_handles.js';
import { storeDelete, storePut, type StoreSteps } from './_store-steps.js';
import { describeShape, othersOf, pageableItems, recordList, type PageUnit } from './_records.js';
import type { StoredEntry } from './_result-types.js';

/** The scope every handle is issued under (handles differ by their store id). */
export const HANDLE_SCOPE = 'offload';

/** The scope of a read_result cursor: the handle's entry, the path and the query. */
export function readScope(id: string, path: string | undefined, query: string | undefined): string {
  return JSON.stringify(['read_result', id, path ?? null, query ?? null]);
}

/** What read_result walks through: its items, in order, and how to name one in a note. */
export interface Walkable {
  readonly items: readonly unknown[];
  readonly unit: PageUnit;
  /** Path of the walked value, for hints ('' for the stored value itself). */
  readonly base: string;
  /** The walked value (its items come first), and the value read whole when it fits a page. */
  readonly view: unknown;
  readonly whole: unknown;
  /** How many of `items` are the view's; any after them are the members beside it. */
  readonly viewItems: number;
  /** `base[3]`, `base["key"]`, `base piece 7`: the item at a position, for a note. */
  readonly itemName: (position: number) => string;
}

/**
 * What read_result pages when it is given neither path nor query: the text of a value that only
 * wraps one string (`{content: "<text>"}`), the stored value's one list of records when it has one
 * (`pull_requests` of `{pull_requests: [...]}`) followed by the members beside it (one `{key:
 * value}` each, so that nothing is left out of the walk), else the value itself.
 */
export function defaultWalk(value: unknown): Walkable {
  const wrapped = soleStringMember(value);
  if (wrapped !== undefined) return walkOf(wrapped.text, pathOf([wrapped.key]), value);
  const list = recordList(value, '$');
  if (!list.found || list.steps.length === 0) return walkOf(value, '', value);
  const walk = walkOf(list.records, pathOf(list.steps), value);
  const others = othersOf(value, list.steps);
  if (others === undefined) return walk;
  const keys = Object.keys(others);
  const count = walk.items.length;
  return {
    ...walk,
    items: [...walk.items, ...keys.map((key) => Object.defineProperty({}, key, { value: others[key], enumerable: true, writable: true, configurable: true }))],
    itemName: (position) => (position < count ? walk.itemName(position) : pathOf([keys[position - count] ?? ''])),
  };
}

/** The walk of `view` (found at `base`), read whole as `whole` when that fits. */
export function walkOf(view: unknown, base: string, whole: unknown = view): Walkable {
  const { items, unit } = pageableItems(view);
  const keys = unit === 'members' && isPlainObject(view) ? Object.keys(view) : [];
  const itemName = (position: number): string => {
    if (unit === 'pieces') return `${base === '' ? 'the text' : base} piece ${position + 1}`;
    if (unit === 'value') return base === '' ? 'the value' : base;
    return `${base}${unit === 'members' ? `[${JSON.stringify(keys[position] ?? '')}]` : `[${position}]`}`;
  };
  return { items, unit, base, view, whole, viewItems: items.length, itemName };
}

/** Keys and indexes as a read_result path: `entities`, `data.items`, `["odd key"][2]`. */
export function pathOf(steps: ReadonlyArray<string | number>): string {
  return steps
    .map((step, index) => (typeof step === 'number' ? `[${step}]` : /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(step) ? `${index === 0 ? '' : '.'}${step}` : `[${JSON.stringify(step)}]`))
    .join('');
}

export interface OffloadRequest {
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
export function* offload(request: OffloadRequest): StoreSteps<OffloadOutcome> {
  const { codec, sessionId, tool, value, tokens } = request;
  const valueText = jsonText(value, 'The offloaded value') ?? 'null';
  const entry: StoredEntry = { v: 1, kind: 'offload', session: sessionId, tool, revision: sha256Hex(valueText), pageTokens: request.pageTokens, tokens, value };
  const id = newStoreId();
  const put = yield* storePut(id, JSON.stringify(entry));
  if (!put.stored) {
    return {
      stored: false,
      why: `it is too large for the gateway's store as well (${put.bytes.toLocaleString('en-US')} bytes, over its ${put.maxBytes.toLocaleString('en-US')}-byte cap)`,
    };
  }
  const issuedHandle = codec.issue({ kind: 'handle', id, issuedAt: put.at, sessionId, scope: HANDLE_SCOPE, position: 0 });
  const walk = defaultWalk(value);
  const { items, base, view } = walk;
  const example = typeof view === 'string' ? base || '@' : exampleQuery(view, base);
  const beside = items.length - walk.viewItems;
  // `blank`: the handle and cursor left empty, for fitting items by a count that does not depend on them.
  const build = (shown: number, body: string, blank = false): string => {
    const more = shown < items.length;
    const handle = blank ? '' : issuedHandle;
    const nextCursor = !more ? null : blank ? '' : codec.issue({ kind: 'cursor', id, issuedAt: put.at, sessionId, scope: readScope(id, undefined, undefined), position: shown });
    const where = beside > 0 ? ` (the ${walk.viewItems} of ${base}, then the ${beside} members beside it, one {key: value} each)` : base === '' ? '' : ` of ${base}`;
    const note =
      `${request.reason}, so the full result is stored for this session. items: the first ${shown} of ${items.length}${where}. ` +
      `Call read_result with {"handle":"${handle}"}${more ? ' and cursor set to next_cursor to read on' : ''}; ` +
      `add "path" (like ${JSON.stringify(typeof view === 'string' ? base || '$' : examplePath(view, base))}) for one value, or "query" (JMESPath, like ${JSON.stringify(example)}) to select fields.`;
    const head = jsonText({ handle, tokens, shape: describeShape(value) }, 'The preview') ?? '{}';
    const tail = jsonText({ next_cursor: nextCursor, note }, 'The preview') ?? '{}';
    return `${head.slice(0, -1)},"items":[${body}],${tail.slice(1)}`;
  };
  // Items are added one line each while the preview fits (o200k pieces end at a line break, so the
  // lines' counts add up); the finished text is counted again, and items given back until it fits.
  // The handle (twice) and the cursor are random text whose count varies by dozens of tokens: the
  // fit reserves their most (a token is at least a character), so one call's preview holds the
  // same items every time.
  const MARK = '\u0000';
  const [open = '', close = ''] = build(0, MARK, true).split(MARK);
  let used = countTokens(open) + countTokens(close) + 3 * issuedHandle.length;
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
  yield* storeDelete(id);
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
