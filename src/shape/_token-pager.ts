import { McpctxError } from '../errors/index.js';
import { countTokens, isWithinTokenLimit, jsonText } from '../tokens/index.js';
import { isPlainObject } from '../json/index.js';
import { type CursorBinding, type CursorCodec } from './_cursor.js';
import { CUT_FLAG, WHOLE_ITEM, cutItem, type CutForm } from './_cut-item.js';
import { startPosition } from './_start-position.js';

export interface TokenPageOptions<T> {
  /** Every matching record, in the query's order (filter and project before paging). */
  readonly items: readonly T[];
  /** Most o200k tokens the page text may have, envelope included. */
  readonly budget: number;
  /**
   * Tokens set aside for the envelope while records are added: an integer from 0 to less than
   * `budget`. Default: the envelope's own count with a cursor. Either way the finished page is
   * counted, and records are given back until it fits.
   */
  readonly reserve?: number;
  readonly cursor?: string | undefined;
  readonly codec: CursorCodec;
  readonly binding: CursorBinding;
  /** How the model continues, in the note; default: repeat the call with cursor=next_cursor. */
  readonly continueHint?: string;
  /** The key of a record's id, kept whole when a record too large for the budget is cut; default `id`. */
  readonly idField?: string;
  /**
   * What the note tells the model to do to read a record that was cut to fit the page (which
   * tool, which arguments, how to page through a long value). Default: fetch it on its own by its id.
   */
  readonly fetchHint?: (cut: CutRecord) => string;
}

/** A record sent cut: too large for the budget on its own, it was shortened to fit. */
export interface CutRecord {
  /** Its position in `items`. */
  readonly position: number;
  /** The value of `idField`, kept whole; undefined when the record is not an object or has none. */
  readonly id: unknown;
  /** Paths of the shortened values (`title`, `labels[2].name`, `labels`); `(the item)` for a record that is not an object. */
  readonly paths: readonly string[];
}

/** What a page may hold in place of a record too large for its budget: the record's cut form. */
export type CutValue = Readonly<Record<string, unknown>> | string | readonly unknown[];

/** The page as sent: this object and `text` are the same JSON value. */
export interface TokenPage<T> {
  /** The records; a record too large for the budget is sent alone, as its cut form. */
  readonly items: ReadonlyArray<T | CutValue>;
  readonly total_matching: number;
  /** True when matching records remain after this page. */
  readonly truncated: boolean;
  readonly next_cursor: string | null;
  readonly note: string;
  /** Present only when the page is over the budget: a record that even cut to its id does not fit. */
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
  /** The record sent cut, when the page holds one (it is then the page's only record). */
  readonly cut: CutRecord | null;
}

const OPEN = '{"items":[\n';
const BETWEEN = ',\n';
const CLOSE_AFTER_RECORD = '\n';
const DEFAULT_CONTINUE = 'call again with the same arguments and cursor set to next_cursor';
/** Shortest string a cut form keeps before it falls back to the id alone. */
const MIN_CUT_CHARS = 8;
/** Rounds of "state the page's size, recount" before the figure is its own count (two in practice). */
const SIZE_ROUNDS = 8;

/**
 * Pages `items` by the o200k tokens of the exact text that will be sent, never by record count.
 *
 * One record per line makes the count additive: o200k's pre-tokenizer always ends a piece after
 * the line break that follows a record's closing punctuation, so a page's tokens are the opening,
 * plus each record line counted once, plus the closing envelope. Each record is counted once
 * (the last record of a page and the first that did not fit are counted twice), so the cost
 * grows linearly with what is paged, and records before the cursor are not counted at all.
 *
 * A walk never gets stuck: a record too large for the budget on its own is sent alone in a cut
 * form that fits (long strings, arrays and objects shortened, its id kept, `_truncated` listing
 * what was cut, and a note saying how to fetch it in parts), and the cursor moves past it. Only
 * when even its id and the envelope exceed the budget is a page over it, flagged `over_budget`
 * with its real size in the note.
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
  const context: PageContext = {
    total: items.length,
    start,
    budget,
    hint: options.continueHint ?? DEFAULT_CONTINUE,
    nextCursor: (end) => (end < items.length ? codec.issue(binding, end) : null),
  };

  if (start === items.length) {
    const { page, close } = envelope(context, start, {});
    const text = `{"items":[${close}`;
    return { page: { items: [], ...page }, text, tokens: countTokens(text), start, end: start, cut: null };
  }

  const reserve = options.reserve ?? countTokens(envelope(context, start + 1, {}).close);
  const openTokens = countTokens(OPEN);
  // Records are added while the open part plus the record lines plus the reserve fit.
  // Serialized one at a time: records past the page are never touched, and a record is counted
  // only up to the room left, so a huge one costs no more than the budget to find out about.
  const lines: string[] = [];
  const lineTokens: number[] = [];
  let used = openTokens;
  let firstLine = '';
  for (let position = start; position < items.length; position += 1) {
    const line = recordLine(items[position], position);
    // The first record is tried against the whole budget: the closing step below counts the
    // real envelope, and cuts the record only if the two do not fit together.
    const room = budget - (position === start ? 0 : reserve) - used;
    if (position === start) firstLine = line;
    const tokens = room > 0 ? isWithinTokenLimit(line + BETWEEN, room) : false;
    if (tokens === false) break;
    lines.push(line);
    lineTokens.push(tokens);
    used += tokens;
  }

  // Close the page, counting the real envelope; give back records while it does not fit.
  for (let count = lineTokens.length; count >= 1; count -= 1) {
    const end = start + count;
    const lastLine = lines[count - 1] ?? '';
    const before = lineTokens.slice(0, count - 1).reduce((sum, tokens) => sum + tokens, 0);
    const closing = envelope(context, end, {});
    const tokens = openTokens + before + countTokens(lastLine + CLOSE_AFTER_RECORD) + countTokens(closing.close);
    if (tokens > budget) continue;
    const text = OPEN + lines.slice(0, count).join(BETWEEN) + CLOSE_AFTER_RECORD + closing.close;
    return { page: { items: items.slice(start, end), ...closing.page }, text, tokens, start, end, cut: null };
  }
  // Not even the first record fits with the envelope: it goes alone, cut to fit.
  return cutPage(context, firstLine, options);
}

interface PageContext {
  readonly total: number;
  readonly start: number;
  readonly budget: number;
  readonly hint: string;
  readonly nextCursor: (end: number) => string | null;
}

/** The page of one record too large for the budget: its largest cut form that fits. */
function cutPage<T>(context: PageContext, line: string, options: TokenPageOptions<T>): TokenPageResult<T> {
  const { start, budget } = context;
  const idField = options.idField ?? 'id';
  const record = JSON.parse(line) as unknown;
  const id = isPlainObject(record) && Object.hasOwn(record, idField) ? record[idField] : undefined;
  const build = (form: CutForm, size?: number): { page: TokenPage<T>; text: string; cut: CutRecord } => {
    const paths = form.unlisted > 0 ? [...form.paths, `and ${form.unlisted} more`] : form.paths;
    const cut: CutRecord = { position: start, id, paths };
    const fetch = options.fetchHint?.(cut) ?? defaultFetchHint(cut, idField);
    const { page, close } = envelope(context, start + 1, { cut: { paths, flagged: isPlainObject(form.value), fetch }, size });
    const text = `${OPEN}${JSON.stringify(form.value)}${CLOSE_AFTER_RECORD}${close}`;
    return { page: { items: [form.value as CutValue], ...page }, text, cut };
  };
  // The record cut to its id: when even that does not fit, no larger cut form does.
  const stub = cutItem(record, idField, { chars: 0, entries: 0 });
  const bare = build(stub);
  if (isWithinTokenLimit(bare.text, budget) !== false) {
    // Halve the limits until the page fits; each try is counted only up to the budget.
    for (let chars = Math.max(MIN_CUT_CHARS, budget * 4); chars >= MIN_CUT_CHARS; chars = Math.floor(chars / 2)) {
      const attempt = build(cutItem(record, idField, { chars, entries: Math.max(1, Math.floor(chars / 16)) }));
      const tokens = isWithinTokenLimit(attempt.text, budget);
      if (tokens !== false) return { ...attempt, tokens, start, end: start + 1 };
    }
    return { ...bare, tokens: countTokens(bare.text), start, end: start + 1 };
  }
  // Over the budget even so: the note states the page's real size, which its own digits change.
  let size = countTokens(bare.text);
  let flagged = build(stub, size);
  for (let round = 0; round < SIZE_ROUNDS; round += 1) {
    const tokens = countTokens(flagged.text);
    if (tokens === size) break;
    size = tokens;
    flagged = build(stub, size);
  }
  return { ...flagged, tokens: countTokens(flagged.text), start, end: start + 1 };
}

function defaultFetchHint(cut: CutRecord, idField: string): string {
  const which = cut.id === undefined ? `record ${cut.position + 1}` : `the record with ${idField} ${JSON.stringify(cut.id)}`;
  return `Fetch ${which} on its own to read the shortened values in full or in parts`;
}

function recordLine(item: unknown, position: number): string {
  const line = jsonText(item, `Record ${position}`);
  if (line === undefined) {
    throw new McpctxError('INVALID_ARGUMENT', `Record ${position} has no JSON form (undefined or a function).`);
  }
  return line;
}

interface EnvelopeExtras {
  /** The page's one record was cut: what was shortened, whether it carries `_truncated`, how to fetch it. */
  readonly cut?: { readonly paths: readonly string[]; readonly flagged: boolean; readonly fetch: string };
  /** The page's size in tokens, when it is over the budget. */
  readonly size?: number | undefined;
}

function envelope(context: PageContext, end: number, extras: EnvelopeExtras): { page: Omit<TokenPage<never>, 'items'>; close: string } {
  const { total, start, budget } = context;
  const nextCursor = context.nextCursor(end);
  const truncated = nextCursor !== null;
  const parts: string[] = [];
  if (total === 0) parts.push('No records match.');
  else if (end === start) parts.push(`No records after position ${start} of ${total}.`);
  else if (end === start + 1) parts.push(`Record ${end} of ${total}.`);
  else parts.push(`Records ${start + 1}-${end} of ${total}.`);
  const { cut, size } = extras;
  if (cut !== undefined) {
    const listed = cut.paths.filter((path) => path !== WHOLE_ITEM);
    const what = listed.length === 0 ? 'it is shortened' : `shortened: ${listed.join(', ')}`;
    parts.push(
      size === undefined
        ? `It is larger than the page budget of ${budget} tokens, so it is sent cut to fit (${what}${cut.flagged ? `, listed in ${CUT_FLAG}` : ''}).`
        : `It is larger than the page budget of ${budget} tokens even cut to its id: this page is ${size} tokens.`,
      `${cut.fetch}.`,
    );
  }
  parts.push(truncated ? `More match: ${context.hint}.` : 'This is the last page.');
  const page = {
    total_matching: total,
    truncated,
    next_cursor: nextCursor,
    note: parts.join(' '),
    ...(size !== undefined ? { over_budget: true as const } : {}),
  };
  // The closing text continues the items array: the page's JSON after its opening brace.
  return { page, close: `],${JSON.stringify(page).slice(1)}` };
}
