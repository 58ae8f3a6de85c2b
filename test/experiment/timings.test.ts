// Timings of every attempt, against a loopback fake of the Anthropic Messages API: a 429 then a
// success records both attempts with their bytes and times, tool calls fall inside their turn's
// window, and verify names the path of a forged retry or a time out of order. Only the order and
// presence of times is asserted, never a duration.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceipt, type ExperimentReceipt } from '../../src/experiment/index.js';
import { renderReportMarkdown } from '../../src/experiment/index.js';
import { AnthropicFake, apiError, messageEvents } from '../support/anthropic-fake.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const KEY = 'sk-ant-api03-timings-canary-0123456789abcdef';
const answer = (value: string, ids: string[]) => ({ type: 'text' as const, text: JSON.stringify({ answer: value, evidenceIds: ids, caveats: [] }) });
const ms = (time: string | null | undefined): number => {
  expect(typeof time).toBe('string');
  return Date.parse(time as string);
};

describe('timings of every attempt and tool call (Anthropic loopback fake)', () => {
  const fake = new AnthropicFake();
  let copy: DemoCopy;
  let receipt: ExperimentReceipt;

  beforeAll(async () => {
    await fake.start();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.kind === 'lookup').slice(0, 1),
      config: (config) => {
        config.model = { provider: 'anthropic', model: 'claude-test-1', maxTokens: 700, baseUrl: fake.baseUrl, keyEnv: 'EXPERIMENT_TEST_KEY' };
        config.probe = false;
      },
    });
    fake.script(
      // Baseline, turn 1: rate limited once, then the tool use.
      { status: 429, headers: { 'retry-after-ms': '0' }, json: apiError('rate_limit_error', 'slow down, timings test') },
      { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_b1', name: 'list_records', input: {} }], stopReason: 'tool_use', usage: { input_tokens: 900, output_tokens: 20 } }) },
      { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 4000, output_tokens: 30 } }) },
      // Optimized: two tool uses in one turn, then the answer.
      {
        events: messageEvents({
          content: [
            { type: 'tool_use', id: 'toolu_o1', name: 'find_records', input: { field: 'title', value: 'Commit verification support' } },
            { type: 'tool_use', id: 'toolu_o2', name: 'exact_record', input: { id: '3028' } },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 1100, output_tokens: 40 },
        }),
      },
      { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 1500, output_tokens: 30 } }) },
    );
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: { EXPERIMENT_TEST_KEY: KEY } });
    receipt = JSON.parse(readFileSync(run.receiptFile, 'utf8')) as ExperimentReceipt;
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('a 429 then success: the turn records 2 attempts, the retried one with its bytes as sent and received and its timing', () => {
    expect(fake.requests).toHaveLength(5);
    const turn = receipt.questions[0]?.turns[0];
    expect(turn?.attempts).toBe(2);
    expect(turn?.retries).toHaveLength(1);
    const retry = turn?.retries?.[0];
    expect(retry?.raw.status).toBe(429);
    expect(retry?.raw.request).toBe(fake.requests[0]?.text);
    expect(retry?.raw.response).toContain('slow down, timings test');
    expect(turn?.raw.request).toBe(fake.requests[1]?.text);
    expect(turn?.raw.status).toBe(200);
    const order = [retry?.timing.startedAt, retry?.timing.firstByteAt, retry?.timing.endedAt, turn?.timing?.startedAt, turn?.timing?.firstByteAt, turn?.timing?.endedAt].map(ms);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(readFileSync(join(copy.dir, 'out', 'receipt.json'), 'utf8')).not.toContain(KEY);
  });

  it('every turn, tool call and question has its times; each tool call lies inside its turn window, each turn inside its question', () => {
    expect(receipt.questions).toHaveLength(2);
    let previousEnd = -Infinity;
    for (const question of receipt.questions) {
      const start = ms(question.timing?.startedAt);
      const end = ms(question.timing?.endedAt);
      expect(start).toBeGreaterThanOrEqual(previousEnd);
      expect(end).toBeGreaterThanOrEqual(start);
      previousEnd = end;
      question.turns.forEach((turn, index) => {
        const next = question.turns[index + 1];
        // A turn's window: from its model call's start to the next turn's start (the question's end after the last).
        const windowStart = ms(turn.timing?.startedAt);
        const windowEnd = next === undefined ? end : ms((next.retries?.[0]?.timing ?? next.timing)?.startedAt);
        expect(windowStart).toBeGreaterThanOrEqual(start);
        expect(ms(turn.timing?.endedAt)).toBeLessThanOrEqual(windowEnd);
        for (const call of turn.tools) {
          expect(ms(call.timing?.startedAt)).toBeGreaterThanOrEqual(ms(turn.timing?.endedAt));
          expect(ms(call.timing?.endedAt)).toBeLessThanOrEqual(windowEnd);
          expect(call.timing?.elapsedMs).toBe(ms(call.timing?.endedAt) - ms(call.timing?.startedAt));
        }
      });
    }
    expect(receipt.questions[1]?.turns[0]?.tools).toHaveLength(2);
  });

  it('the receipt verifies, and the report states elapsed, model and tool time per task and condition without a verdict', () => {
    expect(verifyReceipt(receipt)).toMatchObject({ ok: true, problems: [] });
    const row = receipt.report?.rows[0];
    for (const side of [row?.baseline, row?.optimized]) {
      expect(side?.time).toBeDefined();
      for (const figure of [side?.time?.elapsedMs, side?.time?.modelMs, side?.time?.toolMs]) expect(typeof figure).toBe('number');
    }
    const markdown = renderReportMarkdown(receipt);
    expect(markdown).toContain('## Wall-clock time');
    expect(markdown).toMatch(/\| lookup-\S+ \| baseline \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d\d \|/);
  });

  it('forging a retried attempt\'s bytes fails verify naming its path and both hashes', () => {
    const forged = structuredClone(receipt);
    const retry = forged.questions[0]?.turns[0]?.retries?.[0];
    if (retry === undefined) throw new Error('no retry recorded');
    retry.raw.response = retry.raw.response.replace('slow down', 'go faster');
    const problems = verifyReceipt(forged).problems;
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[0\]\.turns\[0\]\.retries\[0\]\.rawResponseSha256: recorded "[0-9a-f]{64}", recomputed "[0-9a-f]{64}"$/));
  });

  it('dropping a retried attempt fails verify: the attempts are no longer the retries plus one', () => {
    const forged = structuredClone(receipt);
    forged.questions[0]!.turns[0]!.retries = [];
    expect(verifyReceipt(forged).problems).toContain('questions[0].turns[0].attempts: recorded 2, recomputed 1');
  });

  it('a tool call timed before its turn ended fails verify naming both paths', () => {
    const forged = structuredClone(receipt);
    const turn = forged.questions[1]!.turns[0]!;
    const call = turn.tools[0]!;
    const early = new Date(ms(turn.timing?.startedAt) - 1000).toISOString();
    call.timing = { startedAt: early, endedAt: call.timing!.endedAt, elapsedMs: ms(call.timing!.endedAt) - Date.parse(early) };
    const problems = verifyReceipt(forged).problems;
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.turns\[0\]\.tools\[0\]\.timing\.startedAt: recorded "[^"]+", before questions\[1\]\.turns\[0\]\.timing\.endedAt "[^"]+"/));
  });

  it('a question timed before the one run before it ended fails verify, and a forged elapsed fails too', () => {
    const forged = structuredClone(receipt);
    const second = forged.questions[1]!;
    second.timing!.startedAt = new Date(ms(forged.questions[0]!.timing!.startedAt) - 1000).toISOString();
    const problems = verifyReceipt(forged).problems;
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.timing\.startedAt: recorded "[^"]+", before questions\[0\]\.timing\.endedAt "[^"]+"/));
    expect(problems).toContainEqual(expect.stringMatching(/^questions\[1\]\.timing\.elapsedMs: recorded \d+, recomputed \d+$/));
  });

  it('a first byte recorded after the attempt ended fails verify', () => {
    const forged = structuredClone(receipt);
    const timing = forged.questions[0]!.turns[1]!.timing!;
    timing.firstByteAt = new Date(ms(timing.endedAt) + 5).toISOString();
    expect(verifyReceipt(forged).problems).toContainEqual(expect.stringMatching(/^questions\[0\]\.turns\[1\]\.timing\.endedAt: recorded "[^"]+", before questions\[0\]\.turns\[1\]\.timing\.firstByteAt "[^"]+"/));
  });

  it('a turn recorded without its timing in a question that has one fails verify', () => {
    const forged = structuredClone(receipt);
    delete forged.questions[0]!.turns[1]!.timing;
    expect(verifyReceipt(forged).problems).toContain('questions[0].turns[1].timing: absent, but the question recorded its timing');
  });
});

describe('a failed model call after retries (Anthropic loopback fake)', () => {
  const fake = new AnthropicFake();
  let copy: DemoCopy;
  let receipt: ExperimentReceipt;

  beforeAll(async () => {
    await fake.start();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.kind === 'lookup').slice(0, 1),
      config: (config) => {
        config.model = { provider: 'anthropic', model: 'claude-test-1', maxTokens: 700, baseUrl: fake.baseUrl, keyEnv: 'EXPERIMENT_TEST_KEY' };
        config.probe = false;
      },
    });
    const overloaded = { status: 529, headers: { 'retry-after-ms': '0' }, json: apiError('overloaded_error', 'overloaded, timings test') };
    // Baseline: three overloaded answers, then a stream cut after its first events (not retried: the model may have acted).
    const events = messageEvents({ content: [{ type: 'text', text: 'partial answer' }], stopReason: 'end_turn', usage: { input_tokens: 344, output_tokens: 5 } });
    fake.script(overloaded, overloaded, overloaded, { events: events.slice(0, 3), then: 'destroy' });
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: { EXPERIMENT_TEST_KEY: KEY } });
    receipt = JSON.parse(readFileSync(run.receiptFile, 'utf8')) as ExperimentReceipt;
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('records every attempt: the retried ones with their bodies and times, the last with its partial stream', () => {
    const failed = receipt.questions[0]?.failedCall;
    expect(receipt.questions[0]?.outcome).toBe('provider-failure');
    expect(failed?.attempts).toBe(4);
    expect(failed?.retries?.map((retry) => retry.raw.status)).toEqual([529, 529, 529]);
    expect(failed?.retries?.every((retry, index) => retry.raw.request === fake.requests[index]?.text && retry.raw.response.includes('overloaded, timings test'))).toBe(true);
    expect(failed?.announcedUsage?.inputTokens).toBe(344);
    const order = [...(failed?.retries ?? []).flatMap((retry) => [retry.timing.startedAt, retry.timing.endedAt]), failed?.timing?.startedAt, failed?.timing?.firstByteAt].map(ms);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(verifyReceipt(receipt).problems).toEqual([]);
  });

  it('forging a failed call\'s retried bytes fails verify naming the path', () => {
    const forged = structuredClone(receipt);
    const retry = forged.questions[0]!.failedCall!.retries![1]!;
    retry.raw.request = retry.raw.request.replace('claude-test-1', 'claude-test-2');
    expect(verifyReceipt(forged).problems).toContainEqual(expect.stringMatching(/^questions\[0\]\.failedCall\.retries\[1\]\.rawRequestSha256: recorded "[0-9a-f]{64}", recomputed "[0-9a-f]{64}"$/));
  });
});
