// The context optimizer against two baselines on every scenario of bench/optimizer/scenarios/:
// A raw (every record), B exact dedupe + head truncation to the budget, C the optimizer. Per row:
// tokens, reduction, required facts kept, precision/recall of the relevant records cited, budget
// compliance, attribution integrity and time; then the aggregate per strategy.
import type { BenchContext, BenchReport } from './_harness.js';
import { compareStrategies } from './optimizer/_compare.js';
import { loadScenarios } from './optimizer/_scenarios.js';

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  return compareStrategies(loadScenarios(), "Context for a task from a session's records", progress);
}
