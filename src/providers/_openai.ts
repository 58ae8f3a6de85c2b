import type * as OpenAiSdkModule from 'openai';
import type { APIError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPartText,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionFunctionTool,
} from 'openai/resources/chat/completions';
import { McpctxError } from '../errors/index.js';
import { lazyImport } from '../lazy/index.js';
import { isPlainObject } from '../json/index.js';
import { DEFAULT_OPENAI_KEY_ENV, readApiKey } from './_keys.js';
import { checkRequest } from './_request-checks.js';
import { DEFAULT_MAX_RETRIES, callWithRetries, causeChain, recordedSseEvents, type AttemptIo, type HttpTarget } from './_http.js';
import { tokenCount, type ShapeError } from './_usage.js';
import { sha256Hex } from '../tokens/index.js';
import { retriedAttempts } from './_attempts.js';
import type { AssembledTurn, ChatMessage, ChatRequest, ChatResponse, ContentBlock, HttpProviderOptions, Provider, RawExchange, StopReason, Usage } from './_types.js';

/** Loaded at the first call (about 100 ms): a run that never calls it never pays it. */
const sdk = lazyImport<typeof OpenAiSdkModule>(() => import('openai'), { name: 'openai', neededFor: 'the OpenAI-compatible provider' });

/** SDK errors only exist once the SDK is loaded, so before that nothing is one. */
function isApiError(error: unknown): error is APIError {
  const loaded = sdk.loaded();
  return loaded !== undefined && error instanceof loaded.APIError;
}

/**
 * Chat completions of an OpenAI-compatible server (OpenAI, Ollama at `http://localhost:11434/v1`,
 * vLLM, llama.cpp server), streamed, on the `openai` SDK with its own retries off: retries and the
 * deadline are callWithRetries' (_http.ts), the same for every HTTP provider.
 *
 * Documented behaviour:
 * - The key is read from `options.env ?? process.env` under `apiKeyEnv` (MISSING_KEY when that
 *   variable is unset or empty). Without `apiKeyEnv`, OPENAI_API_KEY is used if set, else no
 *   Authorization header is sent (local servers need none). The key text is also scrubbed from
 *   every recorded body and error, in case a server echoes it.
 * - A stream that ends without `data: [DONE]` (closed or cut mid-stream) is PROVIDER_ERROR
 *   "truncated stream" and is NOT retried: the model may already have acted on the turn.
 * - Tool call arguments are parsed as JSON; when they are not a JSON object (not JSON at all, or
 *   JSON but not an object, which function arguments must be), `input` is the raw arguments TEXT,
 *   unparsed. So a string `input` always means "raw arguments": it is sent back verbatim when the
 *   conversation is replayed. Empty arguments (a call with no parameters, as some local servers
 *   send it) are `{}`. A call without an id (some local servers) gets
 *   `call_<first 16 hex of sha256(request + response)>_<index>`: unique in a conversation (each
 *   request holds the turns before it, so no two exchanges of one conversation are the same bytes)
 *   and re-derived by replay from the recorded exchange. (`call_<index>` alone repeated on every
 *   turn, so the next request sent two results under one id.)
 * - `finish_reason: "stop"` with tool calls in the turn (Ollama, some vLLM and llama.cpp versions)
 *   is a tool-use stop: the calls are the model's turn. `rawStopReason` keeps "stop".
 * - Chat completions have no error flag on a tool message: a `tool_result`'s `isError` is not sent
 *   (MCP error results carry their own text).
 * - Usage is asked for (`stream_options.include_usage` is sent). A stream without a usage chunk
 *   (servers that ignore the option) has `usage: null`, unknown, never 0 tokens; a usage chunk
 *   without prompt_tokens and completion_tokens is PROVIDER_ERROR (see _usage.ts). cached_tokens
 *   left out is 0; cache writes are never reported by this API, so 0.
 * - A request that gets no HTTP answer (refused, reset) is retried like a 5xx (see callWithRetries).
 * - No `countTokens`: the API has no token-counting endpoint.
 * - The SDK still adds headers from OPENAI_CUSTOM_HEADERS when that variable is set in process.env.
 */
export function openAiCompatibleProvider(options: HttpProviderOptions & { baseUrl: string }): Provider {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new McpctxError('INVALID_ARGUMENT', `maxRetries must be a whole number >= 0, got ${String(maxRetries)}`);
  }
  const target: HttpTarget = { api: baseUrl, maxRetries, fetch: options.fetch ?? globalThis.fetch };
  return {
    name: 'openai-compatible',
    baseUrl,
    chat: (request) => chat(request, baseUrl, target, options),
  };
}

async function chat(request: ChatRequest, baseUrl: string, target: HttpTarget, options: HttpProviderOptions): Promise<ChatResponse> {
  checkRequest(request, 'optional');
  const key = readKey(options);
  const body = requestBody(request);
  const { default: OpenAI } = await sdk.load();
  const { value, raw, attempts, timing, retried } = await callWithRetries(target, key, request.timeoutMs, async (io) => {
    const client = new OpenAI({
      baseURL: baseUrl,
      // The SDK insists on a key; without one the Authorization header is removed instead.
      apiKey: key ?? 'no-key',
      defaultHeaders: key === undefined ? { Authorization: null } : {},
      // Explicit, so that nothing is read from process.env behind the caller's back.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      logLevel: 'off',
      maxRetries: 0,
      fetch: io.fetch,
    });
    // Past the deadline, so that the call's one deadline decides (and says DEADLINE).
    const stream = await client.chat.completions.create(body, { signal: io.signal, timeout: io.remainingMs() + 1_000 });
    return readStream(stream, io, `${baseUrl}/chat/completions`, request.model);
  });
  return { ...value.result(callIdsOf(raw)), raw, attempts, timing, retries: retriedAttempts(retried, announcedOpenAiUsage) };
}

/** A key variable named is a key required; without one, OPENAI_API_KEY if set, else none (local servers). */
function readKey(options: HttpProviderOptions): string | undefined {
  const env = options.env ?? process.env;
  return options.apiKeyEnv === undefined ? readApiKey(env, DEFAULT_OPENAI_KEY_ENV, 'optional') : readApiKey(env, options.apiKeyEnv, 'required');
}

// ---- request ---------------------------------------------------------------------------------

/** The chat completions request body (exported so a receipt's recorded body can be re-derived). */
export function requestBody(request: ChatRequest): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== undefined) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) messages.push(...toMessages(message));
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.maxTokens,
  };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(
      (tool): ChatCompletionFunctionTool => ({
        type: 'function',
        function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.inputSchema },
      }),
    );
  }
  if (request.outputSchema !== undefined) {
    body.response_format = { type: 'json_schema', json_schema: { name: request.outputSchema.name, schema: request.outputSchema.schema, strict: true } };
  }
  return body;
}

function toMessages(message: ChatMessage): ChatCompletionMessageParam[] {
  const texts = message.content.flatMap((block): ChatCompletionContentPartText[] => (block.type === 'text' ? [{ type: 'text', text: block.text }] : []));
  const content = texts.length === 1 && texts[0] !== undefined ? texts[0].text : texts;
  if (message.role === 'assistant') {
    const toolCalls = message.content.flatMap((block): ChatCompletionMessageFunctionToolCall[] =>
      block.type === 'tool_use'
        ? [{ id: block.id, type: 'function', function: { name: block.name, arguments: typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {}) } }]
        : [],
    );
    return [{ role: 'assistant', ...(texts.length > 0 ? { content } : {}), ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }];
  }
  // Tool messages must follow the assistant's tool_calls directly, so they come before the user's text.
  const results: ChatCompletionMessageParam[] = message.content.flatMap((block): ChatCompletionMessageParam[] =>
    block.type === 'tool_result' ? [{ role: 'tool', tool_call_id: block.toolUseId, content: block.content }] : [],
  );
  if (texts.length > 0 || results.length === 0) results.push({ role: 'user', content: texts.length === 0 ? '' : content });
  return results;
}

// ---- response: assembling the stream ---------------------------------------------------------

/**
 * Reads the chunks into one turn. The SDK ends the iteration quietly when the request is aborted
 * and does not say whether `[DONE]` came, so both are checked afterwards (on the recorded text).
 */
async function readStream(stream: AsyncIterable<ChatCompletionChunk>, io: AttemptIo, endpoint: string, requestModel: string): Promise<TurnAssembly> {
  const providerError = (message: string, cause?: unknown): McpctxError =>
    new McpctxError('PROVIDER_ERROR', `${endpoint}: ${message}`, {}, cause === undefined ? undefined : { cause });
  const turn = new TurnAssembly(providerError, requestModel);
  try {
    for await (const chunk of stream) turn.add(chunk);
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    // The SDK error quotes the event's body; its words are kept, the error itself is not.
    if (isApiError(error)) throw providerError(`the stream reported an error: ${error.message}`);
    if (error instanceof SyntaxError) throw providerError(`an event of the stream is not JSON: ${error.message}`);
    throw providerError(`truncated stream (not retried: the model may have acted): ${causeChain(error)}`, error);
  }
  // The SDK ends the iteration quietly when the deadline aborts it; callWithRetries reports DEADLINE.
  if (io.signal.aborted) throw providerError('the stream ended at the deadline');
  checkStreamEnded(io.receivedText(), providerError);
  // Ids for calls that came without one are taken from the recorded exchange, known once the call returns.
  return turn;
}

/**
 * Ids for tool calls the server sent without one, from the exchange's recorded (key-scrubbed)
 * bytes, so that replaying the receipt derives the same ids (see the provider's doc).
 */
function callIdsOf(exchange: Pick<RawExchange, 'request' | 'response'>): (index: number) => string {
  const digest = sha256Hex(`${exchange.request}\n${exchange.response}`).slice(0, 16);
  return (index) => `call_${digest}_${index}`;
}

/** The recorded text must be an event stream that reached `data: [DONE]`. */
function checkStreamEnded(text: string, providerError: (message: string) => McpctxError): void {
  if (!/^data:/m.test(text)) throw providerError('the answer is not an event stream of chat.completion.chunk events');
  if (!/^data: ?\[DONE\]/m.test(text)) throw providerError('truncated stream: it ended before "data: [DONE]" (not retried: the model may have acted)');
}

/**
 * The same assembly over a recorded stream (`raw.response` of a streamed call), for receipts: the
 * events are read as the SDK reads them (nothing after `[DONE]`, every other event's data is JSON,
 * an event carrying `error` is the server's error) and the text must reach `[DONE]`, as live.
 * `requestModel` stands in when no chunk named the model, as it does live.
 */
/** The usage a recorded stream announced before it broke off (its usage chunk); null when none came in shape. */
export function announcedOpenAiUsage(text: string): Usage | null {
  const turn = new TurnAssembly((message) => new McpctxError('PROVIDER_ERROR', message), '');
  try {
    for (const event of recordedSseEvents(text)) {
      if (event.data.startsWith('[DONE]')) break;
      turn.add(JSON.parse(event.data));
    }
  } catch {
    // What came before the break stands.
  }
  return turn.usageSoFar ?? null;
}

export function replayOpenAiStream(text: string, request: string, requestModel: string): AssembledTurn {
  const providerError = (message: string): McpctxError => new McpctxError('PROVIDER_ERROR', `the recorded chat completions stream: ${message}`);
  const turn = new TurnAssembly(providerError, requestModel);
  for (const event of recordedSseEvents(text)) {
    if (event.data.startsWith('[DONE]')) break;
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      throw providerError(`an event of the stream is not JSON: ${event.data.slice(0, 200)}`);
    }
    if (isPlainObject(chunk) && Boolean(chunk.error)) throw providerError(`the stream reported an error: ${JSON.stringify(chunk.error).slice(0, 200)}`);
    turn.add(chunk);
  }
  checkStreamEnded(text, providerError);
  return turn.result(callIdsOf({ request, response: text }));
}

interface PendingCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/** One turn being assembled from chunks, in order; `requestModel` stands in when no chunk names the model. */
class TurnAssembly {
  private text = '';
  private refusal = '';
  private readonly calls = new Map<number, PendingCall>();
  private finishReason: string | null = null;
  /** From the usage chunk; undefined when none came (then the turn's usage is unknown, null). */
  private usage: Usage | undefined;
  private model: string | undefined;

  constructor(
    private readonly notInShape: ShapeError,
    private readonly requestModel: string,
  ) {}

  get usageSoFar(): Usage | undefined {
    return this.usage;
  }

  add(chunk: unknown): void {
    if (!isPlainObject(chunk) || !Array.isArray(chunk.choices)) throw this.notInShape(`an event is not a chat.completion.chunk: ${JSON.stringify(chunk).slice(0, 200)}`);
    if (typeof chunk.model === 'string' && chunk.model !== '' && this.model === undefined) this.model = chunk.model;
    // OpenAI sends `usage: null` on every chunk but the last.
    if (isPlainObject(chunk.usage)) this.usage = readUsage(chunk.usage, this.notInShape);
    for (const choice of chunk.choices as unknown[]) {
      if (!isPlainObject(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!isPlainObject(delta)) continue;
      if (typeof delta.content === 'string') this.text += delta.content;
      if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as unknown[]) this.addCallPiece(call);
    }
  }

  /** Arguments arrive in pieces, keyed by `index`; the first piece of a call carries its id and name. */
  private addCallPiece(piece: unknown): void {
    if (!isPlainObject(piece)) throw this.notInShape('a tool_calls delta is not an object');
    const fn = isPlainObject(piece.function) ? piece.function : {};
    const index = typeof piece.index === 'number' ? piece.index : typeof piece.id === 'string' || this.calls.size === 0 ? this.calls.size : this.calls.size - 1;
    const call = this.calls.get(index) ?? { id: undefined, name: '', arguments: '' };
    if (typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
    if (typeof fn.name === 'string') call.name += fn.name;
    if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
    this.calls.set(index, call);
  }

  /** `missingId` names a call the server sent without an id. */
  result(missingId: (index: number) => string): AssembledTurn {
    const content: ContentBlock[] = [];
    if (this.text !== '') content.push({ type: 'text', text: this.text });
    if (this.refusal !== '') content.push({ type: 'text', text: this.refusal });
    for (const [index, call] of [...this.calls].sort(([a], [b]) => a - b)) {
      content.push({ type: 'tool_use', id: call.id ?? missingId(index), name: call.name, input: parseArguments(call.arguments) });
    }
    const stopReason = this.refusal !== '' ? 'refusal' : stopReasonOf(this.finishReason, this.calls.size > 0);
    return { content, stopReason, rawStopReason: this.finishReason, usage: this.usage ?? null, model: this.model ?? this.requestModel };
  }
}

/** "stop" with tool calls is a tool-use stop (see the provider's doc): the calls must be answered. */
function stopReasonOf(finishReason: string | null, hasToolCalls: boolean): StopReason {
  switch (finishReason) {
    case 'stop':
      return hasToolCalls ? 'tool_use' : 'end_turn';
    case 'tool_calls':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
}

/** prompt_tokens and completion_tokens must be there; cached_tokens may be left out (servers without a cache). */
function readUsage(usage: Record<string, unknown>, notInShape: ShapeError): Usage {
  const details = isPlainObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const prompt = tokenCount(usage.prompt_tokens, 'usage.prompt_tokens', 'required', notInShape);
  const cached = tokenCount(details.cached_tokens, 'usage.prompt_tokens_details.cached_tokens', 'optional', notInShape);
  // prompt_tokens includes the cached ones; Usage counts them apart (see Usage).
  if (cached > prompt) throw notInShape(`usage.prompt_tokens_details.cached_tokens (${cached}) is more than prompt_tokens (${prompt})`);
  return {
    inputTokens: prompt - cached,
    outputTokens: tokenCount(usage.completion_tokens, 'usage.completion_tokens', 'required', notInShape),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** A JSON object, or the raw text when the arguments are not one (see the provider's doc). */
function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : text;
  } catch {
    return text;
  }
}
