/**
 * Stage 8: the public `ContextResult` from the stages' records: the sources are the fitted blocks
 * in the order they appear in the context (taken from the selection, not read back from the text).
 */
import type { Fitted } from './_fit.js';
import { originText } from './_normalize.js';
import type { PreparedSession } from './_prepare.js';
import { round4 } from './_score.js';
import type { ScoredFragment } from './_types.js';
import type { Selection } from './_select.js';
import type { ContextResult, ScoringWeights, SourceEntry, TokenCounter } from './_types.js';

export function sourceEntry(item: ScoredFragment, tokens: number): SourceEntry {
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

export interface ResultSettings {
  counter: TokenCounter;
  weights: ScoringWeights;
  minRelevance: number;
  budget: number;
  tokensIn: number;
}

export function assembleResult(prepared: PreparedSession, selection: Selection, fitted: Fitted, settings: ResultSettings): ContextResult {
  const { counter, budget, tokensIn } = settings;
  const tokensOut = fitted.renderedTokens;
  const sources = fitted.blocks.map((item) => sourceEntry(item, selection.tokens.get(item.fragment.id) ?? 0));
  const selectedTokens = sources.reduce((sum, source) => sum + source.tokens, 0);
  const result: ContextResult = {
    context: fitted.context,
    sources,
    omitted: fitted.omitted,
    report: {
      version: 1,
      counter: counter.exact
        ? { name: counter.name, exact: true }
        : { name: counter.name, exact: false, note: `token figures are ${counter.name} estimates, not a tokenizer's counts` },
      weights: { ...settings.weights },
      minRelevance: settings.minRelevance,
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
      omitted: fitted.omitted.length,
    },
  };
  const mandatoryOmitted = selection.mandatoryOmitted + fitted.mandatoryRemoved;
  const what = "the mandatory fragments (constraints, accepted decisions, newest test failures, errors naming the task's identifiers)";
  if (mandatoryOmitted > 0) {
    result.report.selection.conflict = {
      code: 'BUDGET_CONFLICT',
      budget,
      mandatoryTokens: selection.mandatoryTokens,
      mandatoryOmitted,
      message: `${what} need ${selection.mandatoryTokens} tokens, over the budget of ${budget}; the best-ranked that fit are included and ${mandatoryOmitted} are left out (listed in omitted). Raise the budget to keep them all.`,
    };
  } else if (tokensOut > budget) {
    result.report.selection.conflict = {
      code: 'BUDGET_CONFLICT',
      budget,
      mandatoryTokens: selection.mandatoryTokens,
      message: `${what} need ${selection.mandatoryTokens} tokens and the context ${tokensOut}, over the budget of ${budget}; all of them are included, nothing mandatory was dropped. Raise the budget or narrow the records.`,
    };
  }
  return result;
}
