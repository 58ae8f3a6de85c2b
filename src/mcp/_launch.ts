import { setOwn } from '../json/index.js';

/** How to start a server over stdio. */
export interface LaunchSpec {
  command: string;
  args?: readonly string[];
  cwd?: string;
  /** Variables given to the server on top of the minimal base environment. */
  env?: Readonly<Record<string, string>>;
  /** Pass the caller's whole environment instead of the minimal base. Off unless asked. */
  inheritEnv?: boolean;
}

/** The only variables a server gets from the caller's environment by default. */
export const BASE_ENV_NAMES = Object.freeze(['PATH', 'HOME', 'USER', 'SHELL', 'TERM', 'LANG'] as const);

/**
 * The environment a launched server sees: the minimal base taken from `parentEnv`
 * (or all of it with `inheritEnv`), then the spec's own variables on top.
 */
export function childEnvironment(
  spec: Pick<LaunchSpec, 'env' | 'inheritEnv'>,
  parentEnv: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  const names = spec.inheritEnv ? Object.keys(parentEnv) : BASE_ENV_NAMES;
  for (const name of names) {
    const value = parentEnv[name];
    if (value !== undefined) setOwn(env, name, value);
  }
  return { ...env, ...spec.env };
}

/** A variable name a launch spec may set: letters, digits and `_`, not starting with a digit. */
export function isEnvName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/** Names of the variables the caller passed, sorted: what may be recorded (never values). */
export function passedEnvNames(spec: Pick<LaunchSpec, 'env'>): string[] {
  return Object.keys(spec.env ?? {}).sort();
}

// ---------------------------------------------------------------------------------------------
// Credentials in arguments. People pass keys on the command line (`--api-key sk-...`,
// `postgres://user:pass@host`), and a recorded launch would publish them. These rules find the
// values that look like credentials; what they miss, `--record-args` would publish anyway, so
// they err on the side of withholding.

/** Words that make a flag, variable or parameter name a credential's name (`--api-key`, `DB_PASSWORD`). */
const CREDENTIAL_WORDS = new Set([
  'apikey', 'auth', 'authorization', 'bearer', 'cookie', 'credential', 'credentials', 'key', 'pass', 'passphrase',
  'passwd', 'password', 'pat', 'pwd', 'secret', 'secrets', 'token', 'tokens',
]);

/** Well-known token shapes, found anywhere in an argument. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT
];
// OpenAI and Anthropic keys (`sk-...`, `sk-ant-...`); a package named `sk-...` is lower case and
// has no digits, a key has both cases and digits.
const SK_KEY = /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g;
const SCHEME_AUTH = /\b(?:Bearer|Basic|token)\s+([A-Za-z0-9._~+/=-]{8,})/gi;
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:([^\s/?#@]+)@/gi;
const QUERY_PARAM = /[?&]([^=&#\s]+)=([^&#\s]+)/g;
const JSON_MEMBER = /"((?:[^"\\]|\\.)+)"\s*:\s*"((?:[^"\\]|\\.)+)"/g;
const FLAG = /^--?[A-Za-z][\w.-]*$/;
const FLAG_WITH_VALUE = /^(--?[A-Za-z][\w.-]*)=([\s\S]+)$/;
const NAME_WITH_VALUE = /^([A-Za-z_][\w.-]*)=([\s\S]+)$/;
const HEADER = /^([A-Za-z][\w-]*)\s*:\s*(\S[\s\S]*)$/;

/** True when a flag, variable or parameter name is a credential's (`--api-key`, `GITHUB_TOKEN`, `clientSecret`). */
export function namesCredential(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  return words.some((word) => CREDENTIAL_WORDS.has(word));
}

/** Each argument's values that look like credentials (indexes into `args`), longest first per argument. */
export function credentialsInArgs(args: readonly string[]): Array<{ index: number; value: string }> {
  const found: Array<{ index: number; value: string }> = [];
  args.forEach((arg, index) => {
    const values = new Set<string>();
    const previous = index > 0 ? args[index - 1] : undefined;
    if (previous !== undefined && FLAG.test(previous) && namesCredential(previous) && !arg.startsWith('--')) values.add(arg);
    const assignment = FLAG_WITH_VALUE.exec(arg) ?? NAME_WITH_VALUE.exec(arg) ?? HEADER.exec(arg);
    if (assignment?.[1] !== undefined && assignment[2] !== undefined && namesCredential(assignment[1])) values.add(assignment[2]);
    for (const shape of TOKEN_SHAPES) for (const [token] of arg.matchAll(shape)) values.add(token);
    for (const [key] of arg.matchAll(SK_KEY)) if (/[A-Z]/.test(key) && /[a-z]/.test(key) && /\d/.test(key)) values.add(key);
    for (const [, token] of arg.matchAll(SCHEME_AUTH)) if (token !== undefined) values.add(token);
    for (const [, password] of arg.matchAll(URL_PASSWORD)) if (password !== undefined) values.add(password);
    for (const pattern of [QUERY_PARAM, JSON_MEMBER]) {
      for (const [, name, value] of arg.matchAll(pattern)) if (name !== undefined && value !== undefined && namesCredential(name)) values.add(value);
    }
    for (const value of [...values].sort((a, b) => b.length - a.length)) found.push({ index, value });
  });
  return found;
}

/** What is recorded of a server's arguments: every value that looks like a credential replaced by `[redacted]`. */
export function redactArgs(args: readonly string[]): { args: string[]; redacted: number } {
  const recorded = [...args];
  const changed = new Set<number>();
  for (const { index, value } of credentialsInArgs(args)) {
    const arg = recorded[index] ?? '';
    const replaced = arg.split(value).join('[redacted]');
    if (replaced !== arg) changed.add(index);
    recorded[index] = replaced;
  }
  return { args: recorded, redacted: changed.size };
}
