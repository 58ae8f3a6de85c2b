// --repeat end to end, offline: the bundled demo's servers and scripted turns (keyed by request
// hash, so every repetition gets the same answers), two tasks asked twice per condition on fresh
// servers; the receipt verifies, and each forgery of the repetitions or their statistics fails,
// naming its path and both values.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRunCost, runExperiment, verifyReceipt, type ExperimentReceipt } from '../../src/experiment/index.js';
import { buildReport } from '../../src/experiment/receipt/_report.js';
import { wilsonInterval } from '../../src/stats/index.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

let copy: DemoCopy;
let receipt: ExperimentReceipt;

beforeAll(async () => {
  copy = copyDemo({
    tasks: (tasks) => tasks.filter((task) => task.id === 'lookup-author' || task.id === 'count-pull-requests'),
    config: (config) => {
      // The config asks for 3; the run's option (--repeat) says 2 and wins.
      config.repeat = 3;
      delete config.probe;
    },
  });
  receipt = (await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), repeat: 2 })).receipt;
}, 120_000);

afterAll(async () => {
  rmSync(copy.dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

function tampered(change: (copy: ExperimentReceipt) => void): string[] {
  const forged = structuredClone(receipt);
  change(forged);
  return verifyReceipt(forged).problems;
}

describe('experiment --repeat 2', () => {
  it('asks every task twice per condition, task then repetition then condition, each on its own server', () => {
    expect(receipt.status).toBe('completed');
    expect(receipt.config?.repeat).toBe(2);
    expect(receipt.questions.map((question) => `${question.taskId}#${question.repetition}:${question.condition}:${question.status}`)).toEqual([
      'lookup-author#1:baseline:passed',
      'lookup-author#1:optimized:passed',
      'lookup-author#2:baseline:passed',
      'lookup-author#2:optimized:passed',
      'count-pull-requests#1:baseline:passed',
      'count-pull-requests#1:optimized:passed',
      'count-pull-requests#2:baseline:passed',
      'count-pull-requests#2:optimized:passed',
    ]);
    // A fresh server per question: each record has its own initialize handshake.
    for (const question of receipt.questions) expect(question.server?.frames[0]?.text).toContain('"initialize"');
  });

  it('reports the rates with Wilson intervals, the paired test and the reduction\'s bootstrap interval', () => {
    const report = receipt.report!;
    expect(report.rows.map((row) => `${row.taskId}#${row.repetition}:${row.verdict}`)).toEqual([
      'lookup-author#1:compared',
      'lookup-author#2:compared',
      'count-pull-requests#1:compared',
      'count-pull-requests#2:compared',
    ]);
    expect(report.statistics.rates.optimized).toEqual({ right: 4, verdicts: 4, withoutVerdict: 0, rate: 1, ...wilsonInterval(4, 4) });
    expect(report.statistics.paired).toEqual({ pairs: 4, excluded: 0, bothRight: 4, baselineOnly: 0, optimizedOnly: 0, neitherRight: 0, mcnemarP: 1 });
    const reduction = report.statistics.contextTokens;
    expect(reduction).toMatchObject({ pairs: 4, tasks: 2, seed: 33, resamples: 2000, reduction: report.totals.contextTokens.reduction });
    expect(reduction.low).toBeLessThanOrEqual(reduction.reduction!);
    expect(reduction.high).toBeGreaterThanOrEqual(reduction.reduction!);
    expect(reduction.low).toBeLessThan(reduction.high!);
  });

  it('refuses a repeat that is not a count, before any question', async () => {
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out-zero'), repeat: 0 });
    expect(run.receipt.errors).toEqual([expect.objectContaining({ stage: 'inputs', code: 'USAGE', message: 'repeat must be an integer from 1 to 1000, got 0' })]);
    expect(run.receipt.questions).toEqual([]);
  });

  it('verifies', () => {
    expect(verifyReceipt(receipt).problems).toEqual([]);
  });

  it('fails verify when a repetition is missing, even with the report rebuilt to match', () => {
    const problems = tampered((forged) => {
      forged.questions = forged.questions.filter((question) => !(question.taskId === 'count-pull-requests' && question.repetition === 2));
      forged.report = buildReport(forged.tasks!, forged.questions, { repeat: 2 });
      // The spend rebuilt to match too, so only the completeness check is left to find it.
      forged.cost = buildRunCost(forged, forged.cost!.price, forged.cost!.maxUsd);
    });
    expect(problems).toEqual([
      'questions: no record of task "count-pull-requests" repetition 2 in condition baseline (the tasks make 8 questions at repeat 2, recorded 6)',
      'questions: no record of task "count-pull-requests" repetition 2 in condition optimized (the tasks make 8 questions at repeat 2, recorded 6)',
    ]);
  });

  it('fails verify when the recorded repeat is not the questions\' (a repetition hidden by lowering repeat)', () => {
    const problems = tampered((forged) => {
      forged.config!.repeat = 1;
      forged.report = buildReport(forged.tasks!, forged.questions, { repeat: 1 });
    });
    expect(problems).toContain('questions[2]: task "lookup-author" repetition 2 in condition "baseline" is not one of the tasks\' questions');
    expect(tampered((forged) => (forged.config!.repeat = 0))).toContain('config.repeat: recorded 0, expected an integer from 1 to 1000');
  });

  it('fails verify when two repetitions swap places', () => {
    const problems = tampered((forged) => {
      forged.questions[0]!.repetition = 2;
      forged.questions[2]!.repetition = 1;
    });
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[0\]: recorded task "lookup-author" repetition 2 "baseline", but the runner asks task "lookup-author" repetition 1 baseline there/));
  });

  it('fails verify on a forged rate interval, p value or reduction interval, naming the path and both values', () => {
    const { statistics } = receipt.report!;
    expect(tampered((forged) => (forged.report!.statistics.rates.optimized.low = 0.9))).toEqual([
      `report.statistics.rates.optimized.low: recorded 0.9, recomputed ${statistics.rates.optimized.low}`,
    ]);
    expect(tampered((forged) => (forged.report!.statistics.paired.mcnemarP = 0.04))).toEqual(['report.statistics.paired.mcnemarP: recorded 0.04, recomputed 1']);
    expect(tampered((forged) => (forged.report!.statistics.contextTokens.low = 0.3))).toEqual([
      `report.statistics.contextTokens.low: recorded 0.3, recomputed ${statistics.contextTokens.low}`,
    ]);
    expect(tampered((forged) => (forged.report!.statistics.modelFacingTokens.high = 0.99))).toEqual([
      `report.statistics.modelFacingTokens.high: recorded 0.99, recomputed ${statistics.modelFacingTokens.high}`,
    ]);
    // The run always draws with seed 33 and 2,000 resamples: a receipt cannot pick a seed that flatters its interval.
    expect(tampered((forged) => (forged.report!.statistics.contextTokens.resamples = 0))).toContain('report.statistics.contextTokens.resamples: recorded 0, recomputed 2000');
    expect(tampered((forged) => (forged.report!.statistics.contextTokens.seed = 7))).toContain('report.statistics.contextTokens.seed: recorded 7, recomputed 33');
  });
});
