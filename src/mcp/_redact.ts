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

  /** UTF-8 bytes of the longest value scrubbed: how much a window must overlap to catch it whole. */
  get longestSecretBytes(): number {
    return Math.max(0, ...this.secrets.map(({ value }) => Buffer.byteLength(value, 'utf8')));
  }

  /**
   * Scrubs a window cut out of a longer stream. Whole values are replaced; a value cut by either
   * edge of the window leaves a piece that `text()` cannot see, so a window that starts with the
   * end of a value, or ends with the start of one, loses that piece as well.
   */
  window(text: string, { cutAtStart }: { cutAtStart: boolean }): string {
    let result = this.text(text);
    for (const { name, value } of this.secrets) {
      if (cutAtStart) {
        const piece = longestSuffixAtStart(result, value);
        if (piece >= MIN_SECRET_CHARS) result = `[redacted:${name}]${result.slice(piece)}`;
      }
      const piece = longestPrefixAtEnd(result, value);
      if (piece >= MIN_SECRET_CHARS) result = `${result.slice(0, result.length - piece)}[redacted:${name}]`;
    }
    return result;
  }
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
