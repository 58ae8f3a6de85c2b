/**
 * `buildContext` as a pipeline of stages, each a function that takes the records the one before
 * produced (no stage reads the rendered text back):
 *
 *   1. validate        `_validate.ts`    parseOptimizerInput: INVALID_RECORDS naming record and field
 *   2. normalize       `_normalize.ts`   normalizeValidated: ids, line endings, collapsed log lines, paths (`_paths.ts`)
 *   3. order           `_recency.ts`     compareRecency: the one recency order, oldest first
 *   4. deduplicate     `_dedupe.ts`      dedupeRecords: exact copies, repeated runs, near duplicates
 *   5. fragment        `_fragments.ts`   fragmentRecord: records into fragments
 *   6. extract, score  `_extract.ts`, `_score.ts`, `_constraints.ts`: signals, mandatory reasons,
 *                                         constraint sentences (2-6 together, `_prepare.ts`: prepareRecords
 *                                         for what does not depend on the task, scoreSession for the rest)
 *   7. reserve         `_render.ts`      renderingReserve: headings, blank lines, the longest omission line
 *   8. focus           `_focus.ts`       focusWhereOverBudget: excerpts when not everything fits
 *   9. select          `_select.ts`      selectFragments: mandatory first, then greedy; each block counted once
 *  10. render, fit     `_fit.ts`         fitRendered: layoutContext (`_render.ts`), the rendered total checked once
 *  11. result          `_result.ts`      assembleResult: sources from the rendered blocks, omissions, report, stats
 *
 * `search` runs stages 1-6 and ranks. `prepare` runs stages 1-6 up to what depends on the task
 * (`PreparedRecords`), and `buildContextFrom` the rest: many builds over the same records prepare once.
 */
import { McpctxError } from '../errors/index.js';
import { resolveCounter } from './_counter.js';
import { DEFAULT_NEAR_DUPLICATE_THRESHOLD } from './_dedupe.js';
import { tokenizeWords } from './_extract.js';
import { fitRendered } from './_fit.js';
import { focusWhereOverBudget } from './_focus.js';
import { prepareRecords, scoreSession, tokensOfRecords, type PreparedRecordsData } from './_prepare.js';
import { SelectedTextIndex } from './_redundancy.js';
import { renderBlock, renderingReserve } from './_render.js';
import { assembleResult, sourceEntry } from './_result.js';
import { resolveWeights } from './_score.js';
import { byRank, selectFragments } from './_select.js';
import type { ContextRequest, ContextResult, OptimizerInput, OptimizerOptions, ScoringWeights, SearchHit, SessionRecords, TokenCounter } from './_types.js';
import { describeValue, isPlainObject } from '../json/index.js';
import { DEFAULT_MAX_RECORD_CHARS, parseBudget, parseOptimizerInput, parseSession, parseSessionRecords, parseTask } from './_validate.js';

export const DEFAULT_TOKEN_BUDGET = 8_000;
const DEFAULT_MIN_RELEVANCE = 0.5;
/** A fragment this much inside what is already selected adds nothing worth its tokens. */
const REDUNDANT_AT = 0.7;
const DEFAULT_SEARCH_LIMIT = 10;

function checkUnit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new McpctxError('INVALID_ARGUMENT', `${name} must be a number from 0 to 1, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * Records read once for many builds (`ContextOptimizer.prepare`): normalized, deduplicated, split
 * into fragments, each fragment's facts and words read, the input's tokens counted. Nothing in it
 * depends on a task. Immutable; only the optimizer that prepared it (or one with the same counter,
 * maxRecordChars and nearDuplicateThreshold) builds from it.
 */
export class PreparedRecords {
  /** @internal */
  readonly data: PreparedRecordsData;
  /** @internal */
  readonly tokensIn: number;
  /** @internal the token count of each distinct body, for a later preparation to reuse. */
  readonly counts: ReadonlyMap<string, number>;
  /** @internal what it was prepared with: the settings a build from it must share. */
  readonly settings: { counter: TokenCounter; maxRecordChars: number; nearDuplicateThreshold: number };

  /** @internal use `ContextOptimizer.prepare`. */
  constructor(data: PreparedRecordsData, tokensIn: number, counts: ReadonlyMap<string, number>, settings: PreparedRecords['settings']) {
    this.data = data;
    this.tokensIn = tokensIn;
    this.counts = counts;
    this.settings = settings;
    Object.freeze(this);
  }

  /** Records in the input (before deduplication). */
  get recordCount(): number {
    return this.data.recordCount;
  }
}

/**
 * The context optimizer: a coding session's records in, a compact task-specific context out,
 * every kept fragment tagged with its source and every dropped one listed with its reason.
 * Deterministic: the same input and options give byte-identical output. No I/O.
 */
export class ContextOptimizer {
  private readonly tokenBudget: number;
  private readonly counter: TokenCounter;
  private readonly weights: ScoringWeights;
  private readonly minRelevance: number;
  private readonly maxRecordChars: number;
  private readonly nearDuplicateThreshold: number;
  private readonly mandatoryOverBudget: 'include-all' | 'best-first';

  constructor(options: OptimizerOptions = {}) {
    this.tokenBudget = options.tokenBudget === undefined ? DEFAULT_TOKEN_BUDGET : parseBudget(options.tokenBudget);
    this.counter = resolveCounter(options.counter);
    this.weights = resolveWeights(options.weights);
    const minRelevance = options.minRelevance ?? DEFAULT_MIN_RELEVANCE;
    if (typeof minRelevance !== 'number' || !Number.isFinite(minRelevance)) {
      throw new McpctxError('INVALID_ARGUMENT', `minRelevance must be a finite number, got ${describeValue(minRelevance)}`);
    }
    this.minRelevance = minRelevance;
    this.maxRecordChars = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS;
    this.nearDuplicateThreshold = checkUnit('nearDuplicateThreshold', options.nearDuplicateThreshold, DEFAULT_NEAR_DUPLICATE_THRESHOLD);
    const overBudget = options.mandatoryOverBudget ?? 'include-all';
    if (overBudget !== 'include-all' && overBudget !== 'best-first') {
      throw new McpctxError('INVALID_ARGUMENT', `mandatoryOverBudget must be "include-all" or "best-first", got ${describeValue(overBudget)}`);
    }
    this.mandatoryOverBudget = overBudget;
  }

  buildContext(input: OptimizerInput): ContextResult {
    const { prepared, request } = this.prepareOnce(input);
    return this.build(prepared, request, { once: true });
  }

  /**
   * `buildContext`'s preparation, for one build: postings of the task's words only, no token counts
   * kept for a later preparation. The validated copy of the input is dropped on return, before the
   * build (tens of MB at 100,000 records).
   */
  private prepareOnce(input: OptimizerInput): { prepared: PreparedRecords; request: ContextRequest } {
    const parsed = parseOptimizerInput(input, { maxRecordChars: this.maxRecordChars });
    const request: ContextRequest = { task: parsed.task };
    if (parsed.tokenBudget !== undefined) request.tokenBudget = parsed.tokenBudget;
    if (parsed.session !== undefined) request.session = parsed.session;
    return { prepared: this.prepareValidated(parsed, new Set(tokenizeWords(parsed.task)), undefined, false, false), request };
  }

  /**
   * The task-independent part of `buildContext` over `records` (the record arrays of the input
   * format; validated as `buildContext` validates them), to build many contexts from with
   * `buildContextFrom`. `previous`: records prepared before from a part of these (the same store
   * before an ingest): what they read from unchanged text is reused, not read again. The result is
   * the same with or without it.
   */
  prepare(records: SessionRecords, previous?: PreparedRecords): PreparedRecords {
    const parsed = parseSessionRecords(records, { maxRecordChars: this.maxRecordChars });
    return this.prepareValidated(parsed, undefined, previous instanceof PreparedRecords && this.sameSettings(previous) ? previous : undefined, true);
  }

  /**
   * `buildContext` over prepared records: the same bytes as `buildContext({ ...records, ...request })`
   * for the records `prepared` was made from. Refuses (INVALID_ARGUMENT) records prepared with a
   * different counter, maxRecordChars or nearDuplicateThreshold.
   */
  buildContextFrom(prepared: PreparedRecords, request: ContextRequest): ContextResult {
    if (!(prepared instanceof PreparedRecords)) {
      throw new McpctxError('INVALID_ARGUMENT', `prepared must come from ContextOptimizer.prepare, got ${describeValue(prepared)}`);
    }
    if (!this.sameSettings(prepared)) {
      throw new McpctxError('INVALID_ARGUMENT', 'prepared records come from an optimizer with another counter, maxRecordChars or nearDuplicateThreshold; prepare them with this one');
    }
    if (!isPlainObject(request)) throw new McpctxError('INVALID_ARGUMENT', `request must be an object with a task, got ${describeValue(request)}`);
    const parsed: ContextRequest = { task: parseTask(request.task) };
    if (request.tokenBudget !== undefined) parsed.tokenBudget = parseBudget(request.tokenBudget);
    if (request.session !== undefined) parsed.session = parseSession(request.session);
    return this.build(prepared, parsed);
  }

  private sameSettings(prepared: PreparedRecords): boolean {
    const { counter, maxRecordChars, nearDuplicateThreshold } = prepared.settings;
    return counter === this.counter && maxRecordChars === this.maxRecordChars && nearDuplicateThreshold === this.nearDuplicateThreshold;
  }

  private prepareValidated(records: SessionRecords, onlyWords?: ReadonlySet<string>, previous?: PreparedRecords, keepReadings = false, keepCounts = true): PreparedRecords {
    // Counted first: the counter's garbage then piles on the records alone, not on every fragment's facts too (peak memory).
    const counts = new Map(previous?.counts);
    const tokensIn = tokensOfRecords(records, this.counter, counts);
    if (!keepCounts) counts.clear();
    const data = prepareRecords(records, this.nearDuplicateThreshold, onlyWords, previous?.data, keepReadings);
    const settings = { counter: this.counter, maxRecordChars: this.maxRecordChars, nearDuplicateThreshold: this.nearDuplicateThreshold };
    return new PreparedRecords(data, tokensIn, counts, settings);
  }

  /** `once`: the records are built from this once (`buildContext`), so the result may keep their lists instead of copies. */
  private build(records: PreparedRecords, request: ContextRequest, { once = false } = {}): ContextResult {
    const budget = request.tokenBudget ?? this.tokenBudget;
    const counter = this.counter;
    const tokensIn = records.tokensIn;
    // `prepared.session` is the task's session: the stage that scopes mandatory content reads it there.
    const prepared = scoreSession(records.data, request.task, this.weights, { session: request.session, shareLists: once });
    const reservedTokens = renderingReserve(counter, prepared.merges.length + prepared.scored.length);
    const focused = focusWhereOverBudget(prepared.scored, {
      counter,
      available: budget - reservedTokens,
      minRelevance: this.minRelevance,
      focusWords: prepared.focusWords,
    });
    const selection = selectFragments(focused.candidates, {
      countedTokens: focused.tokens,
      alreadyKnown: request.task,
      budget,
      reservedTokens,
      minRelevance: this.minRelevance,
      counter,
      newRedundancyIndex: () => new SelectedTextIndex(),
      redundantAt: REDUNDANT_AT,
      mandatoryOverBudget: this.mandatoryOverBudget,
    });
    const fitted = fitRendered(selection, prepared.mergeOmissions, budget, counter, this.mandatoryOverBudget);
    return assembleResult(prepared, selection, fitted, { counter, weights: this.weights, minRelevance: this.minRelevance, budget, tokensIn });
  }

  /** Ranked fragments for a query over the records, best first (equal scores: the newer record first), without a budget. */
  search(records: SessionRecords, query: string, limit = DEFAULT_SEARCH_LIMIT): SearchHit[] {
    const task = parseTask(query);
    if (!Number.isSafeInteger(limit) || limit < 1) throw new McpctxError('INVALID_ARGUMENT', `limit must be a positive integer, got ${describeValue(limit)}`);
    const parsed = parseSessionRecords(records, { maxRecordChars: this.maxRecordChars });
    const { scored } = scoreSession(prepareRecords(parsed, this.nearDuplicateThreshold, new Set(tokenizeWords(task))), task, this.weights, { shareLists: true });
    return scored
      .filter((item) => item.relevance > 0)
      .sort(byRank)
      .slice(0, limit)
      .map((item) => ({ ...sourceEntry(item, this.counter.count(renderBlock(item))), text: item.fragment.text }));
  }
}
