/**
 * The report's statistics over repetitions: each condition's rate of right answers with its 95%
 * Wilson interval; the pairs (same task and repetition) with McNemar's exact test on who was
 * right; and the context-, output- and model-facing-token reductions over the pairs both answered
 * right, each with a paired bootstrap 95% interval that resamples tasks, each with its repetitions (repetitions of one
 * task are not independent draws). Derived from the report's rows only, so verify rebuilds it.
 */
import { DEFAULT_BOOTSTRAP, bootstrapReductionInterval, mcnemarExact, ratioReduction, wilsonInterval, type BootstrapSettings, type PairedSums } from '../../stats/index.js';
import { VERDICT_OUTCOMES } from './_outcome.js';
import { CONDITIONS, type Condition, type INTERVAL_TOTALS, type RateInterval, type ReductionInterval, type ReportRow, type RepetitionStatistics } from '../_types.js';

export function repetitionStatistics(rows: readonly ReportRow[], repeat: number, bootstrap: BootstrapSettings = DEFAULT_BOOTSTRAP): RepetitionStatistics {
  const rates = Object.fromEntries(CONDITIONS.map((condition) => [condition, rateOf(rows, condition)])) as Record<Condition, RateInterval>;
  const paired = rows.filter((row) => VERDICT_OUTCOMES.has(row.baseline.outcome) && VERDICT_OUTCOMES.has(row.optimized.outcome));
  const count = (baselineRight: boolean, optimizedRight: boolean): number =>
    paired.filter((row) => (row.baseline.outcome === 'right') === baselineRight && (row.optimized.outcome === 'right') === optimizedRight).length;
  const baselineOnly = count(true, false);
  const optimizedOnly = count(false, true);
  return {
    repeat,
    rates,
    paired: {
      pairs: paired.length,
      excluded: rows.length - paired.length,
      bothRight: count(true, true),
      baselineOnly,
      optimizedOnly,
      neitherRight: count(false, false),
      mcnemarP: mcnemarExact(baselineOnly, optimizedOnly),
    },
    contextTokens: reductionInterval(rows, bootstrap, 'contextTokens'),
    outputTokens: reductionInterval(rows, bootstrap, 'outputTokens'),
    modelFacingTokens: reductionInterval(rows, bootstrap, 'modelFacingTokens'),
  };
}

function rateOf(rows: readonly ReportRow[], condition: Condition): RateInterval {
  const outcomes = rows.map((row) => row[condition].outcome);
  const verdicts = outcomes.filter((outcome) => VERDICT_OUTCOMES.has(outcome)).length;
  const right = outcomes.filter((outcome) => outcome === 'right').length;
  const interval = wilsonInterval(right, verdicts);
  return { right, verdicts, withoutVerdict: outcomes.length - verdicts, rate: verdicts === 0 ? null : right / verdicts, low: interval?.low ?? null, high: interval?.high ?? null };
}

/** Per task, the sums of `measure` over its pairs answered right in both: the units the bootstrap draws. */
function reductionInterval(rows: readonly ReportRow[], bootstrap: BootstrapSettings, measure: (typeof INTERVAL_TOTALS)[number]): ReductionInterval {
  const compared = rows.filter((row) => row.verdict === 'compared');
  const units = new Map<string, { baseline: number | null; optimized: number | null }>();
  for (const row of compared) {
    const unit = units.get(row.taskId) ?? { baseline: 0, optimized: 0 };
    unit.baseline = plus(unit.baseline, row.baseline.totals[measure]);
    unit.optimized = plus(unit.optimized, row.optimized.totals[measure]);
    units.set(row.taskId, unit);
  }
  const known = [...units.values()].every((unit) => unit.baseline !== null && unit.optimized !== null);
  const sums = known ? ([...units.values()] as PairedSums[]) : [];
  const interval = bootstrapReductionInterval(sums, bootstrap);
  return {
    pairs: compared.length,
    tasks: units.size,
    reduction: sums.length === 0 ? null : ratioReduction(sums),
    low: interval?.low ?? null,
    high: interval?.high ?? null,
    seed: bootstrap.seed,
    resamples: bootstrap.resamples,
  };
}

/** A sum with an unknown term is unknown. */
function plus(sum: number | null, term: number | null): number | null {
  return sum === null || term === null ? null : sum + term;
}
