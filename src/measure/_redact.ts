/**
 * Env values passed to a server must never leave the process. Diagnostic text (stderr, notes,
 * arguments) is scrubbed of every value of 3+ characters; shorter ones ("1", "on") are not secrets
 * and scrubbing them would shred the text. The catalog itself is scrubbed only of values of 8+
 * characters: short values ("info", "8080") would turn ordinary schema text into redactions and
 * change the count, while keys and tokens are long.
 */
export const MIN_SECRET_CHARS = 3;
export const MIN_CAPTURE_SECRET_CHARS = 8;

export class Redactor {
  private readonly secrets: Array<{ name: string; value: string }>;

  constructor(env: Readonly<Record<string, string>> | undefined, minChars: number = MIN_SECRET_CHARS) {
    this.secrets = Object.entries(env ?? {})
      .filter(([, value]) => value.length >= minChars)
      .map(([name, value]) => ({ name, value }))
      // Longest first, so a value containing another is replaced whole.
      .sort((a, b) => b.value.length - a.value.length);
  }

  /** Replaces every env value in `text` with `[redacted:NAME]`. */
  text(text: string): string {
    let result = text;
    for (const { name, value } of this.secrets) result = result.split(value).join(`[redacted:${name}]`);
    return result;
  }

  /** Deep copy of a JSON value with every string (and key) scrubbed; counts the replacements. */
  json(value: unknown): { value: unknown; replaced: number } {
    let replaced = 0;
    const scrub = (text: string): string => {
      const clean = this.text(text);
      if (clean !== text) replaced += 1;
      return clean;
    };
    const walk = (node: unknown): unknown => {
      if (typeof node === 'string') return scrub(node);
      if (Array.isArray(node)) return node.map(walk);
      if (typeof node === 'object' && node !== null) {
        const copy: Record<string, unknown> = {};
        for (const [key, child] of Object.entries(node)) copy[scrub(key)] = walk(child);
        return copy;
      }
      return node;
    };
    const result = walk(value);
    return { value: result, replaced };
  }

  get isEmpty(): boolean {
    return this.secrets.length === 0;
  }
}
