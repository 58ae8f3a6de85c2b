// The Anthropic Messages API behind `Provider`: a streamed chat turn assembled into one message, and
// count_tokens. Built on @anthropic-ai/sdk with its own retries off (maxRetries 0): retries, recording
// and the one deadline for the whole call are callWithRetries' (_http.ts), the same for every HTTP provider.
import type * as AnthropicSdkModule from '@anthropic-ai/sdk';
import type Anthropic from '@anthropic-ai/sdk';
import type { APIError } from '@anthropic-ai/sdk';
import { McpctxError } from '../errors/index.js';
import { lazyImport } from '../lazy/index.js';
import { isPlainObject } from '../json/index.js';
import { DEFAULT_ANTHROPIC_KEY_ENV, readApiKey } from './_keys.js';
import { checkRequest } from './_request-checks.js';
import { DEFAULT_MAX_RETRIES, apiErrorText, callWithRetries, recordedSseEvents, type AttemptIo, type HttpTarget } from './_http.js';
import { tokenCount } from './_usage.js';
import { retriedAttempts } from './_attempts.js';
import type {
  AssembledTurn,
  ChatMessage,
  ChatRequest,
  ContentBlock,
  HttpProviderOptions,
  Provider,
  ProviderTool,
  StopReason,
  Usage,
} from './_types.js';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Loaded at the first call (about 170 ms): a run that never calls Claude never pays it. */
const sdk = lazyImport<typeof AnthropicSdkModule>(() => import('@anthropic-ai/sdk'), { name: '@anthropic-ai/sdk', neededFor: 'the Anthropic provider' });

/** SDK errors only exist once the SDK is loaded, so before that nothing is one. */
function isApiError(error: unknown): error is APIError {
  const loaded = sdk.loaded();
  return loaded !== undefined && error instanceof loaded.APIError;
}

export function anthropicProvider(options: HttpProviderOptions = {}): Provider {
  const baseUrl = checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new McpctxError('INVALID_ARGUMENT', `maxRetries must be a non-negative integer, got ${String(maxRetries)}`);
  }
  const target: HttpTarget = { api: 'Anthropic', maxRetries, fetch: options.fetch ?? globalThis.fetch };
  const apiKeyEnv = options.apiKeyEnv ?? DEFAULT_ANTHROPIC_KEY_ENV;
  const env = options.env ?? process.env;
  /** The key is read at each call, so a provider can be built before the key is set. */
  async function clientFactory(): Promise<{ key: string; client: (io: AttemptIo) => Anthropic }> {
    const key = readApiKey(env, apiKeyEnv, 'required');
    const { default: AnthropicClient } = await sdk.load();
    const client = (io: AttemptIo): Anthropic =>
      new AnthropicClient({
        apiKey: key,
        baseURL: baseUrl,
        fetch: io.fetch,
        maxRetries: 0,
        // Past the deadline, so that the call's one deadline decides (and says DEADLINE).
        timeout: io.remainingMs() + 1_000,
        // The SDK's logger could print request details; mcpctx reports through errors instead.
        logLevel: 'off',
      });
    return { key, client };
  }
  return {
    name: 'anthropic',
    baseUrl,
    async chat(request) {
      checkRequest(request, 'required');
      const body = messagesBody(request);
      const { key, client } = await clientFactory();
      const { value, raw, attempts, timing, retried } = await callWithRetries(target, key, request.timeoutMs, async (io) => {
        const stream = await client(io).messages.create(body, { signal: io.signal });
        return assembleStream(stream);
      });
      return { ...value, raw, attempts, timing, retries: retriedAttempts(retried, announcedAnthropicUsage) };
    },
    async countTokens(request) {
      checkRequest(request, 'optional');
      const body = countTokensBody(request);
      const { key, client } = await clientFactory();
      const { value, raw } = await callWithRetries(target, key, request.timeoutMs, async (io) => {
        const answer: unknown = await client(io).messages.countTokens(body, { signal: io.signal });
        if (!isPlainObject(answer)) throw notInShape('count_tokens answered with something other than an object');
        return tokenCount(answer.input_tokens, 'count_tokens input_tokens', 'required', notInShape);
      });
      return { inputTokens: value, raw };
    },
  };
}

// ---------------------------------------------------------------- request bodies

type CountRequest = Omit<ChatRequest, 'maxTokens'>;

/** The Messages request body for a chat turn (exported so a receipt's recorded body can be re-derived). */
export function messagesBody(request: ChatRequest): Anthropic.MessageCreateParamsStreaming {
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system !== undefined ? { system: request.system } : {}),
    messages: request.messages.map(toAnthropicMessage),
    ...(request.tools !== undefined && request.tools.length > 0 ? { tools: request.tools.map(toAnthropicTool) } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.outputSchema !== undefined ? outputFormat(request.outputSchema.schema) : {}),
    stream: true,
  };
}

/** count_tokens takes the prompt only: model, system, messages, tools. */
function countTokensBody(request: CountRequest): Anthropic.MessageCountTokensParams {
  return {
    model: request.model,
    ...(request.system !== undefined ? { system: request.system } : {}),
    messages: request.messages.map(toAnthropicMessage),
    ...(request.tools !== undefined && request.tools.length > 0 ? { tools: request.tools.map(toAnthropicTool) } : {}),
  };
}

/**
 * Structured outputs, as documented today (platform.claude.com, build-with-claude/structured-outputs):
 * `output_config.format = { type: 'json_schema', schema }`. The earlier beta spelled it as a
 * top-level `output_format` behind a beta header; only this function knows the spelling.
 */
function outputFormat(schema: Record<string, unknown>): { output_config: Anthropic.OutputConfig } {
  return { output_config: { format: { type: 'json_schema', schema } } };
}

function toAnthropicMessage(message: ChatMessage): Anthropic.MessageParam {
  return { role: message.role, content: message.content.map(toAnthropicBlock) };
}

function toAnthropicBlock(block: ContentBlock): Anthropic.ContentBlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.toolUseId,
        content: block.content,
        ...(block.isError !== undefined ? { is_error: block.isError } : {}),
      };
  }
}

function toAnthropicTool(tool: ProviderTool): Anthropic.Tool {
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    // MCP's inputSchema is sent as is; the SDK's type only insists on `type: 'object'`, which MCP requires too.
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  };
}

function checkBaseUrl(baseUrl: string): string {
  if (!URL.canParse(baseUrl)) throw new McpctxError('INVALID_ARGUMENT', `baseUrl is not a URL: ${JSON.stringify(baseUrl)}`);
  return baseUrl.replace(/\/+$/, '');
}

// ---------------------------------------------------------------- the streamed answer

type PendingBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; json: string; startInput: unknown }
  /** Blocks mcpctx does not carry (thinking, server tools): read past, left out. */
  | { type: 'skipped' };

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
};

/**
 * Folds the event stream into one message. The stream must reach `message_stop`: one that ends
 * before it (the connection closed, or the server just stopped) is a truncated stream, and is not
 * retried, because the model may already have acted on part of the turn.
 */
async function assembleStream(events: AsyncIterable<unknown>): Promise<AssembledTurn> {
  const message = new MessageAssembly();
  try {
    for await (const event of events) message.add(event);
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    // The SDK error holds the event's body; its words are kept, the error itself is not (see callWithRetries).
    if (isApiError(error)) throw new McpctxError('PROVIDER_ERROR', `the stream reported an error: ${apiErrorText(error.error) ?? error.message}`);
    throw new McpctxError('PROVIDER_ERROR', 'truncated stream: the connection broke before message_stop', {}, { cause: error });
  }
  return message.result();
}

/**
 * The same fold over a recorded event stream (`raw.response` of a streamed call), for receipts:
 * the events are read as the SDK reads them (`ping`, unnamed and empty events skipped, an `error` event
 * is the API's error, every other event's data is JSON) and go through the one assembly.
 */
export function replayAnthropicStream(text: string): AssembledTurn {
  const message = new MessageAssembly();
  for (const event of recordedSseEvents(text)) {
    if (event.event === 'ping' || event.event === 'message' || event.data === '') continue;
    if (event.event === 'error') throw new McpctxError('PROVIDER_ERROR', `the stream reported an error: ${event.data.slice(0, 200)}`);
    message.add(parseEventData(event.data));
  }
  return message.result();
}

/**
 * The usage a recorded stream announced before it broke off (message_start's, updated by any
 * message_delta), for a failed call's record; null when none was announced in shape.
 */
export function announcedAnthropicUsage(text: string): Usage | null {
  const message = new MessageAssembly();
  try {
    for (const event of recordedSseEvents(text)) {
      if (event.event === 'ping' || event.event === 'message' || event.event === 'error' || event.data === '') continue;
      message.add(parseEventData(event.data));
    }
  } catch {
    // What came before the break stands.
  }
  return message.usageSoFar ?? null;
}

/** One message being assembled from stream events, in order. */
class MessageAssembly {
  private model: string | undefined;
  /** Set by message_start, which must carry it; message_delta updates it. */
  private usage: Usage | undefined;
  private rawStopReason: string | null = null;
  private stopped = false;
  private readonly blocks: PendingBlock[] = [];

  get usageSoFar(): Usage | undefined {
    return this.usage;
  }

  add(event: unknown): void {
    if (!isPlainObject(event) || typeof event.type !== 'string') throw notInShape('a stream event without a type');
    switch (event.type) {
      case 'message_start': {
        const message = event.message;
        if (!isPlainObject(message) || typeof message.model !== 'string' || !isPlainObject(message.usage)) {
          throw notInShape('message_start without a message, its model and its usage');
        }
        this.model = message.model;
        this.usage = readUsage(message.usage);
        break;
      }
      case 'content_block_start':
        this.blocks[blockIndex(event)] = startBlock(event.content_block);
        break;
      case 'content_block_delta': {
        const index = blockIndex(event);
        const block = this.blocks[index];
        if (block === undefined) throw notInShape(`a delta for content block ${index}, which never started`);
        addDelta(block, event.delta);
        break;
      }
      case 'message_delta': {
        const delta = event.delta;
        if (isPlainObject(delta) && typeof delta.stop_reason === 'string') this.rawStopReason = delta.stop_reason;
        if (isPlainObject(event.usage) && this.usage !== undefined) this.usage = readUsage(event.usage, this.usage);
        break;
      }
      case 'message_stop':
        this.stopped = true;
        break;
      // content_block_stop needs nothing; unknown events are skipped, as the API's versioning asks.
    }
  }

  result(): AssembledTurn {
    if (!this.stopped) throw new McpctxError('PROVIDER_ERROR', 'truncated stream: it ended before message_stop');
    if (this.model === undefined || this.usage === undefined) throw notInShape('a stream without message_start');
    const rawStopReason = this.rawStopReason;
    return {
      content: this.blocks.flatMap((block) => finishBlock(block, rawStopReason === 'max_tokens')),
      stopReason: rawStopReason !== null ? (STOP_REASONS[rawStopReason] ?? 'other') : 'other',
      rawStopReason,
      usage: this.usage,
      model: this.model,
    };
  }
}

function parseEventData(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    throw notInShape(`an event whose data is not JSON: ${data.slice(0, 200)}`);
  }
}

function blockIndex(event: Record<string, unknown>): number {
  const index = event.index;
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) throw notInShape(`${String(event.type)} without a block index`);
  return index;
}

function startBlock(block: unknown): PendingBlock {
  if (!isPlainObject(block)) throw notInShape('content_block_start without a content_block');
  if (block.type === 'text') return { type: 'text', text: typeof block.text === 'string' ? block.text : '' };
  if (block.type === 'tool_use') {
    if (typeof block.id !== 'string' || typeof block.name !== 'string') throw notInShape('a tool_use block without its id and name');
    return { type: 'tool_use', id: block.id, name: block.name, json: '', startInput: block.input };
  }
  return { type: 'skipped' };
}

function addDelta(block: PendingBlock, delta: unknown): void {
  if (!isPlainObject(delta)) throw notInShape('content_block_delta without a delta');
  if (delta.type === 'text_delta' && block.type === 'text' && typeof delta.text === 'string') block.text += delta.text;
  else if (delta.type === 'input_json_delta' && block.type === 'tool_use' && typeof delta.partial_json === 'string') block.json += delta.partial_json;
}

/**
 * A tool_use cut by max_tokens (a documented answer: the input JSON stops where the tokens ran out)
 * keeps the partial input TEXT as its `input`, as the OpenAI-compatible provider keeps arguments
 * that are not JSON: the turn is the model's, it just cannot be acted on (the API's advice is to
 * ask again with a higher max_tokens). Anywhere else an input that is not JSON is outside the shape.
 */
function finishBlock(block: PendingBlock, cutByMaxTokens: boolean): ContentBlock[] {
  if (block.type === 'skipped') return [];
  if (block.type === 'text') return [{ type: 'text', text: block.text }];
  // A tool called without arguments streams no input_json_delta; its input is the start's `{}`.
  if (block.json === '') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.startInput ?? {} }];
  try {
    return [{ type: 'tool_use', id: block.id, name: block.name, input: JSON.parse(block.json) as unknown }];
  } catch {
    if (cutByMaxTokens) return [{ type: 'tool_use', id: block.id, name: block.name, input: block.json }];
    throw notInShape(`the input of tool_use ${JSON.stringify(block.id)} is not JSON`);
  }
}

/**
 * message_start's usage must report input and output tokens (cache counts are 0 when left out);
 * message_delta's counts are cumulative, and a count it leaves out (or sends as null) keeps its
 * value from before. The rule for a count is _usage.ts's, the same for every provider.
 */
function readUsage(value: Record<string, unknown>, previous?: Usage): Usage {
  const count = (field: string, earlier: number | undefined, need: 'required' | 'optional'): number =>
    earlier !== undefined && (value[field] === undefined || value[field] === null) ? earlier : tokenCount(value[field], `usage.${field}`, need, notInShape);
  return {
    inputTokens: count('input_tokens', previous?.inputTokens, 'required'),
    outputTokens: count('output_tokens', previous?.outputTokens, 'required'),
    cacheReadTokens: count('cache_read_input_tokens', previous?.cacheReadTokens, 'optional'),
    cacheWriteTokens: count('cache_creation_input_tokens', previous?.cacheWriteTokens, 'optional'),
  };
}

function notInShape(what: string): McpctxError {
  return new McpctxError('PROVIDER_ERROR', `the Anthropic API answered outside its documented shape: ${what}`);
}
