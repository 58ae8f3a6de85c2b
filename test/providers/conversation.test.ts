// The conversation check every provider runs before sending: a tool_use without its tool_result
// (or a result answering nothing, or answered twice) never reaches an API.
import { describe, expect, it } from 'vitest';
import { checkConversation, type ChatMessage } from '../../src/providers/index.js';

const ask: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'How many open orders?' }] };
const call: ChatMessage = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Looking.' },
    { type: 'tool_use', id: 'tu_1', name: 'list_orders', input: { status: 'open' } },
    { type: 'tool_use', id: 'tu_2', name: 'count_orders', input: {} },
  ],
};
const results = (...ids: string[]): ChatMessage => ({ role: 'user', content: ids.map((id) => ({ type: 'tool_result', toolUseId: id, content: '3' })) });

function refusal(messages: ChatMessage[]): string {
  try {
    checkConversation(messages);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

describe('checkConversation', () => {
  it('accepts a question, and a tool round with every use answered once', () => {
    expect(refusal([ask])).toBe('accepted');
    expect(refusal([ask, call, results('tu_1', 'tu_2')])).toBe('accepted');
  });

  it('refuses a tool_use left without its tool_result', () => {
    expect(refusal([ask, call, results('tu_1')])).toMatch(/"tu_2" of the message before has no tool_result/);
    expect(refusal([ask, call, ask])).toMatch(/no tool_result/);
  });

  it('refuses a result that answers nothing, or answers twice', () => {
    expect(refusal([ask, call, results('tu_1', 'tu_2', 'tu_9')])).toMatch(/"tu_9" answers no tool_use/);
    expect(refusal([ask, results('tu_1')])).toMatch(/answers no tool_use/);
    expect(refusal([ask, call, results('tu_1', 'tu_1', 'tu_2')])).toMatch(/answered twice/);
  });

  it('refuses tool blocks from the wrong side, an empty chat, and a chat ending on the assistant', () => {
    expect(refusal([{ role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'n', input: {} }] }])).toMatch(/only come from the assistant/);
    expect(refusal([ask, { role: 'assistant', content: [{ type: 'tool_result', toolUseId: 'x', content: '' }] }])).toMatch(/only come from the user/);
    expect(refusal([])).toMatch(/at least one message/);
    expect(refusal([ask, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }])).toMatch(/end with a user message/);
  });
});
