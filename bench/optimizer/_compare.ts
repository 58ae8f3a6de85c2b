// Strategies A (raw), B (exact dedupe + head truncation) and C (the optimizer) on a set of
// scenarios: the rows, the aggregate per strategy and the acceptance figures, as a bench report.
import { countTokens } from '../../src/tokens/index.js';
import { type BenchReport, median, round } from '../_harness.js';
import { type StrategyMetrics, factsBLostCKept, inputRecordIds, measureStrategy, summarize } from './_metrics.js';
import type { BenchScenario } from './_scenarios.js';
import { STRATEGIES, STRATEGY_LABELS, type StrategyName, type StrategyOutput } from './_strategies.js';

/** Each strategy runs this often per scenario; the output of every run must be the same, the median time is reported. */
const RUNS = 3;
const STRATEGY_NAMES: readonly StrategyName[] = ['A', 'B', 'C'];

function percent(value: number): string {
  return `${round(value * 100, 1)}%`;
}

function runStrategy(name: StrategyName, scenario: BenchScenario): { output: StrategyOutput; ms: number; identical: boolean } {
  const outputs = Array.from({ length: RUNS }, () => STRATEGIES[name](scenario));
  const first = outputs[0] as StrategyOutput;
  const identical = outputs.every((output) => output.context === first.context && JSON.stringify(output.result) === JSON.stringify(first.result));
  return { output: first, ms: median(outputs.map((output) => output.ms)), identical };
}

function budgetCell(row: StrategyMetrics): string {
  if (row.withinBudget) return 'yes';
  return row.budgetConflict ? 'CONFLICT' : 'no';
}

export function compareStrategies(scenarios: readonly BenchScenario[], title: string, progress: (message: string) => void): BenchReport {
  const rows: StrategyMetrics[] = [];
  const nondeterministic: string[] = [];
  const conflictMismatch: string[] = [];
  for (const scenario of scenarios) {
    progress(scenario.name);
    const recordIds = inputRecordIds(scenario);
    let tokensIn = 0;
    for (const name of STRATEGY_NAMES) {
      const { output, ms, identical } = runStrategy(name, scenario);
      if (name === 'A') tokensIn = countTokens(output.context);
      if (!identical) nondeterministic.push(`${scenario.name}/${name}`);
      const metrics = measureStrategy(scenario, name, { ...output, ms }, tokensIn, recordIds);
      if (name === 'C' && metrics.budgetConflict !== (scenario.expect?.budgetConflict === true)) conflictMismatch.push(scenario.name);
      rows.push(metrics);
    }
  }

  const summaries = STRATEGY_NAMES.map((name) => summarize(name, rows));
  const lostByTruncation = factsBLostCKept(rows);
  const [, b, c] = summaries as [ReturnType<typeof summarize>, ReturnType<typeof summarize>, ReturnType<typeof summarize>];
  const cRows = rows.filter((row) => row.strategy === 'C');
  const acceptance = {
    cRetainsAllFacts: cRows.every((row) => row.lostFacts.length === 0),
    cWithinBudgetOrExpectedConflict: cRows.every((row) => row.budgetCompliant) && conflictMismatch.length === 0,
    cAttributionComplete: cRows.every((row) => row.attribution === 1),
    cReductionAtLeastB: c.averageReduction >= b.averageReduction,
    bLosesAFactCKeeps: lostByTruncation.length > 0,
    cDeterministic: !nondeterministic.some((entry) => entry.endsWith('/C')),
  };

  const tableRows: Array<Array<string | number>> = rows.map((row) => [
    row.scenario,
    STRATEGY_LABELS[row.strategy],
    row.tokensIn,
    row.tokensOut,
    row.budget,
    percent(row.reduction),
    `${row.factsRetained}/${row.factsTotal}`,
    round(row.precision, 2),
    round(row.recall, 2),
    budgetCell(row),
    percent(row.attribution),
    round(row.ms, 1),
  ]);
  for (const summary of summaries) {
    tableRows.push([
      `average of ${summary.scenarios}`,
      STRATEGY_LABELS[summary.strategy],
      '-',
      '-',
      '-',
      percent(summary.averageReduction),
      `${summary.factsRetained}/${summary.factsTotal}`,
      round(summary.averagePrecision, 2),
      round(summary.averageRecall, 2),
      `${summary.budgetCompliant}/${summary.scenarios}`,
      percent(summary.averageAttribution),
      round(summary.averageMs, 1),
    ]);
  }

  const failedC = cRows.filter((row) => row.lostFacts.length > 0).map((row) => `${row.scenario}: ${row.lostFacts.map((fact) => JSON.stringify(fact)).join(', ')}`);
  return {
    title: `${title}: A raw vs B exact dedupe + head truncation vs C ContextOptimizer, ${scenarios.length} scenarios (o200k tokens)`,
    table: {
      columns: ['scenario', 'strategy', 'tokens in', 'tokens out', 'budget', 'reduction', 'facts kept', 'precision', 'recall', 'within budget', 'attribution', 'ms (median)'],
      rows: tableRows,
    },
    figures: {
      runsPerStrategy: RUNS,
      scenarios: scenarios.map((scenario) => ({ name: scenario.name, source: scenario.source, budget: scenario.tokenBudget, expectConflict: scenario.expect?.budgetConflict === true })),
      rows: rows.map((row) => ({ ...row, ms: round(row.ms, 2) })),
      summaries: summaries.map((summary) => ({ ...summary, averageMs: round(summary.averageMs, 2) })),
      factsLostByBKeptByC: lostByTruncation,
      nondeterministic,
      conflictMismatch,
      acceptance,
    },
    notes: [
      `Average reduction: A ${percent(summaries[0]?.averageReduction ?? 0)}, B ${percent(b.averageReduction)}, C ${percent(c.averageReduction)} (C >= B: ${acceptance.cReductionAtLeastB ? 'yes' : 'NO'}).`,
      `Required facts kept: A ${summaries[0]?.factsRetained}/${summaries[0]?.factsTotal}, B ${b.factsRetained}/${b.factsTotal} (${b.scenariosWithAllFacts}/${b.scenarios} scenarios complete), C ${c.factsRetained}/${c.factsTotal} (${c.scenariosWithAllFacts}/${c.scenarios} complete).`,
      `Facts B lost where C kept them: ${lostByTruncation.length}${lostByTruncation.length === 0 ? '' : ` (${lostByTruncation.slice(0, 6).map((entry) => `${entry.scenario}: ${JSON.stringify(entry.fact)}`).join('; ')}${lostByTruncation.length > 6 ? '; ...' : ''})`}.`,
      failedC.length === 0 ? 'C kept every required fact.' : `C lost facts in ${failedC.length} scenario(s): ${failedC.join(' | ')}.`,
      `Budget: C within budget or reporting BUDGET_CONFLICT exactly where expected: ${acceptance.cWithinBudgetOrExpectedConflict ? 'yes' : `NO (${conflictMismatch.join(', ') || 'over budget without conflict'})`}. Attribution of C: ${acceptance.cAttributionComplete ? '100%' : 'NOT 100%'}.`,
      `Determinism: every strategy ran ${RUNS} times per scenario; ${nondeterministic.length === 0 ? 'all outputs identical' : `outputs differed for ${nondeterministic.join(', ')}`}.`,
      'A and B render each record as `[source: <id>#1 | <id> | <label>]` + its normalized text, in input order (RECORD_ARRAYS order, then index); tokens in = tokens of A.',
    ],
  };
}
