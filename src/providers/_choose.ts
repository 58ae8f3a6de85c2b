/**
 * The provider a command names (`--provider`, or an experiment config's `model`), built with its
 * settings. Keys are checked here, before any call, so a missing key stops a run at its start
 * (MISSING_KEY naming the variable), never halfway through it.
 */
import { McpctxError } from '../errors/index.js';
import { anthropicProvider } from './_anthropic.js';
import { openAiCompatibleProvider } from './_openai.js';
import { DEFAULT_ANTHROPIC_KEY_ENV, readApiKey } from './_keys.js';
import { scriptedProvider } from './_scripted.js';
import type { Provider, ProviderName } from './_types.js';

export interface ProviderChoice {
  provider: ProviderName;
  /** scripted: the turns file (absolute, or relative to the process's folder). */
  script?: string;
  /** HTTP providers: the API base URL (required for openai-compatible). */
  baseUrl?: string;
  /** HTTP providers: the NAME of the env variable holding the key. */
  keyEnv?: string;
}

export function chooseProvider(choice: ProviderChoice, env: Readonly<Record<string, string | undefined>>): Provider {
  switch (choice.provider) {
    case 'scripted':
      if (choice.script === undefined) throw new McpctxError('USAGE', 'the scripted provider needs --script FILE (its recorded turns)');
      return scriptedProvider(choice.script);
    case 'anthropic': {
      const keyEnv = choice.keyEnv ?? DEFAULT_ANTHROPIC_KEY_ENV;
      readApiKey(env, keyEnv, 'required');
      return anthropicProvider({ apiKeyEnv: keyEnv, env, ...(choice.baseUrl === undefined ? {} : { baseUrl: choice.baseUrl }) });
    }
    case 'openai-compatible':
      if (choice.baseUrl === undefined) throw new McpctxError('USAGE', 'the openai-compatible provider needs --base-url URL (e.g. http://127.0.0.1:11434/v1 for Ollama)');
      // Local servers (Ollama, llama.cpp) take no key; a key variable named is a key required.
      if (choice.keyEnv !== undefined) readApiKey(env, choice.keyEnv, 'required');
      return openAiCompatibleProvider({ baseUrl: choice.baseUrl, env, ...(choice.keyEnv === undefined ? {} : { apiKeyEnv: choice.keyEnv }) });
  }
}
