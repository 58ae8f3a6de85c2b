import { McpctxError } from '../errors/index.js';
import { resolveCounter } from './_counter.js';
import { DEFAULT_NEAR_DUPLICATE_THRESHOLD, dedupeRecords } from './_dedupe.js';
import { extractTaskTerms } from './_extract.js';
import { focusWhereOverBudget } from './_focus.js';
import { fragmentRecord } from './_fragments.js';
import { normalizeValidated, originText, rawBodies } from './_normalize.js';
import { compareRecency } from './_recency.js';
import { SelectedTextIndex } from './_redundancy.js';
import { ALL_SECTION_HEADINGS, omissionLine, parseSourceTags, renderBlock, renderContext } from './_render.js';
import { splitConstraints } from './_constraints.js';
import { resolveWeights, round4, scoreFragments, type ScoredFragment, type Scoring } from './_score.js';
import { byRank, omittedEntry, selectFragments, weakestOptional } from './_select.js';
import type {
  BudgetConflict,
  ContextResult,
  MergeEntry,
  NormalizedRecord,
  OmissionReason,
  OmittedEntry,
  OptimizerInput,
  OptimizerOptions,
  ScoringWeights,
  SearchHit,
  SessionRecords,
  SourceEntry,
  TokenCounter,
} from './_types.js';
import { DEFAULT_MAX_RECORD_CHARS, describeValue, parseBudget, parseOptimizerInput, parseSessionRecords, parseTask } from './_validate.js';

export const DEFAULT_TOKEN_BUDGET = 8_000;
const DEFAULT_MIN_RELEVANCE = 0.5;
/** A fragment this much inside what is already selected adds nothing worth its tokens. */
const REDUNDANT_AT = 0.7;
const DEFAULT_SEARCH_LIMIT = 10;
const OMISSION_REASONS: readonly OmissionReason[] = ['exact-duplicate', 'repeated-run', 'near-duplicate', 'low-relevance', 'redundant', 'over-budget'];

function checkUnit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new McpctxError('INVALID_ARGUMENT', `${name} must be a number from 0 to 1, got ${describeValue(value)}`);
  }
  return value;
}

function sourceEntry(item: ScoredFragment, tokens: number): SourceEntry {
  const entry: SourceEntry = {
    fragmentId: item.fragment.id,
    recordId: item.record.id,
    kind: item.record.kind,
    origin: originText(item.record),
    label: item.record.label,
    tokens,
    score: item.score,
    mandatory: item.mandatoryReason !== undefined,
    signals: item.signals,
  };
  if (item.record.timestamp !== undefined) entry.timestamp = item.record.timestamp;
  if (item.mandatoryReason !== undefined) entry.mandatoryReason = item.mandatoryReason;
  if (item.fragment.excerpt !== undefined) entry.excerpt = { ...item.fragment.excerpt };
  return entry;
}

function mergeOmissions(merges: readonly MergeEntry[], byId: ReadonlyMap<string, NormalizedRecord>): OmittedEntry[] {
  return merges.map((merge) => {
    const record = byId.get(merge.merged);
    return {
      recordId: merge.merged,
      origin: record === undefined ? '' : originText(record),
      reason: merge.reason,
      keptAs: merge.kept,
      detail: merge.detail,
    };
  });
}

function withConstraintSentences(scoring: Scoring): Scoring {
  return { ...scoring, scored: splitConstraints(scoring.scored) };
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
    const tokensIn = rawBodies(parsed).reduce((sum, body) => sum + counter.count(body), 0);
    const prepared = this.prepare(parsed, parsed.task);

    const omissionReserve = counter.count(omissionLine(new Map(OMISSION_REASONS.map((reason) => [reason, 9_999_999]))));
    const reservedTokens = counter.count(ALL_SECTION_HEADINGS.join('\n')) + omissionReserve;
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
    const omitted = [...prepared.mergeOmissions, ...selection.omitted];
    let selected = selection.selected;

    const omissionCounts = (): Map<OmissionReason, number> => {
      const counts = new Map<OmissionReason, number>();
      for (const entry of omitted) counts.set(entry.reason, (counts.get(entry.reason) ?? 0) + 1);
      return counts;
    };
    let context = renderContext(selected, omissionCounts());
    let tokensOut = counter.count(context);
    // Per-fragment counts are nearly additive; the rendered total is the number that is promised.
    while (tokensOut > budget) {
      const weakest = weakestOptional(selected, selection.tokens);
      if (weakest === undefined) break;
      selected = selected.filter((item) => item !== weakest);
      omitted.push(omittedEntry(weakest, 'over-budget', 'removed so that the rendered context fits the budget', selection.tokens.get(weakest.fragment.id)));
      context = renderContext(selected, omissionCounts());
      tokensOut = counter.count(context);
    }

    let conflict: BudgetConflict | undefined;
    if (tokensOut > budget) {
      conflict = {
        code: 'BUDGET_CONFLICT',
        budget,
        mandatoryTokens: selection.mandatoryTokens,
        message: `the mandatory fragments (constraints, accepted decisions, newest test failures, errors naming the task's identifiers) need ${selection.mandatoryTokens} tokens and the context ${tokensOut}, over the budget of ${budget}; all of them are included, nothing mandatory was dropped. Raise the budget or narrow the records.`,
      };
    }

    const bySource = new Map(selected.map((item) => [item.fragment.id, item]));
    const sources = parseSourceTags(context).flatMap(({ fragmentId }) => {
      const item = bySource.get(fragmentId);
      return item === undefined ? [] : [sourceEntry(item, selection.tokens.get(fragmentId) ?? 0)];
    });
    const selectedTokens = sources.reduce((sum, source) => sum + source.tokens, 0);
    const result: ContextResult = {
      context,
      sources,
      omitted,
      report: {
        version: 1,
        counter: counter.exact
          ? { name: counter.name, exact: true }
          : { name: counter.name, exact: false, note: `token figures are ${counter.name} estimates, not a tokenizer's counts` },
        weights: { ...this.weights },
        minRelevance: this.minRelevance,
        budget,
        task: prepared.taskTerms,
        related: prepared.related,
        normalize: prepared.normalizeReport,
        dedupe: { merges: prepared.merges },
        selection: { mandatoryTokens: selection.mandatoryTokens, selectedTokens, renderedTokens: tokensOut },
        mandatory: { scope: prepared.scope, demoted: prepared.demoted },
        setAside: prepared.setAside,
      },
      stats: {
        counter: counter.name,
        exact: counter.exact,
        tokensIn,
        tokensOut,
        reduction: tokensIn === 0 ? 0 : round4(1 - tokensOut / tokensIn),
        budget,
        withinBudget: tokensOut <= budget,
        records: prepared.recordCount,
        fragments: prepared.scored.length,
        selected: sources.length,
        omitted: omitted.length,
      },
    };
    if (conflict !== undefined) result.report.selection.conflict = conflict;
    return result;
  }

  /** Ranked fragments for a query over the records, best first (equal scores: the newer record first), without a budget. */
  search(records: SessionRecords, query: string, limit = DEFAULT_SEARCH_LIMIT): SearchHit[] {
    const task = parseTask(query);
    if (!Number.isSafeInteger(limit) || limit < 1) throw new McpctxError('INVALID_ARGUMENT', `limit must be a positive integer, got ${describeValue(limit)}`);
    const parsed = parseSessionRecords(records, { maxRecordChars: this.maxRecordChars });
    const { scored } = this.prepare(parsed, task);
    return scored
      .filter((item) => item.relevance > 0)
      .sort(byRank)
      .slice(0, limit)
      .map((item) => ({ ...sourceEntry(item, this.counter.count(renderBlock(item))), text: item.fragment.text }));
  }

  /**
   * Stages 1-4 on validated records. From here on records go oldest first (`compareRecency`), not
   * in input order: every list the result holds is then in an order the input's arrangement of
   * dated records cannot change.
   */
  private prepare(records: SessionRecords, task: string) {
    const normalized = normalizeValidated(records);
    const byId = new Map(normalized.records.map((record) => [record.id, record]));
    const oldestFirst = [...normalized.records].sort(compareRecency);
    const { records: kept, merges } = dedupeRecords(oldestFirst, { nearDuplicateThreshold: this.nearDuplicateThreshold });
    const taskTerms = extractTaskTerms(task);
    const items = kept.flatMap((record) => fragmentRecord(record).map((fragment) => ({ fragment, record })));
    return {
      recordCount: normalized.records.length,
      normalizeReport: {
        records: normalized.records.length,
        collapsedLines: normalized.collapsedLines,
        replacedInvalidUtf16: normalized.replacedInvalidUtf16,
      },
      merges,
      mergeOmissions: mergeOmissions(merges, byId),
      taskTerms,
      ...withConstraintSentences(scoreFragments(items, taskTerms, this.weights)),
    };
  }
}
