/**
 * One interface over model providers (Anthropic Messages, OpenAI-compatible chat completions, a
 * scripted provider for tests and demos): a chat turn with native tool use, an optional output
 * JSON schema, usage, the stop reason, and the exact bytes sent and received, for receipts. API
 * keys are read from an env variable named by the caller and never appear in a request record, a
 * response record, an error or a log.
 */

/** A tool offered to the model natively (the provider's tools field). */
export interface ProviderTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (MCP's `inputSchema`). */
  inputSchema: Record<string, unknown>;
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };

/**
 * A message of the conversation. Every `tool_use` of an assistant message must be answered by a
 * `tool_result` with its id in the next user message, and a `tool_result` must answer a `tool_use`
 * of the message before: providers refuse a conversation that breaks this (INVALID_ARGUMENT)
 * before anything is sent.
 */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface ChatRequest {
  model: string;
  system?: string;
  messages: ChatMessage[];
  tools?: ProviderTool[];
  /** Constrain the answer to this JSON schema (structured output, `response_format`). */
  outputSchema?: { name: string; schema: Record<string, unknown> };
  maxTokens: number;
  temperature?: number;
  /** Hard deadline for the whole call, retries included, in ms. Default 120,000. */
  timeoutMs?: number;
}

/** Normalized stop reasons; `rawStopReason` keeps the provider's own word. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'other';

/**
 * Token usage in one meaning across providers (Anthropic's): `inputTokens` are the prompt tokens
 * neither read from nor written to a prompt cache, so input + cacheRead + cacheWrite is the whole
 * prompt. (OpenAI-compatible APIs count cached tokens inside `prompt_tokens`; they are moved out.)
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** What was sent and received, byte for byte (the last attempt), for receipts. Never a key or an auth header. */
export interface RawExchange {
  url: string;
  /** The request body as sent. */
  request: string;
  /** The response body as received (for a stream, the whole event stream). */
  response: string;
  status: number;
}

/** When one HTTP attempt happened, as the client saw it (ISO times, ms precision). */
export interface ExchangeTiming {
  /** The request went out. */
  startedAt: string;
  /** The first byte of the response body arrived; null when none did. */
  firstByteAt: string | null;
  /** The attempt ended: its answer read whole, or it failed (a cut stream, a refusal, the deadline). */
  endedAt: string | null;
}

/**
 * An attempt of a call that was retried (an answer with 408/409/429/5xx, or none at all): its
 * bytes as sent and as received (key scrubbed), their sha256s, the usage its body announced
 * (null when none: an error body usually announces none) and its timing. Billing may count it.
 */
export interface RetriedAttempt {
  raw: RawExchange;
  rawRequestSha256: string;
  rawResponseSha256: string;
  announcedUsage: Usage | null;
  timing: ExchangeTiming;
}

export interface ChatResponse {
  /** Text and tool_use blocks, in order. */
  content: ContentBlock[];
  stopReason: StopReason;
  rawStopReason: string | null;
  /**
   * null when the API reported no usage at all (an OpenAI-compatible server that ignores
   * `stream_options.include_usage`): the tokens are unknown, never 0. A usage reported in part or
   * malformed is still PROVIDER_ERROR (see _usage.ts).
   */
  usage: Usage | null;
  /** The model the provider says answered. */
  model: string;
  raw: RawExchange;
  /** HTTP attempts made (1 without retries). */
  attempts: number;
  /** When the attempt that answered went out, its first byte came and it ended (scripted: first byte = end). */
  timing: ExchangeTiming;
  /** The attempts before the one that answered, in order (attempts − 1 of them). */
  retries: RetriedAttempt[];
}

/** A turn as a provider's assembly reads it from the answer (live or recorded): a ChatResponse without the HTTP record. */
export type AssembledTurn = Omit<ChatResponse, 'raw' | 'attempts' | 'timing' | 'retries'>;

export type ProviderName = 'anthropic' | 'openai-compatible' | 'scripted';

export interface Provider {
  readonly name: ProviderName;
  /** The API base URL used (recorded in receipts); null for the scripted provider. */
  readonly baseUrl: string | null;
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** Input tokens the request would cost, where the API can count them (Anthropic's count_tokens). */
  countTokens?(request: Omit<ChatRequest, 'maxTokens'>): Promise<{ inputTokens: number; raw: RawExchange }>;
}

/** Settings shared by the HTTP providers. */
export interface HttpProviderOptions {
  /** Default: the vendor's public API (Anthropic), or required (OpenAI-compatible). */
  baseUrl?: string;
  /** NAME of the env variable holding the API key (never the key). */
  apiKeyEnv?: string;
  /** Where the key is read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Retries after the first attempt on 408/409/429/5xx (Anthropic's 529 included). Default 3. */
  maxRetries?: number;
  /** fetch to use (tests); default globalThis.fetch. */
  fetch?: typeof fetch;
}
