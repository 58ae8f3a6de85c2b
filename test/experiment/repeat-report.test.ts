// The report over repetitions: a row per task and repetition, each condition's rate with its
// Wilson interval, McNemar's exact test on pairs with a verdict on both sides, and the
// reduction's bootstrap interval drawn from a recorded seed, all from question records alone.
import { describe, expect, it } from 'vitest';
import { buildReport, questionTotals, renderReportMarkdown } from '../../src/experiment/receipt/_report.js';
import { RECEIPT_FORMAT } from '../../src/experiment/_types.js';
import type { Condition, ExperimentReceipt, QuestionRecord, QuestionStatus, Task, TurnRecord } from '../../src/experiment/_types.js';
import { bootstrapReductionInterval, wilsonInterval } from '../../src/stats/index.js';

function turn(context: number): TurnRecord {
  return {
    raw: { url: 'scripted:', request: '{}', response: '{}', status: 200 },
    rawRequestSha256: '',
    rawResponseSha256: '',
    content: [],
    stopReason: 'end_turn',
    rawStopReason: null,
    usage: { inputTokens: context, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model: 'm',
    attempts: 1,
    tools: [],
  };
}

function task(id: string): Task {
  return { id, kind: 'lookup', question: `q ${id}`, expectedAnswer: '5', evidenceIds: [], requiredCaveats: [] };
}

const WRONG = { code: 'ANSWER_MISMATCH', message: 'wrong' };
const CUT = { code: 'PROVIDER_ERROR', message: 'the stream was cut' };

function question(taskId: string, repetition: number | undefined, condition: Condition, status: QuestionStatus, context: number, failure?: { code: string; message: string }): QuestionRecord {
  const turns = [turn(context)];
  return { taskId, kind: 'lookup', condition, ...(repetition === undefined ? {} : { repetition }), question: `q ${taskId}`, status, turns, totals: questionTotals(turns), ...(failure === undefined ? {} : { failure }) };
}

/** Per task and repetition: the baseline's and the optimized question's status (R right, W wrong, P provider failure) and context tokens. */
const PLAN: Array<[string, number, string, number, string, number]> = [
  ['a', 1, 'R', 1000, 'R', 600],
  ['a', 2, 'R', 1100, 'R', 500],
  ['b', 1, 'R', 900, 'W', 100],
  ['b', 2, 'W', 900, 'R', 300],
  ['c', 1, 'W', 800, 'R', 300],
  ['c', 2, 'W', 800, 'R', 300],
  ['d', 1, 'R', 700, 'P', 50],
  ['d', 2, 'W', 700, 'W', 200],
  ['e', 1, 'R', 2000, 'R', 1900],
  ['e', 2, 'R', 2100, 'R', 1800],
];

function side(taskId: string, repetition: number, condition: Condition, code: string, context: number): QuestionRecord {
  if (code === 'R') return question(taskId, repetition, condition, 'passed', context);
  return question(taskId, repetition, condition, 'failed', context, code === 'W' ? WRONG : CUT);
}

const tasks = ['a', 'b', 'c', 'd', 'e'].map(task);
const questions = PLAN.flatMap(([taskId, repetition, baseline, baselineContext, optimized, optimizedContext]) => [
  side(taskId, repetition, 'baseline', baseline, baselineContext),
  side(taskId, repetition, 'optimized', optimized, optimizedContext),
]);

describe('buildReport with repetitions', () => {
  const report = buildReport(tasks, questions, { repeat: 2 });

  it('gives a row per task and repetition, in task then repetition order', () => {
    expect(report.rows.map((row) => `${row.taskId}#${row.repetition}:${row.verdict}`)).toEqual([
      'a#1:compared',
      'a#2:compared',
      'b#1:cut-lost-answer',
      'b#2:baseline-failed',
      'c#1:baseline-failed',
      'c#2:baseline-failed',
      'd#1:not-compared',
      'd#2:both-failed',
      'e#1:compared',
      'e#2:compared',
    ]);
    expect(report.tasks).toBe(5);
    expect(report.compared).toBe(4);
    expect(report.notCompared).toBe(1);
    expect(report.lostAnswers).toEqual(['b']);
  });

  it('gives each condition its rate of right answers among questions with a verdict, with the 95% Wilson interval', () => {
    // Baseline: 6 right of 10 verdicts. Optimized: 7 right of 9 (the provider failure is no verdict).
    expect(report.statistics.rates.baseline).toEqual({ right: 6, verdicts: 10, withoutVerdict: 0, rate: 0.6, ...wilsonInterval(6, 10) });
    expect(report.statistics.rates.optimized).toEqual({ right: 7, verdicts: 9, withoutVerdict: 1, rate: 7 / 9, ...wilsonInterval(7, 9) });
    expect(report.statistics.rates.baseline.low).toBeCloseTo(0.312673, 5);
  });

  it('pairs by task and repetition, excludes a pair without a verdict, and tests the discordant pairs exactly', () => {
    // b = 1 (b#1), c = 3 (b#2, c#1, c#2): p = 2 · (1 + 4) / 16.
    expect(report.statistics.paired).toEqual({ pairs: 9, excluded: 1, bothRight: 4, baselineOnly: 1, optimizedOnly: 3, neitherRight: 1, mcnemarP: 0.625 });
  });

  it('bootstraps the context-token reduction over the pairs right in both, resampling tasks with their repetitions', () => {
    const interval = report.statistics.contextTokens;
    expect(interval).toMatchObject({ pairs: 4, tasks: 2, seed: 33, resamples: 2000 });
    expect(interval.reduction).toBe(report.totals.contextTokens.reduction);
    expect(interval.reduction).toBeCloseTo(1400 / 6200, 12);
    // The units are the tasks: a (2100 → 1100) and e (4100 → 3700).
    const units = [{ baseline: 2100, optimized: 1100 }, { baseline: 4100, optimized: 3700 }];
    expect({ low: interval.low, high: interval.high }).toEqual(bootstrapReductionInterval(units, { seed: 33, resamples: 2000 }));
    // Two units: a draw is a twice (47.6%), one of each (23.3%) or e twice (9.8%).
    expect(interval.low).toBeCloseTo(400 / 4100, 12);
    expect(interval.high).toBeCloseTo(1000 / 2100, 12);
    const other = buildReport(tasks, questions, { repeat: 2, bootstrap: { seed: 7, resamples: 10 } }).statistics.contextTokens;
    expect(other).toMatchObject({ seed: 7, resamples: 10 });
  });

  it('reads a record from before repetitions as repetition 1, and a missing repetition as not run', () => {
    const old = [question('a', undefined, 'baseline', 'passed', 1000), question('a', undefined, 'optimized', 'passed', 600)];
    const once = buildReport([task('a')], old);
    expect(once.rows.map((row) => [row.repetition, row.verdict])).toEqual([[1, 'compared']]);
    const twice = buildReport([task('a')], old, { repeat: 2 });
    expect(twice.rows.map((row) => [row.repetition, row.verdict])).toEqual([[1, 'compared'], [2, 'not-compared']]);
    expect(twice.rows[1]?.baseline.failure?.message).toBe('No baseline question was recorded for task a (repetition 2).');
    expect(twice.statistics.rates.baseline).toMatchObject({ right: 1, verdicts: 1, withoutVerdict: 1 });
  });

  it('gives intervals from one repetition too', () => {
    const once = buildReport([task('a')], [question('a', 1, 'baseline', 'passed', 1000), question('a', 1, 'optimized', 'passed', 600)]);
    expect(once.statistics).toMatchObject({ repeat: 1, paired: { pairs: 1, mcnemarP: 1 }, contextTokens: { reduction: 0.4, low: 0.4, high: 0.4 } });
    expect(once.statistics.rates.optimized.low).toBeCloseTo(0.206549, 5);
  });
});

describe('renderReportMarkdown with repetitions', () => {
  const receipt: ExperimentReceipt = {
    format: RECEIPT_FORMAT,
    warning: 'private',
    status: 'completed',
    startedAt: '2026-12-05T06:00:00.000Z',
    updatedAt: '2026-12-05T06:05:00.000Z',
    stages: [],
    errors: [],
    tasks,
    questions,
    report: buildReport(tasks, questions, { repeat: 2 }),
  };
  const markdown = renderReportMarkdown(receipt);

  it('labels each row with its repetition and counts task repetitions', () => {
    expect(markdown).toContain('| b #2 | lookup | optimized | answered right |');
    expect(markdown).toContain('Over the 4 of 10 task repetitions (5 tasks × 2) answered right in both conditions (n = 4):');
    expect(markdown).toContain('- the cut lost the answer to b #1: answered wrong: wrong');
    expect(markdown).toContain('- d #1: provider failure on the optimized run: PROVIDER_ERROR: the stream was cut');
    expect(markdown).toContain('- d #1 (optimized) failed: PROVIDER_ERROR: the stream was cut');
  });

  it('gives the rates with their intervals, the paired test and the reduction\'s interval', () => {
    expect(markdown).toContain('Each task was asked 2 times per condition (--repeat 2), each time on a fresh server.');
    expect(markdown).toContain('| baseline | 6 | 10 | 60.0% | 31.3% to 83.2% | 0 |');
    expect(markdown).toContain('| optimized | 7 | 9 | 77.8% | 45.3% to 93.7% | 1 |');
    expect(markdown).toContain('9 pairs with a verdict on both sides, 1 excluded (a side without a verdict); both right 4, only the baseline right 1, only the optimized right 3, neither 1. McNemar exact two-sided p = 0.625 (on the 4 discordant pairs).');
    expect(markdown).toContain('Context-token reduction over the 4 pairs answered right in both: 22.6%, 95% bootstrap interval 9.8% to 47.6% (2,000 resamples of the 2 tasks with replacement, each task with its repetitions, seed 33).');
  });
});
