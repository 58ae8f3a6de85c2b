import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpctxError } from '../../src/errors/index.js';
import { openAiCompatibleProvider } from '../../src/providers/_openai.js';
import type { ChatRequest, Provider } from '../../src/providers/_types.js';
import { chunk, startOpenAiFake, textReply, usageChunk, type OpenAiFake } from '../support/openai-fake.js';
import { failure } from './_failure.js';

const CANARY = 'sk-canary-7f3a9c-secret';

let fake: OpenAiFake;
beforeEach(async () => {
  fake = await startOpenAiFake();
});
afterEach(async () => {
  await fake.close();
});

function provider(options: { maxRetries?: number; env?: Record<string, string>; apiKeyEnv?: string } = {}): Provider {
  return openAiCompatibleProvider({ baseUrl: fake.baseUrl, env: options.env ?? {}, ...options });
}

const hello: ChatRequest = { model: 'llama3.2', messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], maxTokens: 64 };

/** Everything an error exposes, for the key canary. */
function exposed(error: McpctxError): string {
  return JSON.stringify({ message: error.message, code: error.code, data: error.data, stack: error.stack, cause: String(error.cause) });
}

describe('openAiCompatibleProvider: the request', () => {
  it('maps system, text, tool_use / tool_result pairs, tools, max_tokens, temperature and the output schema', async () => {
    fake.reply(textReply('done'));
    await provider().chat({
      model: 'qwen2.5',
      system: 'Be brief.',
      maxTokens: 300,
      temperature: 0.2,
      tools: [
        { name: 'search', description: 'Finds things', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
        { name: 'now', inputSchema: { type: 'object' } },
      ],
      outputSchema: { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'find cats' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Searching.' },
            { type: 'tool_use', id: 'call_a', name: 'search', input: { q: 'cats' } },
            { type: 'tool_use', id: 'call_b', name: 'now', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolUseId: 'call_a', content: '3 cats' },
            { type: 'tool_result', toolUseId: 'call_b', content: 'noon', isError: true },
            { type: 'text', text: 'and now?' },
          ],
        },
      ],
    });
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.body).toEqual({
      model: 'qwen2.5',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'find cats' },
        {
          role: 'assistant',
          content: 'Searching.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"q":"cats"}' } },
            { id: 'call_b', type: 'function', function: { name: 'now', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '3 cats' },
        { role: 'tool', tool_call_id: 'call_b', content: 'noon' },
        { role: 'user', content: 'and now?' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
      temperature: 0.2,
      tools: [
        { type: 'function', function: { name: 'search', description: 'Finds things', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
        { type: 'function', function: { name: 'now', parameters: { type: 'object' } } },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } } }, strict: true } },
    });
  });

  it('sends no tools, temperature or response_format when not asked, and several texts as parts', async () => {
    fake.reply(textReply('ok'));
    await provider().chat({
      model: 'm',
      maxTokens: 5,
      tools: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
    });
    expect(fake.requests[0]?.body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 5,
    });
  });

  it('refuses a conversation with an unanswered tool_use before sending anything', async () => {
    const error = await failure(
      provider().chat({
        model: 'm',
        maxTokens: 5,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 't', input: {} }] },
          { role: 'user', content: [{ type: 'text', text: 'well?' }] },
        ],
      }),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(fake.requests).toHaveLength(0);
  });

  it('has no countTokens and names itself', () => {
    const p = provider();
    expect(p.name).toBe('openai-compatible');
    expect(p.baseUrl).toBe(fake.baseUrl);
    expect(p.countTokens).toBeUndefined();
  });
});

describe('openAiCompatibleProvider: the response', () => {
  it('assembles the text, reads usage with cached tokens, the model, and records the exact bytes', async () => {
    fake.reply({
      kind: 'sse',
      events: [chunk({ content: 'Hel', model: 'llama3.2:3b' }), chunk({ content: 'lo!' }), chunk({ finish: 'stop' }), usageChunk(120, 7, 100)],
    });
    const response = await provider().chat(hello);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(response.stopReason).toBe('end_turn');
    expect(response.rawStopReason).toBe('stop');
    // 120 prompt tokens, 100 of them cached: 20 uncached input tokens and 100 cache reads.
    expect(response.usage).toEqual({ inputTokens: 20, outputTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 0 });
    expect(response.model).toBe('llama3.2:3b');
    expect(response.attempts).toBe(1);
    expect(response.raw).toEqual({ url: `${fake.baseUrl}/chat/completions`, request: fake.requests[0]?.text, response: fake.sent[0], status: 200 });
  });

  it('assembles tool calls whose arguments arrive in pieces, interleaved by index', async () => {
    fake.reply({
      kind: 'sse',
      events: [
        chunk({ content: 'Let me look.' }),
        chunk({ toolCalls: [{ index: 0, id: 'call_1', name: 'search', arguments: '' }] }),
        chunk({ toolCalls: [{ index: 0, arguments: '{"q":' }] }),
        chunk({ toolCalls: [{ index: 1, id: 'call_2', name: 'fetch', arguments: '{"url"' }] }),
        chunk({ toolCalls: [{ index: 0, arguments: '"cats"}' }] }),
        chunk({ toolCalls: [{ index: 1, arguments: ':"https://x.test"}' }] }),
        chunk({ finish: 'tool_calls' }),
        usageChunk(50, 20),
      ],
    });
    const response = await provider().chat(hello);
    expect(response.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'call_1', name: 'search', input: { q: 'cats' } },
      { type: 'tool_use', id: 'call_2', name: 'fetch', input: { url: 'https://x.test' } },
    ]);
    expect(response.stopReason).toBe('tool_use');
    expect(response.usage).toEqual({ inputTokens: 50, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('keeps arguments that are not a JSON object as the raw text, and sends them back verbatim', async () => {
    fake.reply({
      kind: 'sse',
      events: [
        chunk({ toolCalls: [{ index: 0, id: 'call_x', name: 'search', arguments: '{"q": "cats"' }] }),
        chunk({ toolCalls: [{ index: 1, id: 'call_y', name: 'now', arguments: '' }] }),
        chunk({ finish: 'tool_calls' }),
        usageChunk(1, 1),
      ],
    });
    const response = await provider().chat(hello);
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_x', name: 'search', input: '{"q": "cats"' },
      { type: 'tool_use', id: 'call_y', name: 'now', input: {} },
    ]);

    fake.reply(textReply('sorry'));
    await provider().chat({
      ...hello,
      messages: [
        ...hello.messages,
        { role: 'assistant', content: response.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolUseId: 'call_x', content: 'bad arguments', isError: true },
            { type: 'tool_result', toolUseId: 'call_y', content: 'noon' },
          ],
        },
      ],
    });
    const sentMessages = (fake.requests[1]?.body as { messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }> }).messages;
    expect(sentMessages[1]?.tool_calls?.map((call) => call.function.arguments)).toEqual(['{"q": "cats"', '{}']);
  });

  it.each([
    ['stop', 'end_turn'],
    ['tool_calls', 'tool_use'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
    ['function_call', 'other'],
  ])('maps finish_reason %s to %s and keeps the raw word', async (finish, stop) => {
    fake.reply(textReply('x', finish));
    const response = await provider().chat(hello);
    expect(response.stopReason).toBe(stop);
    expect(response.rawStopReason).toBe(finish);
  });

  it('fails with PROVIDER_ERROR when a 200 is not an event stream of chunks', async () => {
    fake.reply({ kind: 'json', body: { id: 'x', choices: [{ message: { content: 'hi' } }] } });
    const error = await failure(provider().chat(hello));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('not an event stream');
  });

  it('fails with PROVIDER_ERROR when the stream reports an error', async () => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'a' }), { error: { message: 'model crashed' } }] });
    const error = await failure(provider().chat(hello));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('model crashed');
  });
});

describe('openAiCompatibleProvider: retries, truncation, deadline', () => {
  it('retries a 429 after its retry-after and counts the attempts', async () => {
    fake.reply({ kind: 'json', status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } }, textReply('hi'));
    const started = Date.now();
    const response = await provider().chat(hello);
    // Without the header the backoff would wait at least 375 ms.
    expect(Date.now() - started).toBeLessThan(300);
    expect(response.attempts).toBe(2);
    expect(fake.requests).toHaveLength(2);
    expect(response.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(response.raw.status).toBe(200);
  });

  it('honours retry-after-ms', async () => {
    fake.reply({ kind: 'json', status: 503, headers: { 'retry-after-ms': '200', 'retry-after': '5' }, body: { error: { message: 'busy' } } }, textReply('hi'));
    const started = Date.now();
    const response = await provider().chat(hello);
    const elapsed = Date.now() - started;
    // retry-after-ms wins over retry-after, and is waited for (the backoff would be 375 ms or more).
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(360);
    expect(response.attempts).toBe(2);
  });

  it('retries a 500 with backoff when no retry-after is given', async () => {
    fake.reply({ kind: 'json', status: 500, body: { error: { message: 'oops' } } }, textReply('hi'));
    const started = Date.now();
    const response = await provider().chat(hello);
    expect(response.attempts).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  it('stops after maxRetries and reports the last status', async () => {
    fake.answerWith(() => ({ kind: 'json', status: 502, headers: { 'retry-after': '0' }, body: { error: { message: 'bad gateway' } } }));
    const error = await failure(provider({ maxRetries: 2 }).chat(hello));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.data).toMatchObject({ status: 502, attempts: 3 });
    expect(fake.requests).toHaveLength(3);
    expect((error.data.raw as { response: string }).response).toContain('bad gateway');
  });

  it('does not retry a 400', async () => {
    fake.reply({ kind: 'json', status: 400, body: { error: { message: 'bad request' } } }, textReply('never'));
    const error = await failure(provider().chat(hello));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.data).toMatchObject({ status: 400, attempts: 1 });
    expect(fake.requests).toHaveLength(1);
  });

  it('fails a stream that ends without [DONE] as truncated, without retrying', async () => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'half an ans' })], done: false }, textReply('never'));
    const error = await failure(provider().chat(hello));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('truncated stream');
    expect(fake.requests).toHaveLength(1);
  });

  it('fails a stream whose connection is cut as truncated, without retrying', async () => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'half an ans' })], done: false, then: 'cut' }, textReply('never'));
    const error = await failure(provider().chat(hello));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('truncated stream');
    expect(fake.requests).toHaveLength(1);
  });

  it('ends at the deadline when the server never answers', async () => {
    fake.reply({ kind: 'stall' });
    const started = Date.now();
    const error = await failure(provider().chat({ ...hello, timeoutMs: 300 }));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('DEADLINE');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('ends at the deadline when the stream stalls midway', async () => {
    fake.reply({ kind: 'sse', events: [chunk({ content: 'thinking' })], done: false, then: 'stall' });
    const started = Date.now();
    const error = await failure(provider().chat({ ...hello, timeoutMs: 300 }));
    expect(error.code).toBe('DEADLINE');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('gives up at once when the asked retry wait would pass the deadline', async () => {
    fake.reply({ kind: 'json', status: 429, headers: { 'retry-after': '30' }, body: { error: { message: 'later' } } }, textReply('never'));
    const started = Date.now();
    const error = await failure(provider().chat({ ...hello, timeoutMs: 2_000 }));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain('deadline');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('openAiCompatibleProvider: the API key', () => {
  it('sends the key named by apiKeyEnv and never returns it, even when the server echoes it', async () => {
    fake.answerWith((request) =>
      fake.requests.length === 1
        ? { kind: 'json', status: 401, body: { error: { message: `bad key ${String(request.headers.authorization)}` } } }
        : textReply('welcome'),
    );
    const p = provider({ apiKeyEnv: 'MY_LLM_KEY', env: { MY_LLM_KEY: CANARY } });
    const error = await failure(p.chat(hello));
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(exposed(error)).not.toContain(CANARY);

    const response = await p.chat(hello);
    expect(fake.requests[1]?.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(JSON.stringify(response)).not.toContain(CANARY);
  });

  it('keeps the key out of a DEADLINE error', async () => {
    fake.reply({ kind: 'stall' });
    const error = await failure(provider({ apiKeyEnv: 'K', env: { K: CANARY } }).chat({ ...hello, timeoutMs: 200 }));
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(error.code).toBe('DEADLINE');
    expect(exposed(error)).not.toContain(CANARY);
  });

  it('is MISSING_KEY, naming the variable, when apiKeyEnv is unset or empty; nothing is sent', async () => {
    for (const env of [{}, { MY_LLM_KEY: '' }] as Array<Record<string, string>>) {
      const error = await failure(provider({ apiKeyEnv: 'MY_LLM_KEY', env }).chat(hello));
      expect(error.code).toBe('MISSING_KEY');
      expect(error.message).toContain('MY_LLM_KEY');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('uses OPENAI_API_KEY by default, and sends no key when it is unset (local servers)', async () => {
    fake.reply(textReply('a'), textReply('b'));
    await provider({ env: { OPENAI_API_KEY: CANARY } }).chat(hello);
    await provider({ env: {} }).chat(hello);
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(fake.requests[1]?.headers.authorization).toBeUndefined();
  });
});
