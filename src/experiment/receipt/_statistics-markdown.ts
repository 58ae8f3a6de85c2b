/** The report's statistics for people: the rates with their intervals, the paired test, the reduction's interval. */
import type { RepetitionStatistics } from '../_types.js';

export function statisticsSection(statistics: RepetitionStatistics): string[] {
  const { repeat, rates, paired, contextTokens } = statistics;
  const lines = [
    '## Rates and intervals',
    '',
    repeat === 1
      ? 'Each task was asked once per condition (--repeat 1): the intervals below come from one repetition.'
      : `Each task was asked ${count(repeat)} times per condition (--repeat ${repeat}), each time on a fresh server.`,
    '',
    '| condition | answered right | questions with a verdict | rate | 95% Wilson interval | without a verdict |',
    '|---|---:|---:|---:|---|---:|',
  ];
  for (const condition of ['baseline', 'optimized'] as const) {
    const rate = rates[condition];
    const interval = rate.low === null || rate.high === null ? 'n/a' : `${percent(rate.low)} to ${percent(rate.high)}`;
    lines.push(`| ${condition} | ${count(rate.right)} | ${count(rate.verdicts)} | ${rate.rate === null ? 'n/a' : percent(rate.rate)} | ${interval} | ${count(rate.withoutVerdict)} |`);
  }
  const excluded = paired.excluded === 0 ? 'none excluded' : `${count(paired.excluded)} excluded (a side without a verdict)`;
  lines.push(
    '',
    `Paired by task and repetition: ${count(paired.pairs)} pairs with a verdict on both sides, ${excluded}; both right ${count(paired.bothRight)}, only the baseline right ${count(paired.baselineOnly)}, only the optimized right ${count(paired.optimizedOnly)}, neither ${count(paired.neitherRight)}. McNemar exact two-sided p = ${pValue(paired.mcnemarP)} (on the ${count(paired.baselineOnly + paired.optimizedOnly)} discordant pairs${paired.baselineOnly + paired.optimizedOnly === 0 ? ': nothing tells the conditions apart' : ''}).`,
    '',
  );
  if (contextTokens.reduction === null) {
    lines.push(`Context-token reduction: no interval (${contextTokens.pairs === 0 ? 'no pair was answered right in both conditions' : 'a sum it needs is unknown'}).`);
  } else {
    const interval = contextTokens.low === null || contextTokens.high === null ? 'no interval' : `95% bootstrap interval ${percent(contextTokens.low)} to ${percent(contextTokens.high)}`;
    lines.push(
      `Context-token reduction over the ${count(contextTokens.pairs)} pairs answered right in both: ${percent(contextTokens.reduction)}, ${interval} (${count(contextTokens.resamples)} resamples of the ${count(contextTokens.tasks)} tasks with replacement, each task with its repetitions, seed ${contextTokens.seed}).`,
    );
  }
  return lines;
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function percent(fraction: number): string {
  return `${(fraction * 100).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}%`;
}

/** Four significant digits, and exact figures (1, 0.0625) as they are. */
function pValue(p: number): string {
  return p === 1 ? '1' : Number(p.toPrecision(4)).toString();
}
