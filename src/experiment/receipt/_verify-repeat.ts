/**
 * What `verifyReceipt` rebuilds repetitions with: the run's `repeat` (absent: 1). A value in the
 * wrong shape is a problem naming its path, and 1 stands in for it.
 */
import { MAX_REPEAT } from '../config/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';
import { shown, type Problems } from './_verify-compare.js';
import type { ExperimentReceipt } from '../_types.js';

export function recordedRepeat(run: ExperimentReceipt, problems: Problems): number {
  const repeat: unknown = isPlainObject(run.config) ? ownValue(run.config, 'repeat') : undefined;
  if (repeat === undefined) return 1;
  if (typeof repeat === 'number' && Number.isInteger(repeat) && repeat >= 1 && repeat <= MAX_REPEAT) return repeat;
  problems.add(`config.repeat: recorded ${shown(repeat)}, expected an integer from 1 to ${MAX_REPEAT}`);
  return 1;
}
