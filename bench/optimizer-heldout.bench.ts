// The same comparison as bench/optimizer.bench.ts on bench/optimizer/heldout/: scenarios written
// blind after the optimizer's settings were chosen on bench/optimizer/scenarios/, so they show how
// it does on sessions it was not fitted to. Losses here are reported, not hidden; see the folder's README.
import type { BenchContext, BenchReport } from './_harness.js';
import { compareStrategies } from './optimizer/_compare.js';
import { HELDOUT_DIR, loadScenarios } from './optimizer/_scenarios.js';

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const report = compareStrategies(loadScenarios(HELDOUT_DIR), 'Held-out sessions (not used to tune the optimizer)', progress);
  return {
    ...report,
    notes: ['Held out: written without reading or running the optimizer, after its settings were fixed; never used to tune it.', ...(report.notes ?? [])],
  };
}
