// Outcomes kept apart: a provider failure (the Anthropic fake cuts the stream of the optimized run
// of lookup-author) leaves that task without a verdict, "not compared" with the reason, and is
// never published as an answer the cut lost.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceipt, type ExperimentRun } from '../../src/experiment/index.js';
import { exitCodeOf } from '../../src/cli/experiment.js';
import { EXIT } from '../../src/cli/_io.js';
import { AnthropicFake, messageEvents, sseText, type SseEvent } from '../support/anthropic-fake.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const answer = (value: string, ids: string[]) => ({ type: 'text' as const, text: JSON.stringify({ answer: value, evidenceIds: ids, caveats: [] }) });

describe('a provider failure on the optimized run (the stream cut mid-message)', () => {
  const fake = new AnthropicFake();
  let copy: DemoCopy;
  let run: ExperimentRun;
  let report: string;
  let cutEvents: SseEvent[];

  beforeAll(async () => {
    await fake.start();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.kind === 'lookup'),
      config: (config) => {
        config.model = { provider: 'anthropic', model: 'claude-test-1', maxTokens: 700, baseUrl: fake.baseUrl, keyEnv: 'EXPERIMENT_TEST_KEY' };
        config.probe = false;
      },
    });
    const cut = messageEvents({
      content: [{ type: 'tool_use', id: 'toolu_o1', name: 'find_records', input: { field: 'title', value: 'Commit verification support' } }],
      stopReason: 'tool_use',
      usage: { input_tokens: 344, output_tokens: 1, cache_read_input_tokens: 747 },
    });
    cutEvents = cut.slice(0, 3);
    fake.script(
      // lookup-author, baseline: answered right.
      { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_b1', name: 'list_records', input: {} }], stopReason: 'tool_use', usage: { input_tokens: 900, output_tokens: 20 } }) },
      { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 4000, output_tokens: 30 } }) },
      // lookup-author, optimized: message_start and part of a tool_use, then the connection drops.
      { events: cutEvents, then: 'destroy' },
    );
    run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: { EXPERIMENT_TEST_KEY: 'sk-test' } });
    report = readFileSync(run.reportFile ?? '', 'utf8');
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('is not a lost answer: the task is not compared, with the provider failure as the reason', () => {
    const rows = run.receipt.report?.rows ?? [];
    expect(run.receipt.report?.lostAnswers).toEqual([]);
    expect(rows.map((row) => [row.taskId, row.baseline.outcome, row.optimized.outcome, row.verdict])).toEqual([
      ['lookup-author', 'right', 'provider-failure', 'not-compared'],
      ['lookup-comments', 'not-run', 'not-run', 'not-compared'],
    ]);
    expect(rows[0]?.notCompared).toMatchObject({ condition: 'optimized', outcome: 'provider-failure', code: 'PROVIDER_ERROR' });
    expect(report).not.toMatch(/lost the answer/);
    expect(report).toMatch(/2 of 2 tasks were not compared/);
    expect(report).toMatch(/lookup-author: provider failure on the optimized run: PROVIDER_ERROR/);
    expect(report).toMatch(/\| lookup-author \| lookup \| optimized \| provider failure \(PROVIDER_ERROR\) \|/);
  });

  it('exits 3 (the run failed), never 1 (an answer mismatch), and the receipt verifies', () => {
    expect(exitCodeOf(run)).toBe(EXIT.failed);
    expect(verifyReceipt(JSON.parse(readFileSync(run.receiptFile, 'utf8'))).problems).toEqual([]);
  });
});

describe('the failed call in the receipt (the same cut stream)', () => {
  const fake = new AnthropicFake();
  let copy: DemoCopy;
  let run: ExperimentRun;
  const cut = messageEvents({
    content: [{ type: 'tool_use', id: 'toolu_o1', name: 'find_records', input: { field: 'title', value: 'Commit verification support' } }],
    stopReason: 'tool_use',
    usage: { input_tokens: 344, output_tokens: 1, cache_read_input_tokens: 747 },
  }).slice(0, 3);

  beforeAll(async () => {
    await fake.start();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.id === 'lookup-author'),
      config: (config) => {
        config.model = { provider: 'anthropic', model: 'claude-test-1', maxTokens: 700, baseUrl: fake.baseUrl, keyEnv: 'EXPERIMENT_TEST_KEY' };
        config.probe = false;
      },
    });
    fake.script(
      { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_b1', name: 'list_records', input: {} }], stopReason: 'tool_use', usage: { input_tokens: 900, output_tokens: 20 } }) },
      { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 4000, output_tokens: 30 } }) },
      { events: cut, then: 'destroy' },
    );
    run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: { EXPERIMENT_TEST_KEY: 'sk-test' } });
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('records its request bytes, the partial stream, the usage it announced and its timings', () => {
    const failed = JSON.parse(readFileSync(run.receiptFile, 'utf8')).questions[1].failedCall;
    expect(failed.code).toBe('PROVIDER_ERROR');
    expect(failed.raw.request).toBe(fake.requests[2]?.text);
    expect(failed.raw.response).toBe(sseText(cut));
    expect(failed.announcedUsage).toEqual({ inputTokens: 344, outputTokens: 1, cacheReadTokens: 747, cacheWriteTokens: 0 });
    const { startedAt, firstByteAt, endedAt } = failed.timing as { startedAt: string; firstByteAt: string; endedAt: string };
    for (const at of [startedAt, firstByteAt, endedAt]) expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(startedAt) <= Date.parse(firstByteAt) && Date.parse(firstByteAt) <= Date.parse(endedAt)).toBe(true);
  });

  it('verify re-derives its hashes and announced usage from the recorded bytes', () => {
    const receipt = JSON.parse(readFileSync(run.receiptFile, 'utf8'));
    expect(verifyReceipt(receipt).problems).toEqual([]);
    receipt.questions[1].failedCall.announcedUsage.cacheReadTokens = 0;
    receipt.questions[1].failedCall.raw.response += 'x';
    expect(verifyReceipt(receipt).problems).toEqual([
      expect.stringMatching(/^questions\[1\]\.failedCall\.rawResponseSha256: recorded/),
      'questions[1].failedCall.announcedUsage.cacheReadTokens: recorded 0, recomputed 747',
    ]);
  });
});
