import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicProvider } from '../../src/providers/_anthropic.js';
import type { ChatRequest, HttpProviderOptions } from '../../src/providers/_types.js';
import { AnthropicFake, apiError, messageEvents, sentKey, sseText } from '../support/anthropic-fake.js';
import { failure } from './_failure.js';

const CANARY_KEY = 'sk-ant-canary-7f3a9c-secret';

let fake: AnthropicFake;

beforeEach(async () => {
  fake = await new AnthropicFake().start();
});

afterEach(async () => {
  await fake.close();
});

function provider(options: HttpProviderOptions = {}) {
  return anthropicProvider({ baseUrl: fake.baseUrl, env: { ANTHROPIC_API_KEY: CANARY_KEY }, ...options });
}

function hello(extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'claude-test', maxTokens: 64, messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], ...extra };
}

function expectNoKey(value: unknown): void {
  expect(JSON.stringify(value)).not.toContain(CANARY_KEY);
  expect(inspect(value, { depth: 20 })).not.toContain(CANARY_KEY);
  if (value instanceof Error) expect(value.message).not.toContain(CANARY_KEY);
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const toolConversation: ChatRequest = {
  model: 'claude-test',
  system: 'You answer briefly.',
  maxTokens: 256,
  temperature: 0.2,
  tools: [weatherTool],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_01', content: 'rain, 12 C', isError: false }] },
  ],
};

describe('anthropicProvider: request shapes', () => {
  it('sends a two-turn tool conversation in the documented Messages shape, streamed', async () => {
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: 'Rainy, 12 C.' }] }) });
    const response = await provider().chat(toolConversation);

    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.body).toEqual({
      model: 'claude-test',
      max_tokens: 256,
      system: 'You answer briefly.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'rain, 12 C', is_error: false }] },
      ],
      tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: weatherTool.inputSchema }],
      temperature: 0.2,
      stream: true,
    });
    const body = sent?.body as { messages: { content: { id?: string; tool_use_id?: string }[] }[] };
    expect(body.messages[2]?.content[0]?.tool_use_id).toBe(body.messages[1]?.content[1]?.id);

    // raw is the last attempt byte for byte: the body the server got, the stream it sent.
    expect(response.raw).toEqual({
      url: `${fake.baseUrl}/v1/messages`,
      request: sent?.text,
      response: sseText(messageEvents({ content: [{ type: 'text', text: 'Rainy, 12 C.' }] })),
      status: 200,
    });
    expect(response.attempts).toBe(1);
  });

  it('leaves out what the request does not set, and sends an error tool_result with is_error', async () => {
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: 'ok' }] }) });
    await provider().chat({
      model: 'claude-test',
      maxTokens: 10,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'noop', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_9', content: 'boom', isError: true }] },
      ],
    });
    expect(fake.requests[0]?.body).toEqual({
      model: 'claude-test',
      max_tokens: 10,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'noop', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'boom', is_error: true }] },
      ],
      stream: true,
    });
  });

  it('sends an output schema as output_config.format json_schema', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: '{"answer":"yes"}' }] }) });
    const response = await provider().chat(hello({ outputSchema: { name: 'verdict', schema } }));
    expect((fake.requests[0]?.body as Record<string, unknown>).output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(response.content).toEqual([{ type: 'text', text: '{"answer":"yes"}' }]);
  });

  it('count_tokens carries exactly model, system, messages and tools, and returns input_tokens', async () => {
    fake.script({ json: { input_tokens: 1234 } });
    const counted = await provider().countTokens!({ ...toolConversation, outputSchema: { name: 'x', schema: { type: 'object' } } });
    expect(counted.inputTokens).toBe(1234);
    const [sent] = fake.requests;
    expect(sent?.path).toBe('/v1/messages/count_tokens');
    expect(sent?.body).toEqual({
      model: 'claude-test',
      system: 'You answer briefly.',
      messages: (fake.requests[0]?.body as { messages: unknown }).messages,
      tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: weatherTool.inputSchema }],
    });
    expect(Object.keys(sent?.body as object).sort()).toEqual(['messages', 'model', 'system', 'tools']);
    expect((sent?.body as { messages: { content: { tool_use_id?: string }[] }[] }).messages[2]?.content[0]?.tool_use_id).toBe('toolu_01');
    expect(counted.raw).toEqual({ url: `${fake.baseUrl}/v1/messages/count_tokens`, request: sent?.text, response: '{"input_tokens":1234}', status: 200 });
  });

  it('count_tokens without system or tools sends model and messages only', async () => {
    fake.script({ json: { input_tokens: 7 } });
    await provider().countTokens!(hello());
    expect(fake.requests[0]?.body).toEqual({ model: 'claude-test', messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] });
  });

  it('count_tokens answered without input_tokens is a PROVIDER_ERROR', async () => {
    fake.script({ json: { tokens: 7 } });
    const error = await failure(provider().countTokens!(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
  });

  it('refuses a broken conversation before sending anything', async () => {
    const error = await failure(
      provider().chat({
        model: 'claude-test',
        maxTokens: 10,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'noop', input: {} }] },
          { role: 'user', content: [{ type: 'text', text: 'forgot the result' }] },
        ],
      }),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    const counted = await failure(provider().countTokens!({ model: 'claude-test', messages: [] }));
    expect(counted.code).toBe('INVALID_ARGUMENT');
    const badMax = await failure(provider().chat(hello({ maxTokens: 0 })));
    expect(badMax.code).toBe('INVALID_ARGUMENT');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('anthropicProvider: the assembled answer', () => {
  it('assembles text and tool_use (input parsed from its JSON fragments), usage and the model', async () => {
    fake.script({
      events: messageEvents({
        model: 'claude-answered-2',
        content: [
          { type: 'text', text: 'Checking the weather.' },
          { type: 'tool_use', id: 'toolu_A', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 120, output_tokens: 1, cache_read_input_tokens: 30, cache_creation_input_tokens: 5 },
        finalUsage: { output_tokens: 42 },
      }),
    });
    const response = await provider().chat(hello({ tools: [weatherTool] }));
    expect(response.content).toEqual([
      { type: 'text', text: 'Checking the weather.' },
      { type: 'tool_use', id: 'toolu_A', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } },
    ]);
    expect(response.stopReason).toBe('tool_use');
    expect(response.rawStopReason).toBe('tool_use');
    expect(response.usage).toEqual({ inputTokens: 120, outputTokens: 42, cacheReadTokens: 30, cacheWriteTokens: 5 });
    expect(response.model).toBe('claude-answered-2');
  });

  it('reports 0 cache tokens when the API does not report them', async () => {
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 9, output_tokens: 3 } }) });
    const response = await provider().chat(hello());
    expect(response.usage).toEqual({ inputTokens: 9, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('a tool called without arguments gets {} as input', async () => {
    const events = messageEvents({ content: [{ type: 'tool_use', id: 'toolu_N', name: 'now', input: {} }], stopReason: 'tool_use' });
    // the API streams no input_json_delta for an empty input
    fake.script({ events: events.filter((event) => (event.data as { delta?: { type?: string } }).delta?.type !== 'input_json_delta') });
    const response = await provider().chat(hello());
    expect(response.content).toEqual([{ type: 'tool_use', id: 'toolu_N', name: 'now', input: {} }]);
  });

  it.each([
    ['max_tokens', 'max_tokens'],
    ['end_turn', 'end_turn'],
    ['stop_sequence', 'stop_sequence'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
  ] as const)('maps stop_reason %s to %s and keeps the raw word', async (raw, mapped) => {
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: 'cut' }], stopReason: raw }) });
    const response = await provider().chat(hello());
    expect(response.stopReason).toBe(mapped);
    expect(response.rawStopReason).toBe(raw);
  });

  it('a stream without message_start is a PROVIDER_ERROR', async () => {
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: 'x' }] }).slice(1) });
    const error = await failure(provider().chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
  });

  it('a tool input that is not JSON is a PROVIDER_ERROR', async () => {
    const events = messageEvents({ content: [{ type: 'tool_use', id: 'toolu_B', name: 'f', input: { a: 1 } }] });
    const broken = events.filter((event) => (event.data as { delta?: { partial_json?: string } }).delta?.partial_json === undefined || events.indexOf(event) !== 2);
    fake.script({ events: broken });
    const error = await failure(provider().chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('toolu_B');
  });

  it('an error event inside the stream is a PROVIDER_ERROR and is not retried', async () => {
    const events = messageEvents({ content: [{ type: 'text', text: 'partial' }] }).slice(0, 3);
    fake.script({ events: [...events, { event: 'error', data: apiError('overloaded_error', 'Overloaded') }] }, { events: messageEvents({ content: [] }) });
    const error = await failure(provider().chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('overloaded_error');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('anthropicProvider: truncated streams', () => {
  it('a stream that ends before message_stop fails with PROVIDER_ERROR and is not retried', async () => {
    const events = messageEvents({ content: [{ type: 'text', text: 'half an answer' }] });
    fake.script({ events: events.slice(0, 3) }, { events });
    const error = await failure(provider().chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('truncated stream');
    expect(fake.requests).toHaveLength(1);
    expect(error.data.attempts).toBe(1);
    expect((error.data.raw as { response: string }).response).toBe(sseText(events.slice(0, 3)));
  });

  it('a connection closed mid-stream fails with PROVIDER_ERROR and is not retried', async () => {
    const events = messageEvents({ content: [{ type: 'text', text: 'half an answer' }] });
    fake.script({ events: events.slice(0, 3), then: 'destroy' }, { events });
    const error = await failure(provider().chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('truncated stream');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('anthropicProvider: retries', () => {
  const ok = () => ({ events: messageEvents({ content: [{ type: 'text', text: 'fine' }] }) });

  it('honours retry-after (seconds) on a 429', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '1' }, json: apiError('rate_limit_error', 'slow down') }, ok());
    const started = Date.now();
    const response = await provider().chat(hello());
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(response.attempts).toBe(2);
    expect(fake.requests).toHaveLength(2);
    expect(response.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(response.raw.status).toBe(200);
  });

  it('honours retry-after-ms', async () => {
    fake.script({ status: 429, headers: { 'retry-after-ms': '5', 'retry-after': '30' }, json: apiError('rate_limit_error', 'slow down') }, ok());
    const started = Date.now();
    const response = await provider().chat(hello());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(response.attempts).toBe(2);
  });

  it('retries a 500 with backoff, then succeeds', async () => {
    fake.script({ status: 500, json: apiError('api_error', 'oops') }, ok());
    const response = await provider().chat(hello());
    expect(response.attempts).toBe(2);
    expect(fake.requests.map((request) => request.text)).toEqual([fake.requests[0]?.text, fake.requests[0]?.text]);
  });

  it('retries a 529 (overloaded), then succeeds', async () => {
    fake.script({ status: 529, headers: { 'retry-after': '0' }, json: apiError('overloaded_error', 'Overloaded') }, ok());
    const response = await provider().chat(hello());
    expect(response.attempts).toBe(2);
    expect(response.stopReason).toBe('end_turn');
  });

  it('gives up after maxRetries with the last status, and records the last attempt', async () => {
    const busy = { status: 503, headers: { 'retry-after': '0' }, json: apiError('api_error', 'busy') };
    fake.script(busy, busy, busy);
    const error = await failure(provider({ maxRetries: 2 }).chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.data.status).toBe(503);
    expect(error.data.attempts).toBe(3);
    expect(fake.requests).toHaveLength(3);
    expect((error.data.raw as { response: string; status: number }).status).toBe(503);
    expect((error.data.raw as { response: string }).response).toBe(JSON.stringify(apiError('api_error', 'busy')));
  });

  it('does not retry a 400, and reports the API message', async () => {
    fake.script({ status: 400, json: apiError('invalid_request_error', 'max_tokens: too large') }, ok());
    const error = await failure(provider().chat(hello()));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('max_tokens: too large');
    expect(error.data.status).toBe(400);
    expect(fake.requests).toHaveLength(1);
  });

  it('does not wait for a retry-after that would pass the deadline', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '30' }, json: apiError('rate_limit_error', 'slow down') }, ok());
    const started = Date.now();
    const error = await failure(provider().chat(hello({ timeoutMs: 2_000 })));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.data.status).toBe(429);
    expect(fake.requests).toHaveLength(1);
  });

  it('countTokens retries too', async () => {
    fake.script({ status: 529, headers: { 'retry-after-ms': '0' }, json: apiError('overloaded_error', 'Overloaded') }, { json: { input_tokens: 3 } });
    const counted = await provider().countTokens!(hello());
    expect(counted.inputTokens).toBe(3);
    expect(fake.requests).toHaveLength(2);
  });
});

describe('anthropicProvider: the deadline', () => {
  it('a server that never answers ends the call at its deadline', async () => {
    fake.script({ stall: true });
    const started = Date.now();
    const error = await failure(provider().chat(hello({ timeoutMs: 300 })));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('DEADLINE');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1_500);
  });

  it('a stream that stalls mid-way ends the call at its deadline', async () => {
    fake.script({ events: messageEvents({ content: [{ type: 'text', text: 'and then' }] }).slice(0, 3), then: 'stall' });
    const started = Date.now();
    const error = await failure(provider().chat(hello({ timeoutMs: 300 })));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('DEADLINE');
    expect(elapsed).toBeLessThan(1_500);
  });

  it('one deadline covers all attempts together', async () => {
    fake.script({ status: 500, headers: { 'retry-after-ms': '200' }, json: apiError('api_error', 'a') }, { stall: true });
    const started = Date.now();
    const error = await failure(provider().chat(hello({ timeoutMs: 500 })));
    expect(error.code).toBe('DEADLINE');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(fake.requests).toHaveLength(2);
  });
});

describe('anthropicProvider: the API key', () => {
  it('sends the key to the server and never returns it, in answers or errors', async () => {
    fake.script(
      { events: messageEvents({ content: [{ type: 'text', text: 'hi' }] }) },
      { json: { input_tokens: 5 } },
      { status: 401, json: apiError('authentication_error', 'invalid x-api-key') },
      { events: messageEvents({ content: [{ type: 'text', text: 'cut' }] }).slice(0, 2) },
      { stall: true },
    );
    const chat = await provider().chat(hello());
    const counted = await provider().countTokens!(hello());
    const denied = await failure(provider().chat(hello()));
    const truncated = await failure(provider().chat(hello()));
    const late = await failure(provider().chat(hello({ timeoutMs: 200 })));

    expect(fake.requests.map(sentKey)).toEqual(Array(5).fill(CANARY_KEY));
    for (const value of [chat, counted, denied, truncated, late, denied.data, truncated.data, late.data]) expectNoKey(value);
    expect(denied.code).toBe('PROVIDER_ERROR');
    expect(late.code).toBe('DEADLINE');
    for (const request of fake.requests) expect(request.text).not.toContain(CANARY_KEY);
  });

  it('reads the key from the named variable', async () => {
    fake.script({ json: { input_tokens: 1 } });
    await anthropicProvider({ baseUrl: fake.baseUrl, apiKeyEnv: 'MY_CLAUDE_KEY', env: { MY_CLAUDE_KEY: CANARY_KEY, ANTHROPIC_API_KEY: 'other' } }).countTokens!(hello());
    expect(fake.requests.map(sentKey)).toEqual([CANARY_KEY]);
  });

  it.each([
    [{}, 'ANTHROPIC_API_KEY'],
    [{ ANTHROPIC_API_KEY: '' }, 'ANTHROPIC_API_KEY'],
    [{ ANTHROPIC_API_KEY: 'set-but-not-named' }, 'MY_CLAUDE_KEY'],
  ])('MISSING_KEY names the variable (env %j) and sends nothing', async (env, variable) => {
    const options: HttpProviderOptions = { baseUrl: fake.baseUrl, env, ...(variable === 'MY_CLAUDE_KEY' ? { apiKeyEnv: variable } : {}) };
    const error = await failure(anthropicProvider(options).chat(hello()));
    expect(error.code).toBe('MISSING_KEY');
    expect(error.message).toContain(variable);
    expect(error.data).toEqual({ variable });
    expect(error.message).not.toContain('set-but-not-named');
    expect(fake.requests).toHaveLength(0);
  });

  it('has the documented name and base URL', () => {
    const standard = anthropicProvider({ env: {} });
    expect(standard.name).toBe('anthropic');
    expect(standard.baseUrl).toBe('https://api.anthropic.com');
    expect(anthropicProvider({ baseUrl: 'http://127.0.0.1:9/', env: {} }).baseUrl).toBe('http://127.0.0.1:9');
  });
});
