import { McpctxError } from '../../errors/index.js';
import { INVALID_PARAMS } from '../../shape/index.js';
import { isWithinTokenLimit, jsonText } from '../../tokens/index.js';
import { type BoundPagesOptions, storedPage } from './_stored-pages.js';

/** Where a read_result page starts: an item, and a character inside it when the item is walked in parts. */
export interface WalkPosition {
  readonly position: number;
  readonly offset: number;
}

export interface WalkOptions extends BoundPagesOptions {
  readonly at: WalkPosition;
  /** How an item is named in a note (`content[3]`, `entities["x"]`), by its position. */
  readonly itemName: (position: number) => string;
}

export interface WalkPage {
  readonly text: string;
  readonly tokens: number;
  /** Items the page covers, [start, end); a part page covers its one item. */
  readonly start: number;
  readonly end: number;
  /** Set on a part page: which characters of the item it holds. */
  readonly part?: { readonly from: number; readonly to: number; readonly length: number };
}

/**
 * Most characters of one part tried; a page of parts is not worth more than this (1 MiB of spaces
 * is 8,192 tokens, and counting it in one go takes seconds).
 */
const MAX_PART_CHARS_PER_TOKEN = 16;
/** A UTF-16 code unit is at most 6 bytes of JSON (`\u0001`), and a token at least one byte. */
const MAX_TOKENS_PER_CHAR = 6;

/**
 * One read_result page: the whole items from `at` that fit the budget, or, when the item at `at`
 * does not fit a page on its own (or the walk is already inside it), the next part of it: a span
 * of its text (a string item) or of its JSON text (any other), as long as fits. Nothing is ever
 * cut: the cursor moves through such an item character by character, so `truncated` and
 * `next_cursor` stay set until the last character of the last item has been sent.
 */
export function walkPage(options: WalkOptions): WalkPage {
  const { items, at } = options;
  if (at.position >= items.length && !(at.position === 0 && at.offset === 0)) throw outOfRange(`item ${at.position + 1}, past the ${items.length} there are`);
  if (at.offset === 0) {
    const page = storedPage({ ...options, position: at.position });
    // A page that had to cut its item is thrown away: that item is walked in parts instead.
    if (page.cut === null) return { text: page.text, tokens: page.tokens, start: page.start, end: page.end };
  }
  return partPage(options);
}

/** The text an item is walked through in parts: a string itself, anything else its JSON. */
function partText(item: unknown, position: number): { text: string; json: boolean } {
  if (typeof item === 'string') return { text: item, json: false };
  return { text: jsonText(item, `Item ${position + 1}`) ?? 'null', json: true };
}

function partPage(options: WalkOptions): WalkPage {
  const { items, budget, at, codec } = options;
  const { text, json } = partText(items[at.position], at.position);
  if (at.offset >= text.length) throw outOfRange(`character ${at.offset + 1} of item ${at.position + 1}, past its ${text.length}`);
  const issue = (position: number, offset: number): string =>
    codec.issue({ kind: 'cursor', id: options.id, issuedAt: options.issuedAt, sessionId: options.sessionId, scope: options.scope, position, offset });
  const build = (end: number): string => {
    const nextCursor = end < text.length ? issue(at.position, end) : at.position + 1 < items.length ? issue(at.position + 1, 0) : null;
    const name = options.itemName(at.position);
    const note =
      `${name} (item ${at.position + 1} of ${items.length}) is larger than a page, so it is sent in parts of its ${json ? 'JSON text' : 'text'}: ` +
      `characters ${at.offset + 1}-${end} of ${text.length}. Join the parts' "text" in order${json ? ' and parse it as JSON' : ''}. ` +
      (nextCursor === null ? 'This is the last page.' : `More follows: ${options.continueHint}.`);
    const page = { part: { item: at.position, path: name, from: at.offset, to: end, length: text.length, of: json ? 'json' : 'text' }, text: text.slice(at.offset, end), truncated: nextCursor !== null, next_cursor: nextCursor, note };
    return JSON.stringify(page);
  };
  const fits = (end: number): number | false => isWithinTokenLimit(build(end), budget);
  // Never end between the two halves of a surrogate pair; always move at least one code point.
  const whole = (end: number): number => (end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && end - 1 > at.offset ? end - 1 : end);
  const least = whole(Math.min(text.length, at.offset + (isHighSurrogate(text.charCodeAt(at.offset)) ? 2 : 1)));
  let high = whole(Math.min(text.length, at.offset + budget * MAX_PART_CHARS_PER_TOKEN));
  let best: number;
  if (fits(high) !== false) best = high;
  else {
    // What surely fits (6 tokens a character at most, the envelope aside) starts the search.
    let low = Math.max(least, whole(Math.min(high, at.offset + Math.floor(budget / (2 * MAX_TOKENS_PER_CHAR)))));
    if (fits(low) === false) low = least;
    best = low;
    while (high - low > 1) {
      const middle = whole(Math.floor((low + high) / 2));
      if (middle <= low) break;
      if (fits(middle) !== false) {
        low = middle;
        best = middle;
      } else high = middle;
    }
  }
  const pageText = build(best);
  const tokens = isWithinTokenLimit(pageText, Number.MAX_SAFE_INTEGER) as number;
  return { text: pageText, tokens, start: at.position, end: at.position + 1, part: { from: at.offset, to: best, length: text.length } };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function outOfRange(what: string): McpctxError {
  return new McpctxError('INVALID_CURSOR', `Invalid cursor: it points at ${what}. Omit cursor to start again.`, { reason: 'out-of-range', rpcCode: INVALID_PARAMS });
}
