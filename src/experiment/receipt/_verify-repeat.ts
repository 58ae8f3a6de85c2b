/**
 * What `verifyReceipt` rebuilds repetitions with: the run's `repeat` (receipts from before
 * repetitions: 1) and the seed and resample count the report's bootstrap interval was drawn with.
 * A value in the wrong shape is a problem naming its path, and the default stands in for it.
 */
import { DEFAULT_BOOTSTRAP, type BootstrapSettings } from '../../stats/index.js';
import { MAX_REPEAT } from '../config/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';
import { shown, type Problems } from './_verify-compare.js';
import type { ExperimentReceipt } from '../_types.js';

/** Bounds what verify will redraw: a forged count must not make verification run for hours. */
const MAX_RESAMPLES = 100_000;

export function recordedRepeat(run: ExperimentReceipt, problems: Problems): number {
  const repeat: unknown = isPlainObject(run.config) ? ownValue(run.config, 'repeat') : undefined;
  if (repeat === undefined) return 1;
  if (typeof repeat === 'number' && Number.isInteger(repeat) && repeat >= 1 && repeat <= MAX_REPEAT) return repeat;
  problems.add(`config.repeat: recorded ${shown(repeat)}, expected an integer from 1 to ${MAX_REPEAT}`);
  return 1;
}

export function recordedBootstrap(run: ExperimentReceipt, problems: Problems): BootstrapSettings {
  const statistics: unknown = isPlainObject(run.report) ? ownValue(run.report, 'statistics') : undefined;
  const interval: unknown = isPlainObject(statistics) ? ownValue(statistics, 'contextTokens') : undefined;
  if (!isPlainObject(interval)) return DEFAULT_BOOTSTRAP;
  const seed = ownValue(interval, 'seed');
  const resamples = ownValue(interval, 'resamples');
  const path = 'report.statistics.contextTokens';
  let ok = true;
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) {
    problems.add(`${path}.seed: recorded ${shown(seed)}, expected an integer`);
    ok = false;
  }
  if (typeof resamples !== 'number' || !Number.isInteger(resamples) || resamples < 1 || resamples > MAX_RESAMPLES) {
    problems.add(`${path}.resamples: recorded ${shown(resamples)}, expected an integer from 1 to ${MAX_RESAMPLES}`);
    ok = false;
  }
  return ok ? { seed: seed as number, resamples: resamples as number } : DEFAULT_BOOTSTRAP;
}
