// replayResponse re-derives a turn from the bytes a live call recorded: for each provider it must
// equal what the live call returned, and bytes the live call would have refused are PROVIDER_ERROR.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicProvider, openAiCompatibleProvider, replayResponse, requestKey, scriptedProvider } from '../../src/providers/index.js';
import type { ChatRequest, ChatResponse, RawExchange } from '../../src/providers/index.js';
import { AnthropicFake, messageEvents, sseText } from '../support/anthropic-fake.js';
import { chunk, startOpenAiFake, usageChunk, type OpenAiFake } from '../support/openai-fake.js';
import { thrownBy } from './_failure.js';

const tool = { name: 'find_records', description: 'Find records', inputSchema: { type: 'object', properties: { field: { type: 'string' } } } };
const ask: ChatRequest = { model: 'model-asked', maxTokens: 128, tools: [tool], messages: [{ role: 'user', content: [{ type: 'text', text: 'How many open issues?' }] }] };

function live(response: ChatResponse): Omit<ChatResponse, 'raw' | 'attempts' | 'timing' | 'retries'> {
  return { content: response.content, stopReason: response.stopReason, rawStopReason: response.rawStopReason, usage: response.usage, model: response.model };
}

function cut(raw: RawExchange, keep: number): RawExchange {
  return { ...raw, response: raw.response.slice(0, keep) };
}

describe('replayResponse: anthropic', () => {
  let fake: AnthropicFake;
  beforeEach(async () => {
    fake = await new AnthropicFake().start();
  });
  afterEach(async () => {
    await fake.close();
  });

  /** The message's events, with a ping after message_start, as the API sends keep-alives. */
  async function capture(message: Parameters<typeof messageEvents>[0]): Promise<ChatResponse> {
    const events = messageEvents(message);
    events.splice(1, 0, { event: 'ping', data: { type: 'ping' } });
    fake.script({ events });
    return anthropicProvider({ baseUrl: fake.baseUrl, env: { ANTHROPIC_API_KEY: 'sk-test' } }).chat(ask);
  }

  it('a tool_use turn with text, cache usage and a model of its own replays to what the live call returned', async () => {
    const response = await capture({
      model: 'claude-answered-1',
      content: [
        { type: 'text', text: 'Counting the open issues.' },
        { type: 'tool_use', id: 'toolu_1', name: 'find_records', input: { field: 'state', value: 'open', fields: ['title'] } },
      ],
      stopReason: 'tool_use',
      usage: { input_tokens: 410, output_tokens: 1, cache_read_input_tokens: 300, cache_creation_input_tokens: 20 },
      finalUsage: { output_tokens: 57 },
    });
    expect(response.content).toHaveLength(2);
    expect(replayResponse('anthropic', response.raw)).toEqual(live(response));
  });

  it('an end_turn and a max_tokens turn replay with their stop reasons', async () => {
    for (const stopReason of ['end_turn', 'max_tokens']) {
      const response = await capture({ content: [{ type: 'text', text: '{"answer":"3","evidenceIds":["3045"],"caveats":[]}' }], stopReason });
      const replayed = replayResponse('anthropic', response.raw);
      expect(replayed).toEqual(live(response));
      expect(replayed.rawStopReason).toBe(stopReason);
    }
  });

  it('a stream cut before message_stop, an event that is not JSON, an error event and a non-2xx status are PROVIDER_ERROR', async () => {
    const response = await capture({ content: [{ type: 'text', text: 'the whole answer' }] });
    const stopAt = response.raw.response.indexOf('event: message_stop');
    expect(stopAt).toBeGreaterThan(0);
    expect(thrownBy(() => replayResponse('anthropic', cut(response.raw, stopAt))).code).toBe('PROVIDER_ERROR');
    expect(thrownBy(() => replayResponse('anthropic', cut(response.raw, stopAt))).message).toContain('truncated stream');
    // Cut inside an event's JSON, with a blank line so the broken event is dispatched.
    const broken = { ...response.raw, response: `${response.raw.response.slice(0, 60)}\n\n` };
    expect(thrownBy(() => replayResponse('anthropic', broken)).code).toBe('PROVIDER_ERROR');
    const errored = { ...response.raw, response: sseText([{ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }]) };
    expect(thrownBy(() => replayResponse('anthropic', errored)).message).toContain('overloaded_error');
    expect(thrownBy(() => replayResponse('anthropic', { ...response.raw, status: 529 })).code).toBe('PROVIDER_ERROR');
    expect(thrownBy(() => replayResponse('anthropic', { ...response.raw, response: '' })).code).toBe('PROVIDER_ERROR');
  });
});

describe('replayResponse: openai-compatible', () => {
  let fake: OpenAiFake;
  beforeEach(async () => {
    fake = await startOpenAiFake();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('a turn with text and two tool calls in pieces, with cached usage, replays to what the live call returned', async () => {
    fake.reply({
      kind: 'sse',
      events: [
        chunk({ content: 'Look', model: 'qwen2.5:7b' }),
        chunk({ content: 'ing.' }),
        chunk({ toolCalls: [{ index: 0, id: 'call_a', name: 'find_records', arguments: '{"field":' }] }),
        chunk({ toolCalls: [{ index: 0, arguments: '"state"}' }] }),
        chunk({ toolCalls: [{ index: 1, id: 'call_b', name: 'find_records', arguments: '' }] }),
        chunk({ finish: 'tool_calls' }),
        usageChunk(300, 40, 128),
      ],
    });
    const response = await openAiCompatibleProvider({ baseUrl: fake.baseUrl, env: {} }).chat(ask);
    expect(response.content).toHaveLength(3);
    expect(replayResponse('openai-compatible', response.raw)).toEqual(live(response));
  });

  it('takes the requested model when no chunk names one, as the live call does', async () => {
    const nameless = { ...(chunk({ content: 'ok' }) as Record<string, unknown>), model: '' };
    fake.reply({
      kind: 'sse',
      events: [nameless, { ...(chunk({ finish: 'stop' }) as Record<string, unknown>), model: '' }, { ...(usageChunk(5, 2) as Record<string, unknown>), model: '' }],
    });
    const response = await openAiCompatibleProvider({ baseUrl: fake.baseUrl, env: {} }).chat(ask);
    expect(response.model).toBe('model-asked');
    expect(replayResponse('openai-compatible', response.raw)).toEqual(live(response));
  });

  it('a stream cut before [DONE], a chunk that is not JSON and text that is no event stream are PROVIDER_ERROR', async () => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'all of it' }), chunk({ finish: 'stop' }), usageChunk(5, 3)] });
    const response = await openAiCompatibleProvider({ baseUrl: fake.baseUrl, env: {} }).chat(ask);
    const doneAt = response.raw.response.indexOf('data: [DONE]');
    expect(doneAt).toBeGreaterThan(0);
    expect(thrownBy(() => replayResponse('openai-compatible', cut(response.raw, doneAt))).message).toContain('truncated stream');
    expect(thrownBy(() => replayResponse('openai-compatible', { ...response.raw, response: `${response.raw.response.slice(0, 40)}\n\n` })).code).toBe('PROVIDER_ERROR');
    expect(thrownBy(() => replayResponse('openai-compatible', { ...response.raw, response: '{"choices":[]}' })).code).toBe('PROVIDER_ERROR');
  });
});

describe('replayResponse: scripted', () => {
  it('replays the scripted answer, default usage included, and refuses a turn that is not one', async () => {
    const provider = scriptedProvider({
      version: 1,
      turns: { [requestKey(ask)]: { content: [{ type: 'tool_use', id: 'toolu_s', name: 'find_records', input: { field: 'state' } }] } },
    });
    const response = await provider.chat(ask);
    expect(replayResponse('scripted', response.raw)).toEqual(live(response));
    expect(thrownBy(() => replayResponse('scripted', cut(response.raw, 20))).code).toBe('PROVIDER_ERROR');
    expect(thrownBy(() => replayResponse('scripted', { ...response.raw, response: '{"content":[{"type":"image"}]}' })).code).toBe('PROVIDER_ERROR');
    expect(thrownBy(() => replayResponse('scripted', null as unknown as RawExchange)).code).toBe('PROVIDER_ERROR');
  });
});
