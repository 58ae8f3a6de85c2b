// The Claude divergence counter both measure and sweep use: Anthropic's count_tokens for a
// one-token message with the projected tools (or none), the key from a named env variable.
import { McpctxError } from '../errors/index.js';
import type { ClaudeTokenCounter } from '../measure/index.js';
import type { Provider } from '../providers/index.js';
import type { CliIo } from './_io.js';
import { ownValue } from '../json/index.js';

export const DEFAULT_CLAUDE_KEY_ENV = 'ANTHROPIC_API_KEY';

export interface ClaudeFlags {
  claudeModel?: string;
  claudeKeyEnv: string;
  claudeBaseUrl?: string;
}

/** The counter for `--claude-model`; refuses (USAGE, naming the variable) when the key is unset, before anything is measured. */
export function claudeCounter(model: string, flags: ClaudeFlags, io: CliIo): ClaudeTokenCounter {
  const count = countTokensClient(model, flags, io);
  return (tools) =>
    count({
      messages: [{ role: 'user', content: [{ type: 'text', text: '.' }] }],
      ...(tools === undefined
        ? {}
        : { tools: tools.map((tool) => ({ name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: tool.input_schema as Record<string, unknown> })) }),
    });
}

/** A request to count_tokens, less the model. */
export type CountTokensRequest = Omit<Parameters<NonNullable<Provider['countTokens']>>[0], 'model'>;

/**
 * Anthropic's count_tokens for `model` (the key from the variable `flags.claudeKeyEnv`, checked
 * now: USAGE naming the variable when it is unset), answering input_tokens. The provider loads at
 * the first count.
 */
export function countTokensClient(model: string, flags: ClaudeFlags, io: CliIo): (request: CountTokensRequest) => Promise<number> {
  const keyEnv = flags.claudeKeyEnv;
  const key = ownValue(io.env, keyEnv);
  if (key === undefined || key === '') {
    throw new McpctxError('USAGE', `--claude-model needs an Anthropic API key in the environment variable ${keyEnv}${keyEnv === DEFAULT_CLAUDE_KEY_ENV ? ' (or the one --claude-key-env names)' : ''}; it is unset or empty`, { variable: keyEnv });
  }
  // The providers load at the first count, not with every `measure` and `sweep`.
  let provider: Promise<Provider> | undefined;
  const anthropic = (): Promise<Provider> =>
    (provider ??= import('../providers/index.js').then(({ anthropicProvider }) =>
      anthropicProvider({ apiKeyEnv: keyEnv, env: io.env, ...(flags.claudeBaseUrl === undefined ? {} : { baseUrl: flags.claudeBaseUrl }) }),
    ));
  return async (request) => {
    const counter = await anthropic();
    if (counter.countTokens === undefined) throw new McpctxError('INVALID_ARGUMENT', 'the Anthropic provider has no countTokens');
    const counted = await counter.countTokens({ model, ...request });
    return counted.inputTokens;
  };
}
