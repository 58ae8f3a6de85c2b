/**
 * `verifyReceipt`'s check that each model request a question records is the one the run must have
 * sent: rebuilt by the provider's own request code from the run settings (model, system prompt,
 * max tokens, temperature), the tools the question's server offered, the question, and every
 * earlier turn with the tool results the model was given, then held against the recorded body.
 * So a dropped turn, a rewritten question, system prompt, tool list or max_tokens shows where the
 * chain breaks, even when every hash beside it was recomputed.
 */
import { sentRequestBody, type ChatMessage, type ChatRequest, type ProviderName } from '../../providers/index.js';
import type { Problems } from './_verify-compare.js';
import type { ExperimentReceipt, QuestionRecord } from '../_types.js';

/** The run settings a request is built from, as the receipt records them, and the tools the question's condition names (null: every tool listed). */
export type RequestSettings = Pick<NonNullable<ExperimentReceipt['model']>, 'model' | 'system' | 'maxTokens' | 'temperature'> & { offered: readonly string[] | null | undefined };

const SENT_VS_RECEIPT = { recorded: 'sent', recomputed: 'the receipt makes' };

/** Each turn's `raw.request` against the body re-derived from the settings and the turns before it. */
export function verifyRequests(question: QuestionRecord, path: string, provider: ProviderName, settings: RequestSettings, problems: Problems): void {
  if (question.server !== undefined && Array.isArray(settings.offered)) {
    // The condition names its tools: the server record offers exactly those, in that order.
    problems.compare(`${path}.server.tools`, question.server.tools.map((tool) => tool.name), settings.offered, { recorded: 'offers', recomputed: `config.conditions.${question.condition}.tools names` });
  }
  if (question.turns.length === 0) return;
  if (question.server === undefined) {
    problems.add(`${path}.server: absent, so the tools its requests offered cannot be re-derived`);
    return;
  }
  const messages: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: question.question }] }];
  question.turns.forEach((turn, index) => {
    const turnPath = `${path}.turns[${index}]`;
    problems.guard(`${turnPath}.raw.request`, () => {
      const request: ChatRequest = {
        model: settings.model,
        system: settings.system,
        messages,
        tools: question.server?.tools ?? [],
        maxTokens: settings.maxTokens,
        ...(settings.temperature === null ? {} : { temperature: settings.temperature }),
      };
      let sent: unknown;
      try {
        sent = JSON.parse(turn.raw.request);
      } catch {
        problems.add(`${turnPath}.raw.request: the recorded body is not JSON, so it cannot be held against the request the receipt makes`);
        return;
      }
      problems.compare(`${turnPath}.raw.request`, sent, sentRequestBody(provider, request), SENT_VS_RECEIPT);
    });
    messages.push({ role: 'assistant', content: turn.content });
    messages.push({ role: 'user', content: turn.tools.map((call) => ({ type: 'tool_result', toolUseId: call.toolUseId, content: call.modelFacingText, isError: call.isError })) });
  });
}
