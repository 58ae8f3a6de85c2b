import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isMcpctxError, type McpctxError } from '../../src/errors/index.js';
import { recordTurn, requestKey, scriptedProvider, type ScriptedTurns } from '../../src/providers/_scripted.js';
import type { ChatMessage, ChatRequest, ContentBlock } from '../../src/providers/_types.js';
import { canonicalJson, countTokens } from '../../src/tokens/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpctx-providers-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const EMPTY: ScriptedTurns = { version: 1, turns: {} };
const ask: ChatRequest = { model: 'demo', system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], maxTokens: 50 };

async function failure(promise: Promise<unknown> | (() => unknown)): Promise<McpctxError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (isMcpctxError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

function scriptFile(content: unknown): string {
  const file = join(dir, 'script.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('scriptedProvider', () => {
  it('answers the same request the same way, with the documented raw record and default usage', async () => {
    const script = recordTurn(EMPTY, ask, { content: [{ type: 'text', text: 'Hello.' }] });
    const provider = scriptedProvider(script);
    const first = await provider.chat(ask);
    const second = await provider.chat({ ...ask, temperature: 0.9, timeoutMs: 5 });
    // The same answer; only when it was given differs.
    expect({ ...second, timing: null }).toEqual({ ...first, timing: null });
    expect(first.retries).toEqual([]);
    // A scripted answer arrives whole: its first byte is its end, after its start.
    expect(first.timing.firstByteAt).toBe(first.timing.endedAt);
    expect(Date.parse(first.timing.startedAt) <= Date.parse(first.timing.endedAt as string)).toBe(true);
    expect(provider.name).toBe('scripted');
    expect(provider.baseUrl).toBeNull();
    expect(first.content).toEqual([{ type: 'text', text: 'Hello.' }]);
    expect(first.stopReason).toBe('end_turn');
    expect(first.rawStopReason).toBeNull();
    expect(first.model).toBe('demo');
    expect(first.attempts).toBe(1);
    const requestJson = canonicalJson({ model: 'demo', system: 'Be brief.', messages: ask.messages, maxTokens: 50 });
    expect(first.raw).toEqual({ url: 'scripted:', request: requestJson, response: canonicalJson(script.turns[requestKey(ask)]), status: 200 });
    expect(first.usage).toEqual({
      inputTokens: countTokens(requestJson),
      outputTokens: countTokens(canonicalJson([{ type: 'text', text: 'Hello.' }])),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it('keys a request on what the model is asked, not on how the objects were written', () => {
    const key = requestKey(ask);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const reordered = { maxTokens: 50, messages: [{ content: [{ text: 'hi', type: 'text' }], role: 'user' }], system: 'Be brief.', model: 'demo' } as ChatRequest;
    expect(requestKey(reordered)).toBe(key);
    expect(requestKey({ ...ask, model: 'other' })).not.toBe(key);
    expect(requestKey({ ...ask, system: undefined })).not.toBe(key);
    expect(requestKey({ ...ask, maxTokens: 51 })).not.toBe(key);
    expect(requestKey({ ...ask, tools: [{ name: 't', inputSchema: { type: 'object' } }] })).not.toBe(key);
    expect(requestKey({ ...ask, outputSchema: { name: 'o', schema: {} } })).not.toBe(key);
    expect(requestKey({ ...ask, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi!' }] }] })).not.toBe(key);
  });

  it('takes the stop reason and usage the script gives, and hands out copies', async () => {
    const script = recordTurn(EMPTY, ask, { content: [{ type: 'text', text: 'cut' }], stopReason: 'max_tokens', usage: { inputTokens: 1000, cacheReadTokens: 900 } });
    const provider = scriptedProvider(script);
    script.turns[requestKey(ask)]?.content.push({ type: 'text', text: 'added later' });
    const response = await provider.chat(ask);
    expect(response.stopReason).toBe('max_tokens');
    expect(response.rawStopReason).toBe('max_tokens');
    expect(response.usage).toEqual({ inputTokens: 1000, outputTokens: countTokens(canonicalJson(response.content)), cacheReadTokens: 900, cacheWriteTokens: 0 });
    (response.content[0] as { text: string }).text = 'changed';
    expect((await provider.chat(ask)).content).toEqual([{ type: 'text', text: 'cut' }]);
  });

  it('refuses a request the script lacks with NO_SCRIPTED_TURN naming its hash and last message', async () => {
    const provider = scriptedProvider(recordTurn(EMPTY, ask, { content: [{ type: 'text', text: 'Hello.' }] }));
    const other: ChatRequest = { ...ask, messages: [...ask.messages, { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }, { role: 'user', content: [{ type: 'text', text: 'more' }] }] };
    const error = await failure(provider.chat(other));
    expect(error.code).toBe('NO_SCRIPTED_TURN');
    expect(error.message).toContain(requestKey(other));
    expect(error.message).toContain('message 2');
    expect(error.data).toMatchObject({ requestHash: requestKey(other), lastMessage: 2 });
  });

  it('checks the conversation first', async () => {
    const error = await failure(scriptedProvider(EMPTY).chat({ ...ask, messages: [{ role: 'assistant', content: [{ type: 'text', text: 'x' }] }] }));
    expect(error.code).toBe('INVALID_ARGUMENT');
  });

  it('reads a script file, and names the file when it has no turn', async () => {
    const file = scriptFile(recordTurn(EMPTY, ask, { content: [{ type: 'text', text: 'from file' }] }));
    const provider = scriptedProvider(file);
    expect((await provider.chat(ask)).content).toEqual([{ type: 'text', text: 'from file' }]);
    const error = await failure(provider.chat({ ...ask, model: 'other' }));
    expect(error.code).toBe('NO_SCRIPTED_TURN');
    expect(error.message).toContain(file);
  });

  it.each([
    ['not JSON', '{"version": 1, "turns": {', 'not JSON'],
    ['not an object', '[]', 'must be an object'],
    ['a wrong version', { version: 2, turns: {} }, 'version must be 1'],
    ['no turns', { version: 1 }, 'turns must be an object'],
    ['a key that is not a hash', { version: 1, turns: { hello: { content: [] } } }, '"hello" is not a request hash'],
    ['content not an array', { version: 1, turns: { ['a'.repeat(64)]: { content: 'hi' } } }, 'content must be an array'],
    ['a tool_result in an answer', { version: 1, turns: { ['a'.repeat(64)]: { content: [{ type: 'tool_result', toolUseId: 'x', content: '' }] } } }, 'must be "text" or "tool_use"'],
    ['a tool_use without a name', { version: 1, turns: { ['a'.repeat(64)]: { content: [{ type: 'tool_use', id: 'c', input: {} }] } } }, 'name must be a non-empty string'],
    ['an unknown stop reason', { version: 1, turns: { ['a'.repeat(64)]: { content: [], stopReason: 'done' } } }, 'stopReason must be one of'],
    ['a negative usage', { version: 1, turns: { ['a'.repeat(64)]: { content: [], usage: { inputTokens: -1 } } } }, 'usage.inputTokens must be a whole number'],
    ['a misspelt field', { version: 1, turns: { ['a'.repeat(64)]: { content: [], stop_reason: 'end_turn' } } }, 'unknown field "stop_reason"'],
  ])('refuses a script file with %s as INVALID_CONFIG naming the file', async (_what, content, problem) => {
    const file = scriptFile(content);
    const error = await failure(() => scriptedProvider(file));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain(file);
    expect(error.message).toContain(problem);
    expect(error.data).toMatchObject({ file });
  });

  it('refuses a malformed script object, and a missing file as IO', async () => {
    expect((await failure(() => scriptedProvider({ version: 1, turns: { x: { content: [] } } } as ScriptedTurns))).code).toBe('INVALID_CONFIG');
    const missing = join(dir, 'nope.json');
    const error = await failure(() => scriptedProvider(missing));
    expect(error.code).toBe('IO');
    expect(error.message).toContain(missing);
  });

  it('plays a two-turn tool conversation end to end', async () => {
    const tools = [{ name: 'get_weather', description: 'Weather of a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }];
    const opening: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] }];
    const toolCall: ContentBlock[] = [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
    ];
    const afterTool: ChatMessage[] = [
      ...opening,
      { role: 'assistant', content: toolCall },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_1', content: '{"tempC":4}' }] },
    ];
    let script = recordTurn(EMPTY, { model: 'demo', tools, messages: opening, maxTokens: 200 }, { content: toolCall });
    script = recordTurn(script, { model: 'demo', tools, messages: afterTool, maxTokens: 200 }, { content: [{ type: 'text', text: 'It is 4 °C in Oslo.' }] });
    const provider = scriptedProvider(scriptFile(script));

    // The loop an agent runs: ask, run each tool_use, answer with its result, ask again.
    const messages: ChatMessage[] = [...opening];
    const calls: unknown[] = [];
    const stops: string[] = [];
    for (let turn = 0; turn < 5; turn += 1) {
      const response = await provider.chat({ model: 'demo', tools, messages, maxTokens: 200 });
      stops.push(response.stopReason);
      messages.push({ role: 'assistant', content: response.content });
      if (response.stopReason !== 'tool_use') break;
      const results = response.content.flatMap((block): ContentBlock[] => {
        if (block.type !== 'tool_use') return [];
        calls.push(block.input);
        return [{ type: 'tool_result', toolUseId: block.id, content: JSON.stringify({ tempC: 4 }) }];
      });
      messages.push({ role: 'user', content: results });
    }
    expect(stops).toEqual(['tool_use', 'end_turn']);
    expect(calls).toEqual([{ city: 'Oslo' }]);
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'It is 4 °C in Oslo.' }] });
  });
});
