import { McpctxError } from '../../errors/index.js';
import {
  INVALID_PARAMS,
  defineProjection,
  formatText,
  partsTokensWithin,
  stableJson,
  structuredCopyOf,
  toolError,
  toolErrorFrom,
  toolResultCost,
  toolResultCostAsync,
  toolResultParts,
  type FieldSpec,
  type ResultPart,
  type ToolResultCost,
} from '../../shape/index.js';
import { countTokens, isWithinTokenLimit, jsonText, o200kCapOf, sha256Hex } from '../../tokens/index.js';
import { isPlainObject, setOwn } from '../../json/index.js';
import { TokenCodec, looksLikeGatewayToken, newStoreId } from './_handles.js';
import { offload, type OffloadOutcome } from './_offload.js';
import type { AnyOffloadStore } from './_offload-store.js';
import { runStoreSteps, runStoreStepsAsync, storePut, type StoreSteps } from './_store-steps.js';
import { READ_PAGE_TOKENS, READ_RESULT_DEFINITION, readResult } from './_read-result.js';
import { othersOf, recordList, replaceAt, resultValue } from './_records.js';
import type { ResultContext, ShapeOutcome, StoredEntry } from './_result-types.js';
import { loadEntry, storedPage } from './_stored-pages.js';

/** Decoded bytes of images, audio and blobs one result may carry (as the shape guard's default). */
export const DEFAULT_MAX_BINARY_BYTES = 1024 * 1024;

const CURSOR_PARAMETER = { type: 'string', description: 'next_cursor of the previous page; omit for the first page.' };

/**
 * The gateway's result rules: projection, format, token pages with bound cursors served from the
 * store, and the caps (offload behind a bound handle, or refuse with a remedy; never truncate).
 * One instance serves every session; what it keeps between calls is in the store.
 */
export class ResultShaper {
  readonly #store: AnyOffloadStore;
  readonly #codec: TokenCodec;
  readonly #maxBinaryBytes: number;
  /** Tools whose upstream schema has its own `cursor`: a cursor the gateway did not issue is theirs. */
  readonly #upstreamCursorTools = new Set<string>();

  readonly readResultTool: Record<string, unknown> = READ_RESULT_DEFINITION;

  constructor(options: { store: AnyOffloadStore; key?: Uint8Array; maxBinaryBytes?: number }) {
    if (!isPlainObject(options) || options.store === undefined) throw new McpctxError('INVALID_ARGUMENT', 'ResultShaper needs a store (createMemoryStore() or createSqliteStore(file)).');
    this.#store = options.store;
    this.#codec = new TokenCodec(options.key);
    this.#maxBinaryBytes = options.maxBinaryBytes ?? DEFAULT_MAX_BINARY_BYTES;
  }

  /** Before a tools/call is relayed: a gateway cursor is answered from the store. undefined = relay it. */
  continuation(args: Record<string, unknown> | undefined, ctx: ResultContext): ShapeOutcome | undefined {
    return runStoreSteps(this.#store, this.#continuation(args, ctx));
  }

  /** `continuation`, for any store: what the gateway's sessions call. */
  continuationAsync(args: Record<string, unknown> | undefined, ctx: ResultContext): Promise<ShapeOutcome | undefined> {
    return runStoreStepsAsync(this.#store, this.#continuation(args, ctx));
  }

  *#continuation(args: Record<string, unknown> | undefined, ctx: ResultContext): StoreSteps<ShapeOutcome | undefined> {
    const cursor = isPlainObject(args) ? args.cursor : undefined;
    // null is how many clients say "no cursor".
    if (cursor === undefined || cursor === null) return undefined;
    const paged = ctx.rules?.pageTokens !== undefined;
    if (!looksLikeGatewayToken(cursor)) {
      // Not ours: the upstream's own cursor, or an argument of a tool the gateway does not page.
      if (!paged || this.#upstreamCursorTools.has(ctx.tool)) return undefined;
      if (typeof cursor !== 'string') {
        throw new McpctxError('INVALID_ARGUMENT', `"cursor" must be a string (next_cursor of the previous page).`, { rpcCode: INVALID_PARAMS });
      }
    }
    try {
      const store = this.#store;
      const opened = this.#codec.open(cursor, { kind: 'cursor', sessionId: ctx.sessionId, scope: toolScope(ctx.tool, args), now: store.now(), ttlMs: store.ttlMs });
      const entry = yield* loadEntry(store, opened.id, 'list', 'cursor');
      if (entry.session !== ctx.sessionId || entry.tool !== ctx.tool) {
        throw new McpctxError('FOREIGN_CURSOR', 'Foreign cursor: it belongs to another session or tool. Repeat the call without cursor to start from the first page.', {
          rpcCode: INVALID_PARAMS,
        });
      }
      const items = Array.isArray(entry.value) ? entry.value : [];
      const budget = pageBudget(ctx, ctx.rules?.pageTokens ?? entry.pageTokens ?? 1);
      const page = storedPage({
        items,
        budget,
        position: opened.position,
        codec: this.#codec,
        id: opened.id,
        issuedAt: opened.issuedAt,
        sessionId: ctx.sessionId,
        scope: toolScope(ctx.tool, args),
        revision: entry.revision,
        continueHint: 'call again with the same arguments and cursor set to next_cursor',
      });
      const result = { content: [{ type: 'text', text: page.text }] };
      return { result, action: 'paged', upstreamTokens: 0, deliveredTokens: page.tokens, note: `records ${page.start + 1}-${page.end} of ${items.length}, from the gateway's store` };
    } catch (error) {
      const result = toolErrorFrom(error);
      return { result, action: 'refused', upstreamTokens: 0, deliveredTokens: toolResultCost(result).textTokens, note: error instanceof McpctxError ? error.code : 'error' };
    }
  }

  /** After: shapes the upstream's CallToolResult by the rules. */
  shape(result: Record<string, unknown>, args: Record<string, unknown> | undefined, ctx: ResultContext): ShapeOutcome {
    const small = this.#passedUncounted(result, ctx);
    if (small) return small;
    let cost: ToolResultCost | Error;
    try {
      cost = toolResultCost(result);
    } catch (error) {
      cost = error as Error;
    }
    const ruled = runStoreSteps(this.#store, this.#applyCountedRules(result, args, ctx, cost));
    if ('outcome' in ruled) return ruled.outcome;
    const shaped = ruled.shaped?.result;
    const deliveredTokens = shaped === undefined ? ruled.upstreamTokens : sumOfCost(toolResultCost(shaped), shaped);
    return runStoreSteps(this.#store, this.#finish(result, ctx, ruled, deliveredTokens));
  }

  /**
   * `shape`, with the result counted in turns that let the event loop run between them: what the
   * gateway's sessions call, since counting a huge text (a 4 MB word, 1 MiB of spaces) takes
   * seconds that every other session would otherwise wait. Rejects when `signal` aborts.
   */
  async shapeAsync(result: Record<string, unknown>, args: Record<string, unknown> | undefined, ctx: ResultContext, signal?: AbortSignal): Promise<ShapeOutcome> {
    const small = this.#passedUncounted(result, ctx);
    if (small) return small;
    let cost: ToolResultCost | Error;
    try {
      cost = await toolResultCostAsync(result, signal ? { signal } : {});
    } catch (error) {
      if (signal?.aborted) throw error;
      cost = error as Error;
    }
    const ruled = await runStoreStepsAsync(this.#store, this.#applyCountedRules(result, args, ctx, cost));
    if ('outcome' in ruled) return ruled.outcome;
    // What the rules made is counted in turns too: a projected record can still hold a huge text.
    const shaped = ruled.shaped?.result;
    const deliveredTokens = shaped === undefined ? ruled.upstreamTokens : sumOfCost(await toolResultCostAsync(shaped, signal ? { signal } : {}), shaped);
    return runStoreStepsAsync(this.#store, this.#finish(result, ctx, ruled, deliveredTokens));
  }

  /** The checks on the counted result and the rules (project, format, pageTokens): an outcome that ends there, or what the rules made. */
  *#applyCountedRules(result: Record<string, unknown>, args: Record<string, unknown> | undefined, ctx: ResultContext, cost: ToolResultCost | Error): StoreSteps<{ outcome: ShapeOutcome } | Ruled> {
    if (cost instanceof Error) {
      // No JSON form (nested past the stack, ...): it cannot be measured, stored or relayed as is.
      return { outcome: refusal(`RESULT_UNREADABLE: tool "${ctx.tool}" returned a result the gateway cannot read (${cost.message}), so nothing was returned. Ask for less at a time.`, 0) };
    }
    const upstreamTokens = sumOfCost(cost, result);
    if (cost.binaryBytes > this.#maxBinaryBytes) {
      // Images, audio and blobs cannot be paged or previewed as text: refused, offload or not.
      const number = (value: number): string => value.toLocaleString('en-US');
      return {
        outcome: refusal(
          `RESULT_TOO_LARGE: tool "${ctx.tool}" would have returned ${number(cost.binaryBytes)} bytes of images, audio or blobs, over the gateway's cap of ` +
            `${number(this.#maxBinaryBytes)} bytes per result, so nothing was returned. Ask for a smaller image or fewer of them.`,
          upstreamTokens,
        ),
      };
    }
    const notes: string[] = [];
    let shaped: Shaped | undefined;
    if (result.isError !== true && ctx.rules !== undefined && (ctx.rules.project !== undefined || ctx.rules.format !== undefined || ctx.rules.pageTokens !== undefined)) {
      try {
        shaped = yield* this.#applyRules(result, args, ctx, notes);
      } catch (error) {
        const outcome = this.#refuse(toolErrorFrom(error), upstreamTokens);
        return { outcome: { ...outcome, note: [...notes, 'the rules failed'].join('; ') } };
      }
    }
    return { shaped, notes, upstreamTokens };
  }

  /**
   * The result as the rules left it (`deliveredTokens`: its count; unshaped, the upstream's count,
   * not counted again): passed when within the cap, else offloaded or refused.
   */
  *#finish(result: Record<string, unknown>, ctx: ResultContext, { shaped, notes, upstreamTokens }: Ruled, deliveredTokens: number): StoreSteps<ShapeOutcome> {
    const limit = capOf(ctx);
    const number = (value: number): string => value.toLocaleString('en-US');
    const delivered = shaped?.result ?? result;
    if (deliveredTokens <= limit.tokens) {
      const note = notes.length > 0 ? notes.join('; ') : undefined;
      return { result: delivered, action: shaped?.action ?? 'passed', upstreamTokens, deliveredTokens, ...(note ? { note } : {}) };
    }
    const size = deliveredTokens;
    const over = `tool "${ctx.tool}" would have returned ${number(size)} tokens, over ${limit.what} of ${number(limit.tokens)} tokens`;
    if (ctx.offload) {
      let outcome: OffloadOutcome;
      try {
        outcome = yield* offload({
          codec: this.#codec,
          sessionId: ctx.sessionId,
          tool: ctx.tool,
          value: shaped?.value ?? storedValueOf(result),
          tokens: size,
          budget: Math.min(limit.tokens, ctx.rules?.pageTokens ?? READ_PAGE_TOKENS),
          pageTokens: ctx.rules?.pageTokens,
          reason: `The result of ${ctx.tool} is ${number(size)} tokens, over ${limit.what} of ${number(limit.tokens)}`,
        });
      } catch (error) {
        // The store failed (a shared one that cannot be reached): said, never a silent cut.
        const why = error instanceof Error ? error.message : String(error);
        return { ...refusal(`RESULT_TOO_LARGE: ${over}, and it could not be stored to read in pages (${why}), so nothing was returned. Try again shortly.`, upstreamTokens), note: [...notes, 'store failed'].join('; ') };
      }
      if (outcome.stored) {
        const preview = withContent(result, outcome.text, result.isError === true);
        notes.push(`offloaded; preview shows ${outcome.shown} of ${outcome.total} items`);
        return { result: preview, action: 'offloaded', upstreamTokens, deliveredTokens: outcome.tokens, note: notes.join('; ') };
      }
      return { ...refusal(`RESULT_TOO_LARGE: ${over}, and ${outcome.why}, so nothing was returned. ${REMEDY}`, upstreamTokens), note: notes.join('; ') || undefined };
    }
    return { ...refusal(`RESULT_TOO_LARGE: ${over}, so nothing was returned. ${REMEDY}`, upstreamTokens), ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
  }

  /** The meta-tool read_result({ handle, cursor?, path?, query? }). */
  readResult(args: Record<string, unknown> | undefined, ctx: { sessionId: string; capTokens: number }): ShapeOutcome {
    return runStoreSteps(this.#store, readResult({ store: this.#store, codec: this.#codec }, args, ctx));
  }

  /** `readResult`, for any store: what the gateway's sessions call (a shared store answers asynchronously). */
  readResultAsync(args: Record<string, unknown> | undefined, ctx: { sessionId: string; capTokens: number }): Promise<ShapeOutcome> {
    return runStoreStepsAsync(this.#store, readResult({ store: this.#store, codec: this.#codec }, args, ctx));
  }

  /** A paged tool's definition with an optional `cursor` string parameter (kept as is when it has one). */
  withCursorParameter(tool: Record<string, unknown>): Record<string, unknown> {
    const schema = isPlainObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' };
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    if (Object.hasOwn(properties, 'cursor')) {
      if (typeof tool.name === 'string') this.#upstreamCursorTools.add(tool.name);
      return tool;
    }
    const inputSchema = { ...schema, properties: { ...properties, cursor: CURSOR_PARAMETER } };
    return Object.hasOwn(tool, 'inputSchema') ? Object.fromEntries(Object.entries(tool).map(([key, value]) => [key, key === 'inputSchema' ? inputSchema : value])) : { ...tool, inputSchema };
  }

  /**
   * The common case, without counting: no result rule, and fewer UTF-8 bytes of text than the cap
   * has tokens (an o200k token covers at least one byte), so the result passes as it came. Its
   * token counts are only worked out if something reads them (a receipt), after the reply.
   */
  #passedUncounted(result: Record<string, unknown>, ctx: ResultContext): ShapeOutcome | undefined {
    const rules = ctx.rules;
    if (rules !== undefined && (rules.project !== undefined || rules.format !== undefined || rules.pageTokens !== undefined)) return undefined;
    let parts: ResultPart[];
    try {
      parts = toolResultParts(result);
    } catch {
      return undefined;
    }
    let textBytes = 0;
    let binaryBytes = 0;
    for (const part of parts) {
      if (part.text !== null) textBytes += part.bytes;
      else {
        binaryBytes += part.bytes;
        textBytes += Buffer.byteLength(part.fields ?? '', 'utf8');
      }
    }
    if (textBytes > capOf(ctx).tokens || binaryBytes > this.#maxBinaryBytes) return undefined;
    let tokens: number | undefined;
    const copyOf = structuredCopyOf(result, parts);
    const counted = copyOf === null ? parts : parts.filter((part) => part.kind !== 'structured');
    const count = (): number => (tokens ??= partsTokensWithin(counted, Number.MAX_SAFE_INTEGER) as number);
    return {
      result,
      action: 'passed',
      get upstreamTokens() {
        return count();
      },
      get deliveredTokens() {
        return count();
      },
    };
  }

  #refuse(result: Record<string, unknown>, upstreamTokens: number): ShapeOutcome {
    return { result, action: 'refused', upstreamTokens, deliveredTokens: toolResultCost(result).textTokens };
  }

  /** project, format and pageTokens over the result's records; undefined when it has none (said in `notes`). */
  *#applyRules(result: Record<string, unknown>, args: Record<string, unknown> | undefined, ctx: ResultContext, notes: string[]): StoreSteps<Shaped | undefined> {
    const rules = ctx.rules ?? {};
    const found = resultValue(result);
    if (!found.found) {
      notes.push(`rules not applied: ${found.why}`);
      return undefined;
    }
    const list = recordList(found.value, found.from, rules.records);
    if (!list.found) {
      notes.push(`rules not applied: no list of records (${list.why})`);
      return undefined;
    }
    notes.push(`records: ${list.where} (${list.records.length})`);
    const records = rules.project === undefined ? list.records : project(list.records, rules.project);
    // Everything beside the list (memory's `relations` beside `entities`) is kept as it came.
    const whole = list.steps.length === 0 ? records : replaceAt(found.value, list.steps, records);
    const others = othersOf(found.value, list.steps);
    if (rules.pageTokens !== undefined && ctx.pages !== 'read_result') {
      if (rules.format !== undefined && rules.format !== 'json') notes.push(`format ${rules.format} not applied: pages are JSON`);
      const page = yield* this.#firstPage(result, records, others, args, ctx);
      if (page !== undefined) return { ...page, value: whole };
      notes.push('pageTokens not applied: the members beside the records do not fit in half a page, so the result is sent whole');
    }
    // Unpaged: the list is replaced where it was, other members kept (CSV: the rows, then the other members as JSON).
    const format = rules.format ?? 'json';
    let text: string;
    try {
      text = format === 'csv' ? csvWithOthers(records, others) : formatText(whole, format);
    } catch (error) {
      notes.push(`format ${format} not applied (${(error as Error).message}): sent as JSON`);
      text = formatText(whole, 'json');
    }
    return { result: withContent(result, text, false), action: 'projected', value: whole };
  }

  /**
   * The first token page of the records, the rest stored for the cursor. The members beside the
   * list (`others`) ride on the first page as they came, when they take at most half of it;
   * undefined when they do not (the caller sends the result unpaged instead: nothing is dropped).
   */
  *#firstPage(
    result: Record<string, unknown>,
    records: readonly unknown[],
    others: Record<string, unknown> | undefined,
    args: Record<string, unknown> | undefined,
    ctx: ResultContext,
  ): StoreSteps<Omit<Shaped, 'value'> | undefined> {
    const pageTokens = ctx.rules?.pageTokens ?? 1;
    const budget = pageBudget(ctx, pageTokens);
    const othersMember = others === undefined ? '' : `"others":${jsonText(others, 'The members beside the records') ?? '{}'},`;
    const othersTokens = othersMember === '' ? 0 : isWithinTokenLimit(othersMember, Math.floor(budget / 2));
    if (othersTokens === false) return undefined;
    const listText = jsonText(records, 'The shaped records') ?? '[]';
    const revision = sha256Hex(listText);
    const entry: StoredEntry = { v: 1, kind: 'list', session: ctx.sessionId, tool: ctx.tool, revision, pageTokens, tokens: 0, value: records };
    const id = newStoreId();
    const scope = toolScope(ctx.tool, args);
    // Stamped before the put: such a cursor expires a moment before its list, never after.
    const issuedAt = this.#store.now();
    const pageWithin = (recordsBudget: number) => {
      const page = storedPage({
        items: records,
        budget: Math.max(1, recordsBudget),
        position: 0,
        codec: this.#codec,
        id,
        issuedAt,
        sessionId: ctx.sessionId,
        scope,
        revision,
        continueHint: 'call again with the same arguments and cursor set to next_cursor',
      });
      return { page, text: othersMember === '' ? page.text : `{${othersMember}${page.text.slice(1)}` };
    };
    let { page, text } = pageWithin(budget - othersTokens);
    if (othersMember !== '') {
      // Joined texts can count a token or two apart from their parts: give back room until it fits.
      for (let round = 1; round <= 4; round += 1) {
        const over = countTokens(text) - budget;
        if (over <= 0) break;
        ({ page, text } = pageWithin(budget - othersTokens - over * round));
      }
    }
    if (page.page.next_cursor !== null) {
      // Later pages are served from the store: keep the list before the cursor goes out.
      const put = yield* storePut(id, JSON.stringify(entry));
      if (!put.stored) {
        throw new McpctxError(
          'RESULT_TOO_LARGE',
          `tool "${ctx.tool}": its shaped records (${put.bytes.toLocaleString('en-US')} bytes) are over the gateway store's cap of ${put.maxBytes.toLocaleString('en-US')} bytes, ` +
            'so later pages could not be served and nothing was returned. Narrow the query (filters, fewer results).',
        );
      }
    }
    return { result: withContent(result, text, false), action: 'paged' };
  }
}

interface Shaped {
  readonly result: Record<string, unknown>;
  readonly action: 'projected' | 'paged';
  /** What an offload stores: the shaped records (or value). */
  readonly value: unknown;
}

/** A counted result after its rules: what they made (undefined: no rule applied), their notes, and the upstream's tokens. */
interface Ruled {
  readonly shaped: Shaped | undefined;
  readonly notes: string[];
  readonly upstreamTokens: number;
}

/**
 * A result's tokens as the gateway counts them: its text parts and its binary parts' other fields,
 * each delivered token once: structuredContent that repeats a text block (`structuredCopyOf`) is
 * not counted again.
 */
function sumOfCost(cost: ToolResultCost, result: Record<string, unknown>): number {
  const copy = structuredCopyOf(result, cost.parts) === null ? 0 : (cost.parts.find((part) => part.kind === 'structured')?.tokens ?? 0);
  return cost.textTokens + cost.binaryFieldTokens - copy;
}

const REMEDY =
  'Narrow the query (filters, a smaller page, one item by its id); whoever runs the gateway can also set project and pageTokens rules for this tool, or turn offload on.';

function refusal(text: string, upstreamTokens: number): ShapeOutcome {
  const result = toolError(text);
  return { result, action: 'refused', upstreamTokens, deliveredTokens: toolResultCost(result).textTokens };
}

function capOf(ctx: ResultContext): { tokens: number; what: string } {
  const cap = configuredCapOf(ctx);
  const factor = ctx.safetyFactor ?? 1;
  if (factor === 1) return cap;
  // The cap is in Claude tokens; o200k counts times the factor must stay within it.
  return { tokens: o200kCapOf(cap.tokens, factor), what: `${cap.what} (${cap.tokens.toLocaleString('en-US')} Claude tokens ÷ safety factor ${factor}, in o200k tokens)` };
}

function configuredCapOf(ctx: ResultContext): { tokens: number; what: string } {
  const max = ctx.rules?.maxTokens;
  const page = ctx.pages === 'read_result' ? ctx.rules?.pageTokens : undefined;
  if (page !== undefined && page < ctx.capTokens && (max === undefined || page <= max)) return { tokens: page, what: `this tool's pageTokens` };
  if (max !== undefined && max < ctx.capTokens) return { tokens: max, what: `this tool's maxTokens` };
  return { tokens: ctx.capTokens, what: ctx.pages === 'read_result' ? 'the cap' : "the gateway's cap" };
}

function pageBudget(ctx: ResultContext, pageTokens: number): number {
  return Math.max(1, Math.min(pageTokens, capOf(ctx).tokens));
}

/** What a paged tool's cursors are bound to: the tool and its arguments other than the cursor. */
function toolScope(tool: string, args: Record<string, unknown> | undefined): string {
  const rest = isPlainObject(args) ? Object.fromEntries(Object.entries(args).filter(([key]) => key !== 'cursor')) : {};
  return JSON.stringify(['tool', tool, stableJson(rest)]);
}

/** CSV of the rows; the members beside them follow as one JSON line, so a CSV rule drops nothing. */
function csvWithOthers(records: readonly unknown[], others: Record<string, unknown> | undefined): string {
  const csv = formatText(records, 'csv');
  return others === undefined ? csv : `${csv.replace(/\n?$/, '\n')}\nOther members of the result (JSON): ${formatText(others, 'json')}`;
}

function project(records: readonly unknown[], fields: readonly FieldSpec[]): unknown[] {
  // Known paths are the fields' own: a field absent from this result is null, not an error at call time.
  const paths = fields.map((field) => (typeof field === 'string' ? field : field.path));
  const projection = defineProjection(fields, { knownPaths: paths });
  return records.map((record) => projection.apply(record));
}

/** The result with one text block instead of its content and structuredContent; other keys (_meta, ...) kept in order. */
function withContent(result: Record<string, unknown>, text: string, isError: boolean): Record<string, unknown> {
  const content = [{ type: 'text', text }];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (key === 'structuredContent') continue;
    if (key === 'isError') {
      if (isError) out.isError = true;
      continue;
    }
    setOwn(out, key, key === 'content' ? content : value);
  }
  if (!Object.hasOwn(out, 'content')) out.content = content;
  if (isError) out.isError = true;
  return out;
}

/** The value an offload keeps of an unshaped result: its JSON when it has one, else its text, else its content blocks. */
function storedValueOf(result: Record<string, unknown>): unknown {
  const found = resultValue(result);
  if (found.found) return found.value;
  const content = Array.isArray(result.content) ? result.content : [];
  const [block] = content;
  if (content.length === 1 && isPlainObject(block) && block.type === 'text' && typeof block.text === 'string') return block.text;
  return content;
}
