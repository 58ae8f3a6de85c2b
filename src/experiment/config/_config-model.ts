/**
 * The `model` block of an experiment config, and the command-line flags that override it
 * (`--provider`, `--model`, ...), checked by the same rules.
 */
import { resolve } from 'node:path';
import { Problems, configError, type ConfigProblem } from '../../config/index.js';
import { credentialsInArgs, isEnvName } from '../../mcp/index.js';
import type { ProviderName } from '../../providers/index.js';
import type { ExperimentConfig, ModelSpec } from '../_types.js';

export const PROVIDER_NAMES: readonly ProviderName[] = ['scripted', 'anthropic', 'openai-compatible'];
export const DEFAULT_MAX_TOKENS = 1024;
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** The model id recorded for the scripted provider when the config names none. */
export const SCRIPTED_MODEL = 'scripted';

const MODEL_KEYS = ['provider', 'model', 'maxTokens', 'script', 'baseUrl', 'keyEnv', 'temperature', 'timeoutMs'] as const;

/** What the command line may change of the config's model. */
export interface ModelOverrides {
  provider?: string;
  model?: string;
  /** The scripted turns file; a relative path is resolved against `cwd`. */
  script?: string;
  baseUrl?: string;
  keyEnv?: string;
  maxTokens?: number;
}

/** The flag that sets each override, named in USAGE problems. */
export const MODEL_OVERRIDE_FLAGS: Readonly<Record<keyof ModelOverrides, string>> = {
  provider: '--provider',
  model: '--model',
  script: '--script',
  baseUrl: '--base-url',
  keyEnv: '--api-key-env',
  maxTokens: '--max-tokens',
};

/**
 * Checks a `model` block (absent: the scripted provider with every default). `script` is resolved
 * against `baseDir`. Settings that belong to another provider are problems, not ignored: a
 * `script` under anthropic or a `baseUrl` under scripted says the config is not what its author
 * thinks it is.
 */
export function parseModel(value: unknown, problems: Problems, baseDir: string): ModelSpec {
  const given = value === undefined ? {} : (problems.mapping(value, 'model', 'model settings') ?? {});
  problems.unknownKeys(given, MODEL_KEYS, 'model');
  let provider: ProviderName | undefined = 'scripted';
  if (given.provider !== undefined) {
    provider = PROVIDER_NAMES.find((name) => name === given.provider);
    if (provider === undefined) problems.add('model.provider', `must be one of ${PROVIDER_NAMES.join(', ')}`);
  }
  const scripted = provider === 'scripted';
  const model = problems.text(given.model, 'model.model', !scripted && provider !== undefined) ?? (scripted ? SCRIPTED_MODEL : '');
  const spec: ModelSpec = {
    provider: provider ?? 'scripted',
    model,
    maxTokens: problems.integer(given.maxTokens, 'model.maxTokens', 1, 200_000, DEFAULT_MAX_TOKENS),
    timeoutMs: problems.integer(given.timeoutMs, 'model.timeoutMs', 1_000, 600_000, DEFAULT_MODEL_TIMEOUT_MS),
  };
  if (given.temperature !== undefined) {
    const temperature = given.temperature;
    if (typeof temperature === 'number' && Number.isFinite(temperature) && temperature >= 0 && temperature <= 2) spec.temperature = temperature;
    else problems.add('model.temperature', 'must be a number from 0 to 2');
  }
  if (provider === undefined) return spec;

  if (scripted) {
    const script = problems.text(given.script, 'model.script', true);
    if (script !== undefined) spec.script = resolve(baseDir, script);
    for (const key of ['baseUrl', 'keyEnv'] as const) {
      if (given[key] !== undefined) problems.add(`model.${key}`, 'is not used by the scripted provider; remove it, or set provider to anthropic or openai-compatible');
    }
    return spec;
  }
  if (given.script !== undefined) problems.add('model.script', `belongs to the scripted provider, not ${provider}; remove it or set provider: scripted`);
  const baseUrl = checkBaseUrl(given.baseUrl, provider, problems);
  if (baseUrl !== undefined) spec.baseUrl = baseUrl;
  const keyEnv = checkKeyEnv(given.keyEnv, problems);
  if (keyEnv !== undefined) spec.keyEnv = keyEnv;
  return spec;
}

function checkBaseUrl(value: unknown, provider: ProviderName, problems: Problems): string | undefined {
  if (value === undefined) {
    if (provider === 'openai-compatible') problems.add('model.baseUrl', 'is required for provider openai-compatible (the server\'s /v1 URL, e.g. http://localhost:11434/v1 for Ollama)');
    return undefined;
  }
  if (typeof value === 'string' && URL.canParse(value)) {
    const protocol = new URL(value).protocol;
    if (protocol === 'http:' || protocol === 'https:') return value;
  }
  problems.add('model.baseUrl', 'must be an http:// or https:// URL');
  return undefined;
}

/**
 * The NAME of the variable holding the key. A value shaped like a key is refused without being
 * echoed: it may be the key, and the message may end up in a log or a receipt.
 */
function checkKeyEnv(value: unknown, problems: Problems): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    problems.add('model.keyEnv', 'must be the NAME of the environment variable that holds the API key');
    return undefined;
  }
  if (looksLikeKey(value)) {
    problems.add('model.keyEnv', 'looks like an API key itself; give the NAME of the variable that holds the key (e.g. ANTHROPIC_API_KEY), never the key');
    return undefined;
  }
  if (!isEnvName(value)) {
    problems.add('model.keyEnv', 'is not a variable name (letters, digits and _, not starting with a digit); give the NAME of the variable that holds the key');
    return undefined;
  }
  return value;
}

/**
 * Key shapes: `sk-...` (OpenAI, Anthropic), the well-known token shapes mcp knows, and a long
 * mixed-case run of letters and digits without `_`, which no one names a variable.
 */
function looksLikeKey(value: string): boolean {
  if (/^sk-/i.test(value) || credentialsInArgs([value]).length > 0) return true;
  return value.length >= 24 && !value.includes('_') && /[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value);
}

/**
 * The config with the command line's model settings applied, checked as the config's are. When
 * the provider changes, the config's model, script, baseUrl and keyEnv are not carried over (they
 * belong to the other provider); maxTokens, temperature and timeoutMs are. A problem is USAGE
 * naming the flag (e.g. `--provider openai-compatible` without `--base-url`).
 */
export function applyModelOverrides(config: ExperimentConfig, overrides: ModelOverrides, cwd: string = process.cwd()): ExperimentConfig {
  const raw: Record<string, unknown> = { ...config.model };
  if (overrides.provider !== undefined && overrides.provider !== config.model.provider) {
    for (const key of ['model', 'script', 'baseUrl', 'keyEnv'] as const) delete raw[key];
  }
  for (const key of Object.keys(MODEL_OVERRIDE_FLAGS) as (keyof ModelOverrides)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    raw[key] = key === 'script' && typeof value === 'string' ? resolve(cwd, value) : value;
  }
  const problems = new Problems();
  const model = parseModel(raw, problems, cwd);
  if (problems.list.length > 0) throw configError(problems.list.map((problem) => asFlagProblem(problem, overrides, config.file)), config.file, 'model settings for', 'USAGE');
  return { ...config, model };
}

function asFlagProblem(problem: ConfigProblem, overrides: ModelOverrides, file: string): ConfigProblem {
  const key = problem.path.replace(/^model\./, '') as keyof ModelOverrides;
  const flag = MODEL_OVERRIDE_FLAGS[key] as string | undefined;
  if (flag === undefined) return problem;
  if (overrides[key] !== undefined) return { path: flag, reason: problem.reason };
  return { path: flag, reason: `${problem.reason} (pass ${flag}, or set ${problem.path} in ${file})` };
}
