/**
 * The checks every HTTP provider makes before anything is sent, so a request one API would refuse
 * (or, worse, accept wrongly) is INVALID_ARGUMENT the same way for all of them.
 */
import { McpctxError } from '../errors/index.js';
import { checkConversation } from './_conversation.js';
import type { ChatRequest } from './_types.js';

/** setTimeout's limit: a longer delay overflows and fires at once, which would end every call at its start. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** A chat request, or a prompt to count (count_tokens has no max tokens). */
export type CheckedRequest = Omit<ChatRequest, 'maxTokens'> & { maxTokens?: number };

/**
 * Model named; `maxTokens` a positive integer (`'required'` where the API needs it, Anthropic's
 * Messages; checked whenever given otherwise); `timeoutMs`, when given, a positive number of ms
 * setTimeout can wait; the conversation well formed (see checkConversation).
 */
export function checkRequest(request: CheckedRequest, maxTokens: 'required' | 'optional'): void {
  if (typeof request.model !== 'string' || request.model === '') throw new McpctxError('INVALID_ARGUMENT', 'a chat request needs a model');
  if (request.maxTokens === undefined ? maxTokens === 'required' : !Number.isInteger(request.maxTokens) || request.maxTokens < 1) {
    throw new McpctxError('INVALID_ARGUMENT', `maxTokens must be a positive integer, got ${String(request.maxTokens)}`);
  }
  const timeoutMs = request.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= MAX_TIMEOUT_MS)) {
    throw new McpctxError('INVALID_ARGUMENT', `timeoutMs must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}, got ${String(timeoutMs)}`);
  }
  checkConversation(request.messages);
}
