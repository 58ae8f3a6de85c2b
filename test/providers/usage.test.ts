// One rule for usage in both HTTP providers (src/providers/_usage.ts): input and output counts must
// be reported, cache counts may be left out (0), and a count that is not one is PROVIDER_ERROR. An
// answer without usage is PROVIDER_ERROR where the API always sends it (Anthropic), and unknown
// (null) where servers leave it out (OpenAI-compatible streams): never 0 tokens. The replay of the
// recorded bytes says the same.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicProvider, openAiCompatibleProvider, replayResponse, type ChatRequest } from '../../src/providers/index.js';
import { AnthropicFake, messageEvents, sseText } from '../support/anthropic-fake.js';
import { chunk, startOpenAiFake, usageChunk, type OpenAiFake } from '../support/openai-fake.js';
import { failure, thrownBy } from './_failure.js';

const hello: ChatRequest = { model: 'm', maxTokens: 16, messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] };

describe('usage: anthropic', () => {
  let fake: AnthropicFake;
  beforeEach(async () => {
    fake = await new AnthropicFake().start();
  });
  afterEach(async () => {
    await fake.close();
  });
  const chat = () => anthropicProvider({ baseUrl: fake.baseUrl, env: { ANTHROPIC_API_KEY: 'sk-test' } }).chat(hello);

  it.each([
    ['without input_tokens', { output_tokens: 3 }, 'usage.input_tokens'],
    ['without output_tokens', { input_tokens: 3 }, 'usage.output_tokens'],
    ['with a count that is not one', { input_tokens: 3, output_tokens: 1, cache_read_input_tokens: -2 }, 'usage.cache_read_input_tokens'],
  ])('message_start usage %s is PROVIDER_ERROR, live and replayed', async (_what, usage, field) => {
    const events = messageEvents({ content: [{ type: 'text', text: 'hi' }], usage, finalUsage: {} });
    fake.script({ events });
    const error = await failure(chat());
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain(field);
    expect(error.data.status).toBe(200);
    expect(thrownBy(() => replayResponse('anthropic', { url: '', request: '{}', response: sseText(events), status: 200 })).message).toContain(field);
  });

  it('cache counts left out or null are 0; message_delta counts it leaves out keep their value', async () => {
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 9, output_tokens: 1, cache_read_input_tokens: null as unknown as number }, finalUsage: { output_tokens: 4 } }) });
    expect((await chat()).usage).toEqual({ inputTokens: 9, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

describe('usage: openai-compatible', () => {
  let fake: OpenAiFake;
  beforeEach(async () => {
    fake = await startOpenAiFake();
  });
  afterEach(async () => {
    await fake.close();
  });
  const chat = () => openAiCompatibleProvider({ baseUrl: fake.baseUrl, env: {} }).chat(hello);

  it('a stream without a usage chunk has usage null (unknown), live and replayed, not 0 tokens', async () => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'hi' }), chunk({ finish: 'stop' })] });
    const response = await chat();
    expect(response.usage).toBeNull();
    expect(response.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(replayResponse('openai-compatible', response.raw).usage).toBeNull();
  });

  it.each([
    ['without prompt_tokens', { completion_tokens: 2 }, 'usage.prompt_tokens'],
    ['without completion_tokens', { prompt_tokens: 2 }, 'usage.completion_tokens'],
    ['with a count that is not one', { prompt_tokens: 2.5, completion_tokens: 1 }, 'usage.prompt_tokens'],
  ])('a usage chunk %s is PROVIDER_ERROR', async (_what, usage, field) => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'hi' }), chunk({ finish: 'stop' }), { ...(usageChunk(0, 0) as Record<string, unknown>), usage }] });
    const error = await failure(chat());
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain(field);
  });

  it('cached_tokens left out is 0 (servers without a prompt cache)', async () => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'hi' }), chunk({ finish: 'stop' }), usageChunk(12, 3)] });
    expect((await chat()).usage).toEqual({ inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
