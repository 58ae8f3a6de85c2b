import type { ChatRequest, ChatResponse, ProviderTool } from '../providers/index.js';
import type { ModelSettings, ProtocolName, RoutingTool } from './_types.js';

/** The constrained choice's answer when no offered tool fits. */
export const NONE_OF_THESE = 'none_of_these';
/** The name of the constrained choice's output schema. */
export const CHOICE_SCHEMA_NAME = 'tool_choice';

// The instructions are the same for every condition, so what changes between two conditions is
// only the catalog. They say a text answer is allowed: a model that declines is measured, not forced.
const NATIVE_SYSTEM =
  'You are an assistant with tools. When one of your tools answers the user\'s request, call that tool. If none of them fits, answer in text without calling a tool.';
const CHOICE_SYSTEM_HEAD =
  `You route requests to tools. Pick the one tool below that answers the user's request, or ${NONE_OF_THESE} if none of them fits. Answer with JSON {"tool": "<name>"}.\n\nTools:`;

/** A tool as a provider's tools field takes it: name, description, input schema; nothing else. */
export function providerTool(tool: RoutingTool): ProviderTool {
  return { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: { ...tool.inputSchema } };
}

/** The constrained choice's catalog: one line per tool, its name and its description only. */
export function choiceListing(tools: readonly RoutingTool[]): string {
  return tools.map((tool) => `- ${tool.name}: ${(tool.description ?? '').replace(/\s+/g, ' ').trim()}`).join('\n');
}

/** The output schema of the constrained choice: one of the offered names, or none_of_these. */
export function choiceSchema(names: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: { tool: { type: 'string', enum: [...names, NONE_OF_THESE] } },
    required: ['tool'],
    additionalProperties: false,
  };
}

/**
 * The chat request of one protocol for one request and the tools it is offered, in the order
 * given. Native and retrieval put the tools in the provider's tools field (retrieval offers only
 * the retriever's top k); the constrained choice lists names and descriptions in the system
 * prompt and restricts the answer to those names plus `none_of_these` with an output schema.
 */
export function chatRequestFor(protocol: ProtocolName, model: string, text: string, tools: readonly RoutingTool[], settings: ModelSettings): ChatRequest {
  const common = {
    model,
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text }] }],
    maxTokens: settings.maxTokens,
    timeoutMs: settings.timeoutMs,
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
  };
  if (protocol === 'constrained') {
    return {
      ...common,
      system: `${CHOICE_SYSTEM_HEAD}\n${choiceListing(tools)}`,
      outputSchema: { name: CHOICE_SCHEMA_NAME, schema: choiceSchema(tools.map((tool) => tool.name)) },
    };
  }
  return { ...common, system: NATIVE_SYSTEM, tools: tools.map(providerTool) };
}

/** The text whose o200k tokens are a protocol's catalog: the tools field's JSON, or the choice listing. */
export function renderedCatalog(protocol: ProtocolName, tools: readonly RoutingTool[]): string {
  return protocol === 'constrained' ? choiceListing(tools) : JSON.stringify(tools.map(providerTool));
}

/** What the model chose: a tool name, or null for no tool; `invalid` when a constrained answer is not one of its names. */
export interface Choice {
  readonly chosen: string | null;
  readonly invalid: boolean;
}

/**
 * Reads the model's choice from its answer. Native and retrieval: the first tool call's name, or
 * null when it answered in text only (no tool call, which is not a wrong tool). Constrained: the
 * `tool` of the JSON answer, null for `none_of_these`; an answer that is not such JSON, or names a
 * tool not offered, is `invalid` and counts as no choice.
 */
export function readChoice(protocol: ProtocolName, response: Pick<ChatResponse, 'content'>, offered: readonly string[]): Choice {
  if (protocol !== 'constrained') {
    const call = response.content.find((block) => block.type === 'tool_use');
    return { chosen: call?.type === 'tool_use' ? call.name : null, invalid: false };
  }
  const text = response.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  let answer: unknown;
  try {
    answer = JSON.parse(text) as unknown;
  } catch {
    return { chosen: null, invalid: true };
  }
  const tool = typeof answer === 'object' && answer !== null && !Array.isArray(answer) ? (answer as Record<string, unknown>).tool : undefined;
  if (tool === NONE_OF_THESE) return { chosen: null, invalid: false };
  if (typeof tool === 'string' && offered.includes(tool)) return { chosen: tool, invalid: false };
  return { chosen: null, invalid: true };
}

/**
 * Server-reported time to the first token, where the API reports one: llama.cpp's server puts
 * `timings.prompt_ms` (the prefill) in its last stream chunk. Anthropic and Ollama's
 * OpenAI-compatible API report none: null, never a client-side guess.
 */
export function reportedFirstTokenMs(rawResponse: string): number | null {
  for (const line of rawResponse.split('\n')) {
    if (!line.startsWith('data:') || !line.includes('"timings"')) continue;
    try {
      const event = JSON.parse(line.slice(5).trim()) as { timings?: { prompt_ms?: unknown } };
      const value = event.timings?.prompt_ms;
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value * 1000) / 1000;
    } catch {
      // Not JSON: not a timings chunk.
    }
  }
  return null;
}
