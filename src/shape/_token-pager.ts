import { McpctxError } from '../errors/index.js';
import { countTokens, isWithinTokenLimit } from '../tokens/index.js';
import { type CursorBinding, type CursorCodec } from './_cursor.js';
import { jsonText } from './_json-text.js';
import { startPosition } from './_start-position.js';

export interface TokenPageOptions<T> {
  /** Every matching record, in the query's order (filter and project before paging). */
  readonly items: readonly T[];
  /** Most o200k tokens the page text may have, envelope included. */
  readonly budget: number;
  /**
   * Tokens set aside for the envelope while records are added. Default: the envelope's own
   * count with a cursor. Either way the finished page is counted and never exceeds `budget`.
   */
  readonly reserve?: number;
  readonly cursor?: string | undefined;
  readonly codec: CursorCodec;
  readonly binding: CursorBinding;
  /** How the model continues, in the note; default: repeat the call with cursor=next_cursor. */
  readonly continueHint?: string;
}

/** The page as sent: this object and `text` are the same JSON value. */
export interface TokenPage<T> {
  readonly items: readonly T[];
  readonly total_matching: number;
  /** True when matching records remain after this page. */
  readonly truncated: boolean;
  readonly next_cursor: string | null;
  readonly note: string;
  /** Present only when a single record is larger than the budget and was sent alone. */
  readonly over_budget?: true;
}

export interface TokenPageResult<T> {
  readonly page: TokenPage<T>;
  /** The exact text to send: compact JSON with one record per line. */
  readonly text: string;
  /** o200k tokens of `text`. */
  readonly tokens: number;
  /** Positions of the page's records in `items`: [start, end). */
  readonly start: number;
  readonly end: number;
}

const OPEN = '{"items":[\n';
const BETWEEN = ',\n';
const CLOSE_AFTER_RECORD = '\n';
const DEFAULT_CONTINUE = 'call again with the same arguments and cursor set to next_cursor';

/**
 * Pages `items` by the o200k tokens of the exact text that will be sent, never by record count.
 *
 * One record per line makes the count additive: o200k's pre-tokenizer always ends a piece after
 * the line break that follows a record's closing punctuation, so a page's tokens are the opening,
 * plus each record line counted once, plus the closing envelope. Each record is counted once
 * (the last record of a page and the first that did not fit are counted twice), so the cost
 * grows linearly with what is paged, and records before the cursor are not counted at all.
 */
export function pageByTokens<T>(options: TokenPageOptions<T>): TokenPageResult<T> {
  const { items, budget, codec, binding } = options;
  if (!Number.isSafeInteger(budget) || budget < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `The page budget must be a positive integer of tokens, got ${budget}.`);
  }
  if (options.reserve !== undefined && (!Number.isSafeInteger(options.reserve) || options.reserve < 0 || options.reserve >= budget)) {
    throw new McpctxError(
      'INVALID_ARGUMENT',
      `The envelope reserve must be an integer of tokens from 0 to less than the budget (${budget}), got ${options.reserve}: records need room too.`,
    );
  }
  const start = startPosition(options.cursor, items.length, codec, binding);
  const hint = options.continueHint ?? DEFAULT_CONTINUE;
  const envelopeFor = (end: number): { page: Omit<TokenPage<T>, 'items'>; close: string } =>
    envelope(items.length, start, end, budget, hint, end < items.length ? codec.issue(binding, end) : null);

  if (start === items.length) {
    const { page, close } = envelopeFor(start);
    const text = `{"items":[${close}`;
    return { page: { items: [], ...page }, text, tokens: countTokens(text), start, end: start };
  }

  const reserve = options.reserve ?? countTokens(envelopeFor(start + 1).close);
  const openTokens = countTokens(OPEN);
  // Records are added while the open part plus the record lines plus the reserve fit.
  // Serialized one at a time: records past the page are never touched.
  const lines: string[] = [];
  const lineTokens: number[] = [];
  let used = openTokens;
  for (let position = start; position < items.length; position += 1) {
    const line = recordLine(items[position], position);
    const room = budget - reserve - used;
    const tokens = position === start ? countTokens(line + BETWEEN) : room > 0 ? isWithinTokenLimit(line + BETWEEN, room) : false;
    if (tokens === false) break;
    lines.push(line);
    lineTokens.push(tokens);
    used += tokens;
  }

  // Close the page, counting the real envelope; give back records while it does not fit.
  for (let count = lineTokens.length; ; count -= 1) {
    const end = start + count;
    const lastLine = lines[count - 1] ?? '';
    const before = lineTokens.slice(0, count - 1).reduce((sum, tokens) => sum + tokens, 0);
    const lastTokens = countTokens(lastLine + CLOSE_AFTER_RECORD);
    let closing = envelopeFor(end);
    let tokens = openTokens + before + lastTokens + countTokens(closing.close);
    if (tokens > budget && count > 1) continue;
    if (tokens > budget) {
      // A page always holds one record, so a record larger than the budget ships alone, flagged.
      const next = end < items.length ? codec.issue(binding, end) : null;
      closing = envelope(items.length, start, end, budget, hint, next, tokens);
      tokens = openTokens + lastTokens + countTokens(closing.close);
    }
    const text = OPEN + lines.slice(0, count).join(BETWEEN) + CLOSE_AFTER_RECORD + closing.close;
    return { page: { items: items.slice(start, end), ...closing.page }, text, tokens, start, end };
  }
}

function recordLine(item: unknown, position: number): string {
  const line = jsonText(item, `Record ${position}`);
  if (line === undefined) {
    throw new McpctxError('INVALID_ARGUMENT', `Record ${position} has no JSON form (undefined or a function).`);
  }
  return line;
}

function envelope(
  total: number,
  start: number,
  end: number,
  budget: number,
  hint: string,
  nextCursor: string | null,
  /** The page's tokens without this note, when its one record does not fit the budget. */
  oversizedTokens?: number,
): { page: Omit<TokenPage<never>, 'items'>; close: string } {
  const truncated = nextCursor !== null;
  const parts: string[] = [];
  if (total === 0) parts.push('No records match.');
  else if (end === start) parts.push(`No records after position ${start} of ${total}.`);
  else parts.push(`Records ${start + 1}-${end} of ${total}.`);
  if (oversizedTokens !== undefined) {
    parts.push(
      `Record ${start + 1} does not fit the page budget of ${budget} tokens (a page with it alone takes ${oversizedTokens}); it is sent whole. ` +
        'Select fewer fields or fetch that record on its own.',
    );
  }
  parts.push(truncated ? `More match: ${hint}.` : 'This is the last page.');
  const page = {
    total_matching: total,
    truncated,
    next_cursor: nextCursor,
    note: parts.join(' '),
    ...(oversizedTokens !== undefined ? { over_budget: true as const } : {}),
  };
  // The closing text continues the items array: the page's JSON after its opening brace.
  return { page, close: `],${JSON.stringify(page).slice(1)}` };
}
