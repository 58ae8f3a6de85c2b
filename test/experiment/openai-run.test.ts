// The experiment against a loopback OpenAI-compatible API (what Ollama, vLLM and llama.cpp serve):
// tools go out as functions, each tool call's result as a `tool` message with its id, and the
// receipt's turns replay from the recorded event streams.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceipt, type ExperimentReceipt } from '../../src/experiment/index.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { chunk, startOpenAiFake, textReply, usageChunk, type FakeReply, type OpenAiFake } from '../support/openai-fake.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

function toolCallReply(id: string, name: string, args: unknown): FakeReply {
  const text = JSON.stringify(args);
  return {
    kind: 'sse',
    events: [chunk({ toolCalls: [{ index: 0, id, name, arguments: text.slice(0, 5) }] }), chunk({ toolCalls: [{ index: 0, arguments: text.slice(5) }] }), chunk({ finish: 'tool_calls' }), usageChunk(300, 12)],
  };
}
const answer = JSON.stringify({ answer: 'timgates42', evidenceIds: ['3028'], caveats: [] });

describe('an experiment against an OpenAI-compatible API (loopback fake)', () => {
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
      toolCallReply('call_b1', 'list_records', {}),
      textReply(answer, 'stop', [4000, 25]),
      toolCallReply('call_o1', 'find_records', { field: 'title', value: 'Commit verification support' }),
      toolCallReply('call_o2', 'exact_record', { id: '3028' }),
      textReply(answer, 'stop', [900, 25, 100]),
    );
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: {} });
    receipt = JSON.parse(readFileSync(run.receiptFile, 'utf8')) as ExperimentReceipt;
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('passes both conditions, compares them, and the receipt verifies', () => {
    expect(receipt.errors).toEqual([]);
    expect(receipt.questions.map((question) => [question.condition, question.status])).toEqual([
      ['baseline', 'passed'],
      ['optimized', 'passed'],
    ]);
    expect(receipt.report?.compared).toBe(1);
    expect(receipt.model).toMatchObject({ provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'qwen-test' });
    expect(verifyReceipt(receipt).problems).toEqual([]);
  });

  it('sends tools as functions and each result as a tool message with its call id', () => {
    const first = fake.requests[0]?.body as { tools: Array<{ type: string; function: { name: string } }>; max_tokens?: number; max_completion_tokens?: number };
    expect(first.tools.map((tool) => [tool.type, tool.function.name])).toEqual([
      ['function', 'list_records'],
      ['function', 'exact_record'],
    ]);
    const second = fake.requests[1]?.body as { messages: Array<{ role: string; tool_call_id?: string; content?: unknown }> };
    const tool = second.messages.find((message) => message.role === 'tool');
    expect(tool?.tool_call_id).toBe('call_b1');
    expect(tool?.content).toBe(receipt.questions[0]?.turns[0]?.tools[0]?.modelFacingText);
    expect(receipt.questions[1]?.turns.at(-1)?.usage).toEqual({ inputTokens: 800, outputTokens: 25, cacheReadTokens: 100, cacheWriteTokens: 0 });
  });
});
