// Which failures stop a run, and what the run then says it left out (seed 000: "A startup,
// connection, catalog, model, tool, or close failure leaves a failed receipt. When a task fails,
// remaining tasks are marked skipped"). A failure of the machinery stops the run; an answer the
// check refuses is a verdict, and the run goes on (docs/experiment.md, "Which failures stop a run").
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExperiment, skippedGroups, verifyReceipt, type ExperimentReceipt } from '../../src/experiment/index.js';
import { scriptedProvider } from '../../src/providers/index.js';
import { copyDemo, type DemoCopy, type DemoOptions } from '../support/experiment-demo.js';
import { runCliCaptured } from '../support/cli-run.js';
import { answerTurn, conversationOf, policyProvider, toolUse } from '../support/policy-provider.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const RELAY_SERVER = join(import.meta.dirname, '../servers/relay-server.mjs');

const copies: DemoCopy[] = [];
function demo(options?: DemoOptions): DemoCopy {
  const copy = copyDemo(options);
  copies.push(copy);
  return copy;
}
afterAll(async () => {
  for (const copy of copies) rmSync(copy.dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

function readReceipt(file: string): ExperimentReceipt {
  return JSON.parse(readFileSync(file, 'utf8')) as ExperimentReceipt;
}

/** The optimized condition served by the relay test server (its `die` and `fail` tools), no probe. */
function relayOptimized(config: Record<string, unknown>): void {
  const conditions = config.conditions as Record<string, unknown>;
  conditions.optimized = { command: 'node', args: [RELAY_SERVER], env: markedEnv(), tools: ['die', 'fail'] };
  config.probe = false;
}

describe('a failure of the machinery stops the run', () => {
  it('the second question\u2019s server fails to start: the rest are skipped, and text and --json name the question and the failure', async () => {
    const copy = demo({
      config: (config) => {
        const optimized = (config.conditions as Record<string, { env: Record<string, string> }>).optimized;
        if (optimized !== undefined) optimized.env.MODE = 'sideways';
      },
    });
    const out = join(copy.dir, 'out');
    const text = await runCliCaptured(['experiment', '--config', copy.config, '--out', out]);
    expect(text.code).toBe(3);
    const receipt = readReceipt(join(out, 'receipt.json'));
    const failed = receipt.questions[1];
    expect([failed?.taskId, failed?.condition, failed?.status, failed?.outcome]).toEqual(['lookup-author', 'optimized', 'failed', 'harness-failure']);
    const code = failed?.failure?.code ?? '';
    const rest = receipt.questions.slice(2);
    expect(rest).toHaveLength(6);
    for (const question of rest) {
      expect(question.status).toBe('skipped');
      expect(question.failure?.code).toBe('PRIOR_FAILURE');
      expect(question.failure?.message).toContain(`after lookup-author (optimized) failed with ${code}`);
      expect(question.skippedAfter).toEqual({ taskId: 'lookup-author', repetition: 1, condition: 'optimized', code, message: failed?.failure?.message });
    }
    expect(receipt.probe?.status).toBe('skipped');
    const sentence = `6 questions and the warm-cache probe skipped after lookup-author (optimized) failed with ${code}: `;
    expect(text.stdout).toContain(sentence);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(`- ${sentence}`);
    expect(verifyReceipt(receipt).problems).toEqual([]);

    const json = await runCliCaptured(['experiment', '--config', copy.config, '--out', join(copy.dir, 'out-json'), '--json']);
    expect(json.code).toBe(3);
    const summary = JSON.parse(json.stdout) as { skipped: Array<{ after: { taskId: string; condition: string; code: string }; code: string; questions: unknown[]; probe: boolean; sentence: string }> };
    expect(summary.skipped).toHaveLength(1);
    expect(summary.skipped[0]).toMatchObject({ after: { taskId: 'lookup-author', condition: 'optimized', code }, code: 'PRIOR_FAILURE', probe: true });
    expect(summary.skipped[0]?.questions).toHaveLength(6);
    expect(summary.skipped[0]?.sentence).toContain(sentence);
  }, 120_000);

  it('a tool call the server never answers (it exits mid-call) stops the run, the call kept in the receipt', async () => {
    const copy = demo({ config: relayOptimized });
    // The baseline answers from the bundled script; the optimized question calls `die`.
    const provider = policyProvider((request) => (conversationOf(request).offered.includes('die') ? toolUse('o1', 'die', {}) : undefined), scriptedProvider(copy.turns));
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), provider });
    const { receipt } = run;
    expect(receipt.status).toBe('failed');
    const failed = receipt.questions[1];
    expect(failed?.outcome).toBe('harness-failure');
    expect(failed?.failure?.code).toBe('TRANSPORT_CLOSED');
    expect(failed?.failure?.message).toMatch(/^die got no result on turn 1: /);
    expect(failed?.turns[0]?.tools.map((call) => [call.name, call.isError])).toEqual([['die', true]]);
    expect(receipt.questions.slice(2).map((question) => question.status)).toEqual(Array(6).fill('skipped'));
    expect(skippedGroups(receipt).map((group) => group.sentence)).toEqual([expect.stringMatching(/^6 questions skipped after lookup-author \(optimized\) failed with TRANSPORT_CLOSED: die got no result on turn 1: /)]);
    expect(verifyReceipt(readReceipt(run.receiptFile)).problems).toEqual([]);
    // A skip cannot blame another question, or another failure, than the one that stopped the run.
    const blamesOther = readReceipt(run.receiptFile);
    blamesOther.questions[3]!.skippedAfter = { ...blamesOther.questions[3]!.skippedAfter!, taskId: 'count-pull-requests' };
    blamesOther.questions[4]!.skippedAfter = { ...blamesOther.questions[4]!.skippedAfter!, code: 'DEADLINE' };
    expect(verifyReceipt(blamesOther).problems).toEqual([
      expect.stringMatching(/^questions\[3\]\.skippedAfter: no question before it is "count-pull-requests" #1 \(optimized\)/),
      expect.stringMatching(/^questions\[4\]\.skippedAfter\.code: recorded "DEADLINE", recomputed "TRANSPORT_CLOSED"/),
    ]);
  }, 120_000);
});

describe('a verdict on an answer does not stop the run', () => {
  it('a wrong answer: every later question is still asked, nothing skipped', async () => {
    const copy = demo({ tasks: (tasks) => tasks.map((task) => (task.id === 'lookup-author' ? { ...task, expectedAnswer: 'someone-else' } : task)) });
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out') });
    const { receipt } = run;
    expect(receipt.questions.slice(0, 2).map((question) => [question.status, question.failure?.code, question.outcome])).toEqual([
      ['failed', 'ANSWER_MISMATCH', 'wrong'],
      ['failed', 'ANSWER_MISMATCH', 'wrong'],
    ]);
    expect(receipt.questions.slice(2).map((question) => question.status)).toEqual(Array(6).fill('passed'));
    expect(receipt.probe?.status).toBe('passed');
    expect(receipt.status).toBe('completed');
    expect(skippedGroups(receipt)).toEqual([]);
    expect(readFileSync(run.reportFile ?? '', 'utf8')).not.toMatch(/skipped after/);
  }, 120_000);

  it('a tool that answers with its own error (a JSON-RPC error) fails that question only', async () => {
    const copy = demo({ config: relayOptimized });
    const provider = policyProvider((request) => {
      const { offered, results } = conversationOf(request);
      if (!offered.includes('fail')) return undefined;
      return results.length === 0 ? toolUse('o1', 'fail', {}) : answerTurn('unknown', []);
    }, scriptedProvider(copy.turns));
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), provider });
    const { receipt } = run;
    expect(receipt.status).toBe('completed');
    expect(receipt.questions.map((question) => `${question.condition} ${question.status} ${question.failure?.code ?? ''}`.trim())).toEqual([
      'baseline passed',
      'optimized failed TOOL_FAILURE',
      'baseline passed',
      'optimized failed TOOL_FAILURE',
      'baseline passed',
      'optimized failed TOOL_FAILURE',
      'baseline passed',
      'optimized failed TOOL_FAILURE',
    ]);
    expect(skippedGroups(receipt)).toEqual([]);
    expect(verifyReceipt(readReceipt(run.receiptFile)).problems).toEqual([]);
  }, 120_000);
});
