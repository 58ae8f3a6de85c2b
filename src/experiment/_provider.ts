/**
 * The provider a config names. Keys are checked here, before the first question, so a missing key
 * is a failure of the run's start (recorded with its stage), never of a question halfway through.
 */
import { McpctxError } from '../errors/index.js';
import { anthropicProvider, openAiCompatibleProvider, scriptedProvider, type Provider } from '../providers/index.js';
import type { ModelSpec } from './_types.js';

export const DEFAULT_ANTHROPIC_KEY_ENV = 'ANTHROPIC_API_KEY';

export function providerFor(model: ModelSpec, env: Readonly<Record<string, string | undefined>>): Provider {
  switch (model.provider) {
    case 'scripted':
      if (model.script === undefined) {
        throw new McpctxError('USAGE', 'the scripted provider needs a turns file: set model.script in the config, or pass --script FILE');
      }
      return scriptedProvider(model.script);
    case 'anthropic': {
      const keyEnv = model.keyEnv ?? DEFAULT_ANTHROPIC_KEY_ENV;
      requireKey(keyEnv, env);
      return anthropicProvider({ apiKeyEnv: keyEnv, env, ...(model.baseUrl === undefined ? {} : { baseUrl: model.baseUrl }) });
    }
    case 'openai-compatible':
      if (model.baseUrl === undefined) {
        throw new McpctxError('USAGE', 'the openai-compatible provider needs a base URL: set model.baseUrl in the config, or pass --base-url URL');
      }
      // Local servers (Ollama, llama.cpp) take no key; a key variable named is a key required.
      if (model.keyEnv !== undefined) requireKey(model.keyEnv, env);
      return openAiCompatibleProvider({ baseUrl: model.baseUrl, env, ...(model.keyEnv === undefined ? {} : { apiKeyEnv: model.keyEnv }) });
  }
}

function requireKey(name: string, env: Readonly<Record<string, string | undefined>>): void {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new McpctxError('MISSING_KEY', `the API key variable ${name} is unset or empty: export it (the key is read from the environment only, never from a file or a flag)`, {
      variable: name,
    });
  }
}
