// Model providers behind one interface (`Provider`): Anthropic Messages, OpenAI-compatible chat
// completions (Ollama, vLLM, llama.cpp server) and a scripted provider for offline runs.
export { checkConversation } from './_conversation.js';
export type {
  ChatMessage,
  ChatRequest,
  ChatResponse,
  ContentBlock,
  ExchangeTiming,
  HttpProviderOptions,
  Provider,
  ProviderName,
  ProviderTool,
  RawExchange,
  RetriedAttempt,
  StopReason,
  Usage,
} from './_types.js';
export { anthropicProvider } from './_anthropic.js';
export { openAiCompatibleProvider } from './_openai.js';
export { recordTurn, requestKey, scriptedProvider, type ScriptedTurn, type ScriptedTurns } from './_scripted.js';
export { announcedUsage, replayResponse, sentRequestBody, sentToolResults, type ReplayedTurn, type SentToolResult } from './_replay.js';
export { chooseProvider, type ProviderChoice } from './_choose.js';
