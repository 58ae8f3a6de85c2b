/**
 * API keys: read from an env variable the caller names (never a file or a flag), in one place, so
 * every provider and the up-front check in chooseProvider refuse a missing key with the same words.
 */
import { McpctxError } from '../errors/index.js';
import { ownValue } from '../json/index.js';

export const DEFAULT_ANTHROPIC_KEY_ENV = 'ANTHROPIC_API_KEY';
export const DEFAULT_OPENAI_KEY_ENV = 'OPENAI_API_KEY';

export type KeyEnv = Readonly<Record<string, string | undefined>>;

/**
 * The key in `env[variable]`. Required: an unset or empty variable is MISSING_KEY (data:
 * `{ variable }`, the name only). Optional: it is undefined, and no key is sent (local servers).
 */
export function readApiKey(env: KeyEnv, variable: string, need: 'required'): string;
export function readApiKey(env: KeyEnv, variable: string, need: 'optional'): string | undefined;
export function readApiKey(env: KeyEnv, variable: string, need: 'required' | 'optional'): string | undefined {
  const value = ownValue(env, variable);
  if (value !== undefined && value !== '') return value;
  if (need === 'optional') return undefined;
  throw new McpctxError('MISSING_KEY', `the API key variable ${variable} is unset or empty: export it (the key is read from the environment only, never from a file or a flag)`, {
    variable,
  });
}
