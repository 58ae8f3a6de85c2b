// sentToolResults reads back, from a recorded request body, the tool results each wire format sent.
import { describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { requestKey, scriptedProvider, sentToolResults, type ChatRequest } from '../../src/providers/index.js';

const conversation: ChatRequest = {
  model: 'm',
  maxTokens: 10,
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'q' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 't', input: {} }, { type: 'tool_use', id: 'b', name: 't', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', toolUseId: 'a', content: 'first' }, { type: 'tool_result', toolUseId: 'b', content: 'second', isError: true }] },
  ],
};
const expected = [
  { toolUseId: 'a', content: 'first' },
  { toolUseId: 'b', content: 'second' },
];

describe('sentToolResults', () => {
  it('reads the scripted provider\u2019s recorded request', async () => {
    const provider = scriptedProvider({ version: 1, turns: { [requestKey(conversation)]: { content: [{ type: 'text', text: 'done' }] } } });
    const response = await provider.chat(conversation);
    expect(sentToolResults('scripted', response.raw.request)).toEqual(expected);
  });

  it('reads Anthropic tool_result blocks and OpenAI-compatible tool messages', () => {
    const anthropic = JSON.stringify({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'first' }, { type: 'tool_result', tool_use_id: 'b', content: 'second', is_error: true }] },
      ],
    });
    expect(sentToolResults('anthropic', anthropic)).toEqual(expected);
    const openai = JSON.stringify({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', tool_calls: [] },
        { role: 'tool', tool_call_id: 'a', content: 'first' },
        { role: 'tool', tool_call_id: 'b', content: 'second' },
      ],
    });
    expect(sentToolResults('openai-compatible', openai)).toEqual(expected);
  });

  it('refuses a body that is not JSON with messages', () => {
    expect(() => sentToolResults('anthropic', '{"messag')).toThrow(McpctxError);
    expect(() => sentToolResults('openai-compatible', '{"messages":{}}')).toThrow(/messages/);
  });
});
