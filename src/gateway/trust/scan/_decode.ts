/**
 * Text hidden in a string in a form the rules cannot read but a model can: base64 and base64url
 * (whole, split over lines, or broken up by invisible characters), bytes carried by a run of
 * variation selectors ("emoji smuggling"), and ASCII spelled in Unicode tag characters. Each
 * payload is decoded so the instruction rules can read it too. Pure and linear in the input.
 */

export type HiddenEncoding = 'base64' | 'base64url' | 'variation selectors' | 'tag characters';

export interface HiddenPayload {
  encoding: HiddenEncoding;
  text: string;
  /** Whether the payload reads as words (several, mostly letters): a hidden message, not a key or a hash. */
  wordy: boolean;
}

/** Shortest base64 run worth decoding: 18 bytes, about three words. */
const MIN_BASE64_CHARS = 24;
/** Longest run decoded; a longer one is decoded up to here (the rules need no more to find an instruction). */
const MAX_BASE64_CHARS = 65_536;

// A run of the base64 and base64url alphabets, with its padding.
const BASE64_RUN = /[A-Za-z0-9+/_-]+={0,2}/g;
// What may stand between two pieces of one split run: a line break and indentation.
const LINE_BREAK_ONLY = /^[ \t]*\r?\n[ \t]*$/;
const VARIATION_SELECTOR_RUN = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2,}/gu;
const TAG_RUN = /[\u{E0000}-\u{E007F}]+/gu;

/** Every payload hidden in `raw`; base64 is looked for in `normalized` (invisible characters gone, full-width folded). */
export function hiddenPayloads(raw: string, normalized: string): HiddenPayload[] {
  return [...base64Payloads(normalized), ...variationSelectorPayloads(raw), ...tagPayloads(raw)];
}

function base64Payloads(text: string): HiddenPayload[] {
  const payloads: HiddenPayload[] = [];
  let pieces: string[] = [];
  let end = 0;
  const flush = (): void => {
    const payload = decodeSplitRun(pieces);
    if (payload !== undefined) payloads.push(payload);
    pieces = [];
  };
  for (const match of text.matchAll(BASE64_RUN)) {
    const start = match.index;
    const previous = pieces[pieces.length - 1];
    // A piece continues the run on the next line; padding ends a run.
    if (previous !== undefined && (previous.endsWith('=') || !LINE_BREAK_ONLY.test(text.slice(end, start)))) flush();
    pieces.push(match[0]);
    end = start + match[0].length;
  }
  flush();
  return payloads;
}

/**
 * The lines of one run joined and decoded. The first piece may be the last word of the sentence
 * before it and the last one the first word after it (`see below` / `Thanks`): one shifted
 * character garbles everything after it, so the run is also tried without them.
 */
function decodeSplitRun(pieces: readonly string[]): HiddenPayload | undefined {
  const tries: Array<[number, number]> =
    pieces.length >= 3 ? [[0, pieces.length], [1, pieces.length], [0, pieces.length - 1], [1, pieces.length - 1]] : pieces.length === 2 ? [[0, 2], [1, 2], [0, 1]] : [[0, 1]];
  for (const [from, to] of tries) {
    const joined = pieces.slice(from, to).join('');
    if (joined.length < MIN_BASE64_CHARS) continue;
    const payload = decodeBase64(joined);
    if (payload !== undefined) return payload;
  }
  return undefined;
}

function decodeBase64(run: string): HiddenPayload | undefined {
  const url = /[-_]/.test(run);
  // Both alphabets at once is no encoding: words joined by `-`, `_` and `/`.
  if (url && /[+/]/.test(run)) return undefined;
  let body = run.replace(/=+$/, '').slice(0, MAX_BASE64_CHARS);
  if (url) body = body.replace(/-/g, '+').replace(/_/g, '/');
  // A length of 4n+1 cannot be base64: the last character is a stray, drop it.
  if (body.length % 4 === 1) body = body.slice(0, -1);
  body += '='.repeat((4 - (body.length % 4)) % 4);
  let binary: string;
  try {
    binary = atob(body);
  } catch {
    return undefined;
  }
  const text = utf8Text(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  if (text === undefined || !isReadable(text)) return undefined;
  return { encoding: url ? 'base64url' : 'base64', text, wordy: isWordy(text) };
}

function variationSelectorPayloads(raw: string): HiddenPayload[] {
  const payloads: HiddenPayload[] = [];
  for (const [run] of raw.matchAll(VARIATION_SELECTOR_RUN)) {
    // The common encoding: U+FE00-U+FE0F carry bytes 0-15, U+E0100-U+E01EF bytes 16-255.
    const bytes = Uint8Array.from(run, (char) => {
      const code = char.codePointAt(0) ?? 0;
      return code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16;
    });
    const text = utf8Text(bytes);
    if (text !== undefined && isReadable(text)) payloads.push({ encoding: 'variation selectors', text, wordy: isWordy(text) });
  }
  return payloads;
}

function tagPayloads(raw: string): HiddenPayload[] {
  const payloads: HiddenPayload[] = [];
  for (const [run] of raw.matchAll(TAG_RUN)) {
    // U+E0020-U+E007E mirror printable ASCII; the others (language tag, cancel tag) carry no letter.
    const text = Array.from(run, (char) => {
      const code = (char.codePointAt(0) ?? 0) - 0xe0000;
      return code >= 0x20 && code <= 0x7e ? String.fromCharCode(code) : '';
    }).join('');
    if (text.length > 0) payloads.push({ encoding: 'tag characters', text, wordy: isWordy(text) });
  }
  return payloads;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

// Letters, digits, punctuation, symbols and spaces: what text is made of (controls and unassigned are not).
const TEXT_CHAR = /[\p{L}\p{N}\p{P}\p{S}\p{Zs}\t\n\r]/u;

/** At least 90% text characters: decoded bytes that are no picture, key or hash. */
function isReadable(text: string): boolean {
  let textChars = 0;
  let all = 0;
  for (const char of text) {
    all += 1;
    if (TEXT_CHAR.test(char)) textChars += 1;
  }
  return all > 0 && textChars >= all * 0.9;
}

/** Three or more words and mostly letters: a sentence rather than a token or an identifier. */
function isWordy(text: string): boolean {
  const words = text.split(/\s+/).filter((word) => /\p{L}{2}/u.test(word));
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return words.length >= 3 && letters >= text.length * 0.5;
}
