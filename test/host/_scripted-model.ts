// A scripted model for the AI SDK's generateText: MockLanguageModelV4 (the SDK's own test model)
// whose next move is decided from what it was sent, so a test reads exactly what reached the model
// (each call's prompt and tool list) and the walk through read_result follows the model's copy only.
import { MockLanguageModelV4 } from 'ai/test';

type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt'];

/** A tool result as the model received it: the output's type and its text. */
export interface ReceivedResult {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly type: string;
  readonly text: string;
}

export type Move = { readonly call: string; readonly input: Record<string, unknown> } | { readonly answer: string };

/** What the model reads in one tool-result output (text parts joined, JSON as its text). */
export function outputText(output: unknown): { type: string; text: string } {
  const value = output as { type: string; value?: unknown };
  switch (value.type) {
    case 'text':
    case 'error-text':
      return { type: value.type, text: String(value.value) };
    case 'content':
      return { type: value.type, text: (value.value as Array<{ type: string; text?: string }>).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n\n') };
    default:
      return { type: value.type, text: JSON.stringify(value.value) ?? '' };
  }
}

/** Every tool result in a prompt, oldest first. */
export function receivedResults(prompt: Prompt): ReceivedResult[] {
  return prompt.flatMap((message) =>
    message.role !== 'tool'
      ? []
      : message.content.flatMap((part) => (part.type === 'tool-result' ? [{ toolCallId: part.toolCallId, toolName: part.toolName, ...outputText(part.output) }] : [])),
  );
}

/** Tool calls without a result in the same prompt: what a provider rejects. */
export function unpairedCalls(prompt: Prompt): string[] {
  const results = new Set(receivedResults(prompt).map((result) => result.toolCallId));
  return prompt.flatMap((message) =>
    message.role !== 'assistant' || typeof message.content === 'string'
      ? []
      : message.content.flatMap((part) => (part.type === 'tool-call' && !results.has(part.toolCallId) ? [part.toolCallId] : [])),
  );
}

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/**
 * A model that makes `decide`'s move each step: `decide` sees the newest tool result it was sent
 * (undefined on the first step) and the step number. At most `maxSteps` moves, so a wrong walk ends.
 */
export function scriptedModel(decide: (latest: ReceivedResult | undefined, step: number) => Move, maxSteps = 60): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const results = receivedResults(prompt);
      const move = step >= maxSteps ? { answer: 'gave up' } : decide(results[results.length - 1], step);
      step += 1;
      if ('answer' in move) return { content: [{ type: 'text', text: move.answer }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: move.call, input: JSON.stringify(move.input) }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}
