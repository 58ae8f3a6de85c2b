// The experiment against a loopback fake of the Anthropic Messages API: the request bodies have
// the documented shapes, every tool_use is answered by its tool_result, a max_tokens stop fails
// the question, and the API key never reaches the receipt.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment, verifyReceipt, type ExperimentReceipt } from '../../src/experiment/index.js';
import { AnthropicFake, messageEvents, sentKey } from '../support/anthropic-fake.js';
import { copyDemo, type DemoCopy } from '../support/experiment-demo.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const KEY = 'sk-ant-api03-experiment-canary-0123456789abcdef';
const answer = (value: string, ids: string[]) => ({ type: 'text' as const, text: JSON.stringify({ answer: value, evidenceIds: ids, caveats: [] }) });

describe('an experiment against the Anthropic Messages API (loopback fake)', () => {
  const fake = new AnthropicFake();
  let copy: DemoCopy;
  let receipt: ExperimentReceipt;
  let receiptText: string;

  beforeAll(async () => {
    await fake.start();
    copy = copyDemo({
      tasks: (tasks) => tasks.filter((task) => task.kind === 'lookup'),
      config: (config) => {
        config.model = { provider: 'anthropic', model: 'claude-test-1', maxTokens: 700, baseUrl: fake.baseUrl, keyEnv: 'EXPERIMENT_TEST_KEY' };
        config.probe = false;
      },
    });
    fake.script(
      // lookup-author, baseline: list everything, then answer.
      { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_b1', name: 'list_records', input: {} }], stopReason: 'tool_use', usage: { input_tokens: 900, output_tokens: 20 } }) },
      { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 4000, output_tokens: 30 } }) },
      // lookup-author, optimized: two tool uses in one turn (brief search and detail), then answer.
      {
        events: messageEvents({
          content: [
            { type: 'tool_use', id: 'toolu_o1', name: 'find_records', input: { field: 'title', value: 'Commit verification support' } },
            { type: 'tool_use', id: 'toolu_o2', name: 'exact_record', input: { id: '3028' } },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 1100, output_tokens: 40, cache_read_input_tokens: 50 },
        }),
      },
      { events: messageEvents({ content: [answer('timgates42', ['3028'])], stopReason: 'end_turn', usage: { input_tokens: 1500, output_tokens: 30 } }) },
      // lookup-comments, baseline: cut off by max_tokens.
      { events: messageEvents({ content: [{ type: 'text', text: '{"answer":"4","evid' }], stopReason: 'max_tokens', usage: { input_tokens: 900, output_tokens: 700 } }) },
      // lookup-comments, optimized: a tool the condition does not offer.
      { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_x', name: 'delete_everything', input: {} }], stopReason: 'tool_use' }) },
    );
    const run = await runExperiment({ configFile: copy.config, outDir: join(copy.dir, 'out'), env: { EXPERIMENT_TEST_KEY: KEY } });
    receipt = run.receipt;
    receiptText = readFileSync(run.receiptFile, 'utf8');
  }, 60_000);

  afterAll(async () => {
    await fake.close();
    rmSync(copy.dir, { recursive: true, force: true });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it('sends the documented request shape: model, max_tokens, system, tools with input_schema, the question', () => {
    expect(fake.requests).toHaveLength(6);
    const first = fake.requests[0]?.body as Record<string, unknown>;
    expect(fake.requests[0]?.path).toBe('/v1/messages');
    expect(first.model).toBe('claude-test-1');
    expect(first.max_tokens).toBe(700);
    expect(first.system).toBe(receipt.model?.system);
    expect((first.tools as Array<Record<string, unknown>>).map((tool) => [tool.name, Object.keys(tool).sort()])).toEqual([
      ['list_records', ['description', 'input_schema', 'name']],
      ['exact_record', ['description', 'input_schema', 'name']],
    ]);
    expect(first.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: receipt.tasks?.[0]?.question }] }]);
    // Every request carries the same model, system and max_tokens, in both conditions.
    for (const request of fake.requests) {
      const body = request.body as Record<string, unknown>;
      expect([body.model, body.max_tokens, body.system]).toEqual([first.model, first.max_tokens, first.system]);
    }
  });

  it('answers each tool_use with exactly one tool_result carrying its id, in order, in the next request', () => {
    const messages = (fake.requests[3]?.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const results = messages[2]?.content ?? [];
    expect(results.map((block) => [block.type, block.tool_use_id])).toEqual([
      ['tool_result', 'toolu_o1'],
      ['tool_result', 'toolu_o2'],
    ]);
    const optimized = receipt.questions[1];
    expect(results.map((block) => block.content)).toEqual(optimized?.turns[0]?.tools.map((call) => call.modelFacingText));
    expect(optimized?.status).toBe('passed');
  });

  it('fails a question the model ended with max_tokens, and one that called a tool it was not offered, and goes on', () => {
    expect(receipt.questions.map((question) => [question.taskId, question.condition, question.status, question.failure?.code])).toEqual([
      ['lookup-author', 'baseline', 'passed', undefined],
      ['lookup-author', 'optimized', 'passed', undefined],
      ['lookup-comments', 'baseline', 'failed', 'STOP_max_tokens'],
      ['lookup-comments', 'optimized', 'failed', 'TOOL_FAILURE'],
    ]);
    const unoffered = receipt.questions[3]?.turns[0]?.tools[0];
    expect(unoffered?.error).toMatch(/UNADVERTISED_TOOL/);
    expect(unoffered?.rpcId).toBeNull();
    expect(receipt.report?.rows.map((row) => row.verdict)).toEqual(['compared', 'both-failed']);
    expect(receipt.status).toBe('completed');
  });

  it('records usage as the API reported it, and the base URL, and verify re-derives it from the raw stream', () => {
    expect(receipt.questions[1]?.turns[0]?.usage).toEqual({ inputTokens: 1100, outputTokens: 40, cacheReadTokens: 50, cacheWriteTokens: 0 });
    expect(receipt.questions[1]?.totals.contextTokens).toBe(1100 + 50 + 1500);
    expect(receipt.model?.baseUrl).toBe(fake.baseUrl);
    expect(verifyReceipt(JSON.parse(receiptText)).problems).toEqual([]);
  });

  it('sent the key, and never wrote it', () => {
    expect(sentKey(fake.requests[0]!)).toBe(KEY);
    expect(receiptText).not.toContain(KEY);
    expect(receiptText).not.toContain(KEY.slice(10, 30));
  });
});
