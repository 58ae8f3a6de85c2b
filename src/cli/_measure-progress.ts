// Progress of measuring a set of configured servers, on stderr (stdout keeps the report alone):
// a count first, then a line as each server starts and as it ends. Shared by audit and gateway wrap.
import type { AuditOptions } from '../audit/index.js';
import { plural, printableText } from '../text/index.js';
import type { CliIo } from './_io.js';
import { formatCount } from './_table.js';

export type MeasureProgress = Required<Pick<AuditOptions, 'onPlan' | 'onStart' | 'onMeasured'>>;

export function measureProgress(io: CliIo): MeasureProgress {
  const progress = (text: string): void => {
    io.stderr.write(`${printableText(text, 'note')}\n`);
  };
  return {
    onPlan: (total, concurrency) => {
      if (total > 0) progress(`measuring ${plural(total, 'server')} (concurrency ${concurrency})`);
    },
    onStart: (ordinal, total, name) => progress(`[${ordinal}/${total}] started ${name}`),
    onMeasured: (_done, total, measurement, ordinal) => {
      const tokens = measurement.totalTokens === null ? '' : ` ${formatCount(measurement.totalTokens)} tokens`;
      const seconds = (measurement.timings.elapsedMs / 1000).toFixed(1);
      progress(`[${ordinal}/${total}] ${measurement.name}: ${measurement.status}${tokens} in ${seconds}s`);
    },
  };
}
