/**
 * Re-derives a turn from the bytes a receipt recorded, so an audit needs no model and no network:
 * each provider's own assembly runs over `raw.response` (for the HTTP providers, the event stream
 * as received; for the scripted provider, the turn it answered with), exactly as it ran live.
 */
import { McpctxError } from '../errors/index.js';
import { isPlainObject } from '../json/index.js';
import { announcedAnthropicUsage, messagesBody, replayAnthropicStream } from './_anthropic.js';
import { announcedOpenAiUsage, replayOpenAiStream, requestBody } from './_openai.js';
import { canonicalRequest, replayScriptedExchange } from './_scripted.js';
import type { AssembledTurn, ChatRequest, ProviderName, RawExchange, Usage } from './_types.js';

/** What a recorded exchange replays to: the turn its provider's assembly reads. */
export type ReplayedTurn = AssembledTurn;

/**
 * The content, stop reason, raw stop reason, usage and model of a recorded exchange. Anything the
 * live call would have refused (a non-2xx status, a stream cut before its end, an event outside
 * the API's shape, a scripted turn that is not one) is PROVIDER_ERROR, as is a `raw` that is not
 * an exchange at all.
 */
export function replayResponse(provider: ProviderName, raw: RawExchange): ReplayedTurn {
  const exchange: unknown = raw;
  if (!isPlainObject(exchange) || typeof exchange.request !== 'string' || typeof exchange.response !== 'string' || typeof exchange.status !== 'number') {
    throw new McpctxError('PROVIDER_ERROR', 'a recorded exchange needs string request and response and a numeric status');
  }
  if (exchange.status < 200 || exchange.status > 299) {
    throw new McpctxError('PROVIDER_ERROR', `the recorded exchange has HTTP status ${exchange.status}, not an answer`, { status: exchange.status });
  }
  switch (provider) {
    case 'anthropic':
      return replayAnthropicStream(exchange.response);
    case 'openai-compatible':
      return replayOpenAiStream(exchange.response, exchange.request, requestModel(exchange.request));
    case 'scripted':
      return replayScriptedExchange(exchange.request, exchange.response);
    default:
      throw new McpctxError('PROVIDER_ERROR', `no provider is named ${JSON.stringify(provider)}`);
  }
}

/**
 * The usage a failed call's partial answer announced before it broke off (Anthropic's
 * message_start, an OpenAI-compatible usage chunk), or null: the tokens a cut call was billed
 * for are recorded as announced, and as unknown when nothing was. Scripted turns announce none.
 */
export function announcedUsage(provider: ProviderName, response: string): Usage | null {
  if (provider === 'anthropic') return announcedAnthropicUsage(response);
  if (provider === 'openai-compatible') return announcedOpenAiUsage(response);
  return null;
}

/** The model a recorded request asked for (the live call's fallback when no chunk names one). */
function requestModel(request: string): string {
  try {
    const body: unknown = JSON.parse(request);
    if (isPlainObject(body) && typeof body.model === 'string') return body.model;
  } catch {
    // Reported below.
  }
  throw new McpctxError('PROVIDER_ERROR', 'the recorded request is not a JSON body naming its model');
}

/** A tool_result as a recorded request body carried it to the model. */
export interface SentToolResult {
  toolUseId: string;
  content: string;
}

/**
 * Every tool_result a recorded request body sent, in order, read in that provider's wire format:
 * Anthropic `tool_result` blocks, OpenAI-compatible `tool` messages, the scripted provider's
 * canonical request. So an audit can hold the text a receipt says the model saw against the bytes
 * that were sent. A body that is not JSON in that shape is PROVIDER_ERROR.
 */
export function sentToolResults(provider: ProviderName, request: string): SentToolResult[] {
  let body: unknown;
  try {
    body = JSON.parse(request);
  } catch {
    body = undefined;
  }
  if (!isPlainObject(body) || !Array.isArray(body.messages)) {
    throw new McpctxError('PROVIDER_ERROR', 'the recorded request is not a JSON body with messages');
  }
  const results: SentToolResult[] = [];
  for (const message of body.messages as unknown[]) {
    if (!isPlainObject(message)) continue;
    if (provider === 'openai-compatible') {
      if (message.role === 'tool' && typeof message.tool_call_id === 'string' && typeof message.content === 'string') {
        results.push({ toolUseId: message.tool_call_id, content: message.content });
      }
      continue;
    }
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as unknown[]) {
      if (!isPlainObject(block) || block.type !== 'tool_result') continue;
      const id = provider === 'anthropic' ? block.tool_use_id : block.toolUseId;
      if (typeof id === 'string' && typeof block.content === 'string') results.push({ toolUseId: id, content: block.content });
    }
  }
  return results;
}

/**
 * The body `provider` sends for `request`, as parsed JSON (what a recorded `raw.request` parses
 * to), built by the provider's own request code: so an audit can re-derive each request a receipt
 * says was sent (the system prompt, tools, max tokens, every message so far) and hold it against
 * the bytes that were.
 */
export function sentRequestBody(provider: ProviderName, request: ChatRequest): unknown {
  switch (provider) {
    case 'anthropic':
      return JSON.parse(JSON.stringify(messagesBody(request))) as unknown;
    case 'openai-compatible':
      return JSON.parse(JSON.stringify(requestBody(request))) as unknown;
    case 'scripted':
      return JSON.parse(canonicalRequest(request)) as unknown;
    default:
      throw new McpctxError('PROVIDER_ERROR', `no provider is named ${JSON.stringify(provider)}`);
  }
}
