import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, setOwn } from '../json/index.js';
import { BASE_ENV_NAMES, credentialsInArgs, type LaunchSpec } from './_launch.js';

/**
 * Env values passed to a server must never leave the process. Diagnostic text (stderr, notes,
 * arguments) is scrubbed of every value of 3+ characters; shorter ones ("1", "on") are not secrets
 * and scrubbing them would shred the text. The catalog itself is scrubbed only of values of 8+
 * characters: short values ("info", "8080") would turn ordinary schema text into redactions,
 * while keys and tokens are long.
 */
export const MIN_SECRET_CHARS = 3;
export const MIN_CAPTURE_SECRET_CHARS = 8;

interface Secret {
  name: string;
  /** One written form of the value: as is, JSON-escaped, or URL-encoded. */
  form: string;
}

/**
 * Replaces secret values with `[redacted:NAME]` wherever they appear, in every form a server is
 * likely to write them: as is, escaped inside JSON text (`s3cr3t"pa\ss` as `s3cr3t\"pa\\ss`,
 * non-ASCII also as `\u00e9`), and URL-encoded (`a b&c` as `a%20b%26c` or `a+b%26c`).
 */
export class Redactor {
  private secrets: Secret[];

  /** `env`: name to value (or name/value pairs, when names repeat); values shorter than `minChars` are left alone. */
  constructor(
    env: Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]> | undefined,
    minChars: number = MIN_SECRET_CHARS,
  ) {
    const entries = Array.isArray(env) ? (env as ReadonlyArray<readonly [string, string]>) : Object.entries(env ?? {});
    const byForm = new Map<string, string>(); // the first name that holds a form names it
    for (const [name, value] of entries) {
      if (value.length < minChars) continue;
      for (const form of writtenForms(value)) if (!byForm.has(form)) byForm.set(form, name);
    }
    // Longest first, so a value containing another is replaced whole.
    this.secrets = [...byForm].map(([form, name]) => ({ name, form })).sort((a, b) => b.form.length - a.form.length);
  }

  /**
   * Every secret a launched server holds: the spec's `env` values; with `inheritEnv`, every value
   * of `parentEnv` too, except the base variables (PATH, HOME, USER, SHELL, TERM, LANG), which
   * every server gets in every mode and which would turn ordinary paths into redactions; and the
   * values of `args` that look like credentials (named `arg<index>`).
   */
  static forLaunch(
    spec: Pick<LaunchSpec, 'env' | 'inheritEnv' | 'args'>,
    parentEnv: NodeJS.ProcessEnv = process.env,
    minChars: number = MIN_SECRET_CHARS,
  ): Redactor {
    const entries: Array<[string, string]> = [];
    if (spec.inheritEnv) {
      const base = new Set<string>(BASE_ENV_NAMES);
      for (const [name, value] of Object.entries(parentEnv)) {
        if (value !== undefined && !base.has(name) && !(spec.env && Object.hasOwn(spec.env, name))) entries.push([name, value]);
      }
    }
    entries.push(...Object.entries(spec.env ?? {}));
    for (const { index, value } of credentialsInArgs(spec.args ?? [])) entries.push([`arg${index}`, value]);
    return new Redactor(entries, minChars);
  }

  /** Replaces every secret in `text` with `[redacted:NAME]`. */
  text(text: string): string {
    let result = text;
    for (const { name, form } of this.secrets) {
      if (result.includes(form)) result = result.split(form).join(`[redacted:${name}]`);
    }
    return result;
  }

  /** Adds a secret learned after construction (an access token fetched or refreshed mid-session). */
  learn(name: string, value: string, minChars: number = MIN_SECRET_CHARS): void {
    if (value.length < minChars) return;
    const known = new Set(this.secrets.map(({ form }) => form));
    const added = writtenForms(value).filter((form) => !known.has(form)).map((form) => ({ name, form }));
    if (added.length > 0) this.secrets = [...this.secrets, ...added].sort((a, b) => b.form.length - a.form.length);
  }

  /** Names of the secrets `text` holds, sorted. */
  secretsIn(text: string): string[] {
    const names = new Set<string>();
    for (const { name, form } of this.secrets) if (text.includes(form)) names.add(name);
    return [...names].sort();
  }

  /**
   * Deep copy of a JSON value with every string (and key) scrubbed; counts the strings replaced
   * and names the secrets found. Refuses (`NESTING_TOO_DEEP`) a value nested deeper than
   * MAX_JSON_DEPTH: the copy recurses.
   */
  json(value: unknown): { value: unknown; replaced: number; names: string[] } {
    if (nestsDeeperThan(value)) {
      throw new McpctxError('NESTING_TOO_DEEP', `cannot redact a value nested deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`, {
        limit: MAX_JSON_DEPTH,
      });
    }
    let replaced = 0;
    const names = new Set<string>();
    const scrub = (text: string): string => {
      const clean = this.text(text);
      if (clean !== text) {
        replaced += 1;
        for (const name of this.secretsIn(text)) names.add(name);
      }
      return clean;
    };
    const walk = (node: unknown): unknown => {
      if (typeof node === 'string') return scrub(node);
      if (Array.isArray(node)) return node.map(walk);
      if (typeof node === 'object' && node !== null) {
        const copy: Record<string, unknown> = {};
        for (const [key, child] of Object.entries(node)) {
          // Defined: a parsed "__proto__" key is an own property and must stay one.
          setOwn(copy, scrub(key), walk(child));
        }
        return copy;
      }
      return node;
    };
    const result = walk(value);
    return { value: result, replaced, names: [...names].sort() };
  }

  get isEmpty(): boolean {
    return this.secrets.length === 0;
  }

  /** UTF-8 bytes of the longest form scrubbed: how much a window must overlap to catch it whole. */
  get longestSecretBytes(): number {
    return Math.max(0, ...this.secrets.map(({ form }) => Buffer.byteLength(form, 'utf8')));
  }

  /**
   * Scrubs a window cut out of a longer stream. Whole values are replaced; a value cut by either
   * edge of the window leaves a piece that `text()` cannot see, so a window that starts with the
   * end of a value, or ends with the start of one, loses that piece as well.
   */
  window(text: string, { cutAtStart }: { cutAtStart: boolean }): string {
    let result = this.text(text);
    for (const { name, form } of this.secrets) {
      if (cutAtStart) {
        const piece = longestSuffixAtStart(result, form);
        if (piece >= MIN_SECRET_CHARS) result = `[redacted:${name}]${result.slice(piece)}`;
      }
      const piece = longestPrefixAtEnd(result, form);
      if (piece >= MIN_SECRET_CHARS) result = `${result.slice(0, result.length - piece)}[redacted:${name}]`;
    }
    return result;
  }
}

/** The forms a value takes in text a server writes: as is, JSON-escaped, URL-encoded. */
function writtenForms(value: string): string[] {
  const forms = [value, JSON.stringify(value).slice(1, -1), asciiJson(value)];
  let encoded: string | undefined;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    encoded = undefined; // a lone surrogate has no URL form
  }
  if (encoded !== undefined) {
    const form = encoded.replace(/%20/g, '+');
    const lower = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
    forms.push(encoded, form, lower(encoded), lower(form));
  }
  return [...new Set(forms)];
}

/** JSON string content with every non-ASCII character as `\uXXXX` (Python's json.dumps default). */
function asciiJson(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Length of the longest proper suffix of `value` that `text` starts with. */
function longestSuffixAtStart(text: string, value: string): number {
  for (let length = Math.min(value.length - 1, text.length); length > 0; length -= 1) {
    if (text.startsWith(value.slice(value.length - length))) return length;
  }
  return 0;
}

/** Length of the longest proper prefix of `value` that `text` ends with. */
function longestPrefixAtEnd(text: string, value: string): number {
  for (let length = Math.min(value.length - 1, text.length); length > 0; length -= 1) {
    if (text.endsWith(value.slice(0, length))) return length;
  }
  return 0;
}
