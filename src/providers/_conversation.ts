import { McpctxError } from '../errors/index.js';
import type { ChatMessage } from './_types.js';

/**
 * Refuses a conversation a provider would reject or, worse, accept wrongly: every `tool_use` of an
 * assistant message is answered by exactly one `tool_result` with its id in the very next message
 * (a user message), and a `tool_result` answers a `tool_use` of the message just before. Checked
 * before anything is sent, so a missing or stray result can never reach an API.
 */
export function checkConversation(messages: readonly ChatMessage[]): void {
  if (messages.length === 0) throw new McpctxError('INVALID_ARGUMENT', 'a chat needs at least one message');
  messages.forEach((message, index) => {
    const previous = index > 0 ? messages[index - 1] : undefined;
    const asked = new Set(previous?.role === 'assistant' ? previous.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) : []);
    const answered = new Set<string>();
    for (const block of message.content) {
      if (block.type === 'tool_use' && message.role !== 'assistant') {
        throw new McpctxError('INVALID_ARGUMENT', `message ${index}: a tool_use can only come from the assistant`, { message: index });
      }
      if (block.type !== 'tool_result') continue;
      if (message.role !== 'user') throw new McpctxError('INVALID_ARGUMENT', `message ${index}: a tool_result can only come from the user`, { message: index });
      if (!asked.has(block.toolUseId)) {
        throw new McpctxError('INVALID_ARGUMENT', `message ${index}: tool_result ${JSON.stringify(block.toolUseId)} answers no tool_use of the message before`, { message: index });
      }
      if (answered.has(block.toolUseId)) throw new McpctxError('INVALID_ARGUMENT', `message ${index}: tool_use ${JSON.stringify(block.toolUseId)} is answered twice`, { message: index });
      answered.add(block.toolUseId);
    }
    if (previous?.role === 'assistant') {
      const missing = [...asked].filter((id) => !answered.has(id));
      if (missing.length > 0) {
        throw new McpctxError('INVALID_ARGUMENT', `message ${index}: tool_use ${missing.map((id) => JSON.stringify(id)).join(', ')} of the message before has no tool_result`, { message: index, missing });
      }
    }
  });
  const last = messages.at(-1);
  if (last?.role !== 'user') throw new McpctxError('INVALID_ARGUMENT', 'a chat turn must end with a user message');
}
