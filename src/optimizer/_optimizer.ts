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
 *                                         constraint sentences (2-6 together: `_prepare.ts` prepareSession)
 *   7. reserve         `_render.ts`      renderingReserve: headings, blank lines, the longest omission line
 *   8. focus           `_focus.ts`       focusWhereOverBudget: excerpts when not everything fits
 *   9. select          `_select.ts`      selectFragments: mandatory first, then greedy; each block counted once
 *  10. render, fit     `_fit.ts`         fitRendered: layoutContext (`_render.ts`), the rendered total checked once
 *  11. result          `_result.ts`      assembleResult: sources from the rendered blocks, omissions, report, stats
 *
 * `search` runs stages 1-6 and ranks.
 */
import { McpctxError } from '../errors/index.js';
import { countDistinct, resolveCounter } from './_counter.js';
import { DEFAULT_NEAR_DUPLICATE_THRESHOLD } from './_dedupe.js';
import { fitRendered } from './_fit.js';
import { focusWhereOverBudget } from './_focus.js';
import { rawBodies } from './_normalize.js';
import { prepareSession, type PrepareSettings } from './_prepare.js';
import { SelectedTextIndex } from './_redundancy.js';
import { renderBlock, renderingReserve } from './_render.js';
import { assembleResult, sourceEntry } from './_result.js';
import { resolveWeights } from './_score.js';
import { byRank, selectFragments } from './_select.js';
import type { ContextResult, OptimizerInput, OptimizerOptions, ScoringWeights, SearchHit, SessionRecords, TokenCounter } from './_types.js';
import { DEFAULT_MAX_RECORD_CHARS, describeValue, parseBudget, parseOptimizerInput, parseSessionRecords, parseTask } from './_validate.js';

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
  }

  buildContext(input: OptimizerInput): ContextResult {
    const parsed = parseOptimizerInput(input, { maxRecordChars: this.maxRecordChars });
    const budget = parsed.tokenBudget ?? this.tokenBudget;
    const counter = this.counter;
    const tokensIn = countDistinct(rawBodies(parsed), counter);
    // `prepared.session` is the task's session: the stage that scopes mandatory content reads it there.
    const prepared = prepareSession(parsed, parsed.task, this.prepareSettings(), parsed.session);
    const reservedTokens = renderingReserve(counter, prepared.merges.length + prepared.scored.length);
    const focused = focusWhereOverBudget(prepared.scored, {
      counter,
      available: budget - reservedTokens,
      minRelevance: this.minRelevance,
      taskWordWeights: prepared.taskWordWeights,
    });
    const selection = selectFragments(focused.candidates, {
      countedTokens: focused.tokens,
      alreadyKnown: parsed.task,
      budget,
      reservedTokens,
      minRelevance: this.minRelevance,
      counter,
      newRedundancyIndex: () => new SelectedTextIndex(),
      redundantAt: REDUNDANT_AT,
    });
    const fitted = fitRendered(selection, prepared.mergeOmissions, budget, counter);
    return assembleResult(prepared, selection, fitted, { counter, weights: this.weights, minRelevance: this.minRelevance, budget, tokensIn });
  }

  /** Ranked fragments for a query over the records, best first (equal scores: the newer record first), without a budget. */
  search(records: SessionRecords, query: string, limit = DEFAULT_SEARCH_LIMIT): SearchHit[] {
    const task = parseTask(query);
    if (!Number.isSafeInteger(limit) || limit < 1) throw new McpctxError('INVALID_ARGUMENT', `limit must be a positive integer, got ${describeValue(limit)}`);
    const parsed = parseSessionRecords(records, { maxRecordChars: this.maxRecordChars });
    const { scored } = prepareSession(parsed, task, this.prepareSettings());
    return scored
      .filter((item) => item.relevance > 0)
      .sort(byRank)
      .slice(0, limit)
      .map((item) => ({ ...sourceEntry(item, this.counter.count(renderBlock(item))), text: item.fragment.text }));
  }

  private prepareSettings(): PrepareSettings {
    return { weights: this.weights, nearDuplicateThreshold: this.nearDuplicateThreshold };
  }
}
