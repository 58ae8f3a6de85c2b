// What the optimizer benchmark measures for one (scenario, strategy): tokens, reduction, the
// required facts kept, precision and recall of the relevant records cited, budget compliance and
// attribution integrity of the source tags.
import { normalizeRecords, parseSourceTags } from '../../src/optimizer/index.js';
import { countTokens } from '../../src/tokens/index.js';
import type { BenchScenario } from './_scenarios.js';
import type { StrategyName, StrategyOutput } from './_strategies.js';

export interface StrategyMetrics {
  scenario: string;
  strategy: StrategyName;
  budget: number;
  /** Tokens of strategy A's output: every record, rendered. */
  tokensIn: number;
  tokensOut: number;
  /** 1 - tokensOut / tokensIn, 4 decimals. */
  reduction: number;
  factsRetained: number;
  factsTotal: number;
  lostFacts: string[];
  /** Distinct record ids named by the output's source tags. */
  recordsCited: number;
  /** Cited records that are relevant / cited records (0 when nothing is cited). */
  precision: number;
  /** Relevant records cited / relevant records. */
  recall: number;
  withinBudget: boolean;
  /** The optimizer said the mandatory records alone do not fit (C only). */
  budgetConflict: boolean;
  /** Within budget, or (C) a reported BUDGET_CONFLICT. */
  budgetCompliant: boolean;
  tags: number;
  /** Tags whose record id is an input record and whose fragment id is `<that record id>#<n>` (or `#<n>.<k>`). */
  validTags: number;
  /** validTags / tags (0 for a non-empty output without tags). */
  attribution: number;
  ms: number;
}

function ratio(part: number, whole: number, empty: number): number {
  return whole === 0 ? empty : Math.round((part / whole) * 10_000) / 10_000;
}

/** `<record id>#<n>`, or a piece of such a fragment, `<record id>#<n>.<k>` (n, k from 1). */
function belongsTo(fragmentId: string, recordId: string): boolean {
  const prefix = `${recordId}#`;
  return fragmentId.startsWith(prefix) && /^[1-9]\d*(?:\.[1-9]\d*)*$/.test(fragmentId.slice(prefix.length));
}

/** The ids of the scenario's input records, as the optimizer assigns them. */
export function inputRecordIds(scenario: BenchScenario): Set<string> {
  return new Set(normalizeRecords(scenario.records).records.map((record) => record.id));
}

export function measureStrategy(
  scenario: BenchScenario,
  strategy: StrategyName,
  output: StrategyOutput,
  tokensIn: number,
  recordIds: ReadonlySet<string> = inputRecordIds(scenario),
): StrategyMetrics {
  const tokensOut = countTokens(output.context);
  const lostFacts = scenario.requiredFacts.filter((fact) => !output.context.includes(fact));
  const tags = parseSourceTags(output.context);
  const cited = new Set(tags.map((tag) => tag.recordId));
  const relevant = new Set(scenario.relevantRecords);
  const citedRelevant = [...cited].filter((id) => relevant.has(id)).length;
  const validTags = tags.filter((tag) => recordIds.has(tag.recordId) && belongsTo(tag.fragmentId, tag.recordId)).length;
  const withinBudget = tokensOut <= scenario.tokenBudget;
  const budgetConflict = output.conflict === true;
  return {
    scenario: scenario.name,
    strategy,
    budget: scenario.tokenBudget,
    tokensIn,
    tokensOut,
    reduction: ratio(tokensIn - tokensOut, tokensIn, 0),
    factsRetained: scenario.requiredFacts.length - lostFacts.length,
    factsTotal: scenario.requiredFacts.length,
    lostFacts,
    recordsCited: cited.size,
    precision: ratio(citedRelevant, cited.size, 0),
    recall: ratio(citedRelevant, relevant.size, 1),
    withinBudget,
    budgetConflict,
    budgetCompliant: withinBudget || (strategy === 'C' && budgetConflict),
    tags: tags.length,
    validTags,
    attribution: ratio(validTags, tags.length, output.context.trim() === '' ? 1 : 0),
    ms: output.ms,
  };
}

export interface StrategySummary {
  strategy: StrategyName;
  scenarios: number;
  /** Mean of the per-scenario reductions. */
  averageReduction: number;
  factsRetained: number;
  factsTotal: number;
  factRetention: number;
  /** Scenarios where every required fact is in the output. */
  scenariosWithAllFacts: number;
  averagePrecision: number;
  averageRecall: number;
  budgetCompliant: number;
  averageAttribution: number;
  averageMs: number;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 10_000) / 10_000;
}

export function summarize(strategy: StrategyName, rows: readonly StrategyMetrics[]): StrategySummary {
  const mine = rows.filter((row) => row.strategy === strategy);
  const factsRetained = mine.reduce((sum, row) => sum + row.factsRetained, 0);
  const factsTotal = mine.reduce((sum, row) => sum + row.factsTotal, 0);
  return {
    strategy,
    scenarios: mine.length,
    averageReduction: mean(mine.map((row) => row.reduction)),
    factsRetained,
    factsTotal,
    factRetention: ratio(factsRetained, factsTotal, 1),
    scenariosWithAllFacts: mine.filter((row) => row.lostFacts.length === 0).length,
    averagePrecision: mean(mine.map((row) => row.precision)),
    averageRecall: mean(mine.map((row) => row.recall)),
    budgetCompliant: mine.filter((row) => row.budgetCompliant).length,
    averageAttribution: mean(mine.map((row) => row.attribution)),
    averageMs: mean(mine.map((row) => row.ms)),
  };
}

export interface FactLostByTruncation {
  scenario: string;
  fact: string;
}

/** Required facts strategy B lost in a scenario where C kept them: why truncation is not enough. */
export function factsBLostCKept(rows: readonly StrategyMetrics[]): FactLostByTruncation[] {
  const lost: FactLostByTruncation[] = [];
  for (const b of rows.filter((row) => row.strategy === 'B')) {
    const c = rows.find((row) => row.strategy === 'C' && row.scenario === b.scenario);
    if (c === undefined) continue;
    for (const fact of b.lostFacts) if (!c.lostFacts.includes(fact)) lost.push({ scenario: b.scenario, fact });
  }
  return lost;
}
