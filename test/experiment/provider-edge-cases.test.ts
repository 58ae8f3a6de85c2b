// Documented provider answers the experiment must take in its stride (issue 33, items 3-6), each
// against a loopback fake: a tool_use cut by max_tokens fails that question only; tool calls
// without ids get ids unique in the run; finish_reason "stop" with tool_calls is a tool call; a
// stream without usage is recorded as unknown, never 0. In every case the receipt verifies.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceipt, type ExperimentReceipt } from '../../src/experiment/index.js';
import { AnthropicFake, messageEvents, type SseEvent } from '../support/anthropic-fake.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { chunk, startOpenAiFake, textReply, usageChunk, type FakeReply, type OpenAiFake } from '../support/openai-fake.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const ANSWER = { answer: 'timgates42', evidenceIds: ['3028'], caveats: [] };
const answerBlock = { type: 'text' as const, text: JSON.stringify(ANSWER) };

/** A tool call streamed in two pieces; `id` undefined sends none (as some local servers do). */
function openAiToolCall(call: { id?: string; name: string; args: unknown }, finish = 'tool_calls', usage: boolean | [number, number] = [300, 12]): FakeReply {
  const text = JSON.stringify(call.args);
  return {
    kind: 'sse',
    events: [
      chunk({ toolCalls: [{ index: 0, ...(call.id === undefined ? {} : { id: call.id }), name: call.name, arguments: text.slice(0, 5) }] }),
      chunk({ toolCalls: [{ index: 0, arguments: text.slice(5) }] }),
      chunk({ finish }),
      ...(usage === false ? [] : [usageChunk(...(usage === true ? ([300, 12] as [number, number]) : usage))]),
    ],
  };
}

/** The Anthropic events of a turn whose tool_use input is cut by max_tokens: the JSON never closes. */
function cutToolUseEvents(): SseEvent[] {
  return [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { id: 'msg_cut', type: 'message', role: 'assistant', model: 'claude-test-1', content: [], stop_reason: null, usage: { input_tokens: 900, output_tokens: 1 } } },
    },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Looking it up.' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_cut', name: 'exact_record', input: {} } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"id": "30' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 700 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

async function run(copy: DemoCopy, env: Record<string, string> = {}): Promise<{ receipt: ExperimentReceipt; report: string }> {
  const result = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env });
  const receipt = JSON.parse(readFileSync(result.receiptFile, 'utf8')) as ExperimentReceipt;
  return { receipt, report: result.reportFile === undefined ? '' : readFileSync(result.reportFile, 'utf8') };
}

const outcomes = (receipt: ExperimentReceipt) => receipt.questions.map((question) => [question.taskId, question.condition, question.status, question.failure?.code]);

describe('Anthropic: stop_reason max_tokens in the middle of a tool_use (item 3)', () => {
  const fake = new AnthropicFake();
  let copy: DemoCopy;
  let receipt: ExperimentReceipt;

  beforeAll(async () => {
    await fake.start();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.kind === 'lookup'),
      config: (config) => {
        config.model = { provider: 'anthropic', model: 'claude-test-1', maxTokens: 700, baseUrl: fake.baseUrl, keyEnv: 'EDGE_TEST_KEY' };
        config.probe = false;
      },
    });
    fake.script(
      // lookup-author, baseline: the tool_use is cut by max_tokens.
      { events: cutToolUseEvents() },
      // The other three questions answer at once, without the tools: judged answers, so the run went on to them.
      { events: messageEvents({ content: [answerBlock], stopReason: 'end_turn', usage: { input_tokens: 1000, output_tokens: 30 } }) },
      { events: messageEvents({ content: [answerBlock], stopReason: 'end_turn' }) },
      { events: messageEvents({ content: [answerBlock], stopReason: 'end_turn' }) },
    );
    receipt = (await run(copy, { EDGE_TEST_KEY: 'sk-ant-edge' })).receipt;
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('fails that question as no answer within max_tokens, asks the other questions, and the receipt verifies', () => {
    expect(fake.requests).toHaveLength(4);
    expect(outcomes(receipt)).toEqual([
      ['lookup-author', 'baseline', 'failed', 'STOP_max_tokens'],
      ['lookup-author', 'optimized', 'failed', 'PATH_MISMATCH'],
      ['lookup-comments', 'baseline', 'failed', 'ANSWER_MISMATCH'],
      ['lookup-comments', 'optimized', 'failed', 'PATH_MISMATCH'],
    ]);
    const cut = receipt.questions[0];
    expect(cut?.failure?.message).toMatch(/max_tokens \(700\).*tool_use "toolu_cut"/);
    // The partial input is kept as the text that arrived; no tool was called with it.
    expect(cut?.turns[0]?.content).toEqual([
      { type: 'text', text: 'Looking it up.' },
      { type: 'tool_use', id: 'toolu_cut', name: 'exact_record', input: '{"id": "30' },
    ]);
    expect(cut?.turns[0]?.tools).toEqual([]);
    expect(receipt.status).toBe('completed');
    expect(verifyReceipt(receipt).problems).toEqual([]);
  });
});

describe('OpenAI-compatible: tool calls without ids, and finish_reason "stop" with tool_calls (items 4, 5)', () => {
  let fake: OpenAiFake;
  let copy: DemoCopy;
  let receipt: ExperimentReceipt;

  beforeAll(async () => {
    fake = await startOpenAiFake();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.id === 'lookup-author'),
      config: (config) => {
        config.model = { provider: 'openai-compatible', model: 'qwen-test', baseUrl: fake.baseUrl, maxTokens: 512 };
        config.probe = false;
      },
    });
    fake.reply(
      // baseline: two tool-call turns, neither call with an id.
      openAiToolCall({ name: 'list_records', args: {} }),
      openAiToolCall({ name: 'exact_record', args: { id: '3028' } }),
      textReply(JSON.stringify(ANSWER), 'stop', [4000, 25]),
      // optimized: tool calls that finish with "stop" (as Ollama and some vLLM versions send them).
      openAiToolCall({ id: 'call_o1', name: 'find_records', args: { field: 'title', value: 'Commit verification support' } }, 'stop'),
      openAiToolCall({ id: 'call_o2', name: 'exact_record', args: { id: '3028' } }, 'stop'),
      textReply(JSON.stringify(ANSWER), 'stop', [900, 25]),
    );
    receipt = (await run(copy)).receipt;
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('gives each call without an id its own id, sends each result under it, and the receipt verifies', () => {
    const baseline = receipt.questions[0];
    const ids = baseline?.turns.flatMap((turn) => turn.tools.map((call) => call.toolUseId)) ?? [];
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    const third = fake.requests[2]?.body as { messages: Array<{ role: string; tool_call_id?: string; tool_calls?: Array<{ id: string }> }> };
    expect(third.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual(ids);
    expect(third.messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? [])).toEqual(ids);
    expect(baseline?.status).toBe('passed');
    expect(verifyReceipt(receipt).problems).toEqual([]);
  });

  it('calls the tools of a turn that finished with "stop", and keeps the provider\'s word', () => {
    const optimized = receipt.questions[1];
    expect(optimized?.turns.map((turn) => [turn.stopReason, turn.rawStopReason, turn.tools.map((call) => call.name)])).toEqual([
      ['tool_use', 'stop', ['find_records']],
      ['tool_use', 'stop', ['exact_record']],
      ['end_turn', 'stop', []],
    ]);
    expect(optimized?.status).toBe('passed');
    expect(receipt.report?.compared).toBe(1);
  });
});

describe('OpenAI-compatible: a stream without usage (item 6)', () => {
  let fake: OpenAiFake;
  let copy: DemoCopy;
  let receipt: ExperimentReceipt;
  let report: string;

  beforeAll(async () => {
    fake = await startOpenAiFake();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.id === 'lookup-author'),
      config: (config) => {
        config.model = { provider: 'openai-compatible', model: 'qwen-test', baseUrl: fake.baseUrl, maxTokens: 512 };
        config.probe = false;
      },
    });
    const answerWithoutUsage: FakeReply = { kind: 'sse', events: [chunk({ content: JSON.stringify(ANSWER) }), chunk({ finish: 'stop' })] };
    fake.reply(
      // baseline: the first turn's stream carries no usage chunk (a server that ignores stream_options).
      openAiToolCall({ id: 'call_b1', name: 'list_records', args: {} }, 'tool_calls', false),
      textReply(JSON.stringify(ANSWER), 'stop', [4000, 25]),
      openAiToolCall({ id: 'call_o1', name: 'find_records', args: { field: 'title', value: 'Commit verification support' } }),
      openAiToolCall({ id: 'call_o2', name: 'exact_record', args: { id: '3028' } }),
      answerWithoutUsage,
    );
    ({ receipt, report } = await run(copy));
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('records the usage as null, the token sums that need it as unknown, and completes and verifies', () => {
    expect(receipt.status).toBe('completed');
    expect(outcomes(receipt)).toEqual([
      ['lookup-author', 'baseline', 'passed', undefined],
      ['lookup-author', 'optimized', 'passed', undefined],
    ]);
    const [baseline, optimized] = receipt.questions;
    expect(baseline?.turns.map((turn) => turn.usage)).toEqual([null, { inputTokens: 4000, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0 }]);
    expect(optimized?.turns.at(-1)?.usage).toBeNull();
    expect(baseline?.totals).toMatchObject({ contextTokens: null, inputTokens: null, outputTokens: null, turns: 2, toolCalls: 1 });
    expect(receipt.report?.totals.contextTokens).toEqual({ baseline: null, optimized: null, reduction: null });
    // Figures that need no usage are still there.
    expect(receipt.report?.totals.turns).toEqual({ baseline: 2, optimized: 3, reduction: -0.5 });
    expect(verifyReceipt(receipt).problems).toEqual([]);
  });

  it('says "unknown" in report.md for every token figure, never 0', () => {
    expect(report).toMatch(/\| lookup-author \| lookup \| baseline \| answered right \| unknown \| unknown \| 2 \|/);
    expect(report).toMatch(/\| context tokens \(input \+ cache\) \| unknown \| unknown \| unknown \|/);
    expect(report).toMatch(/\| turns \| 2 \| 3 \| -50\.0% \|/);
    expect(report).toMatch(/never counted as 0/);
  });
});
