/**
 * A TOML text as its statements (smol-toml gives values, not offsets): each header, key/value
 * and comment or blank line with the offsets of the lines it spans and, for headers and keys, the
 * key path. Strings (all four kinds) and brackets are followed, so a `[` inside a multi-line
 * string or array is not read as a header. Values are not read: smol-toml reads them.
 */

export type TomlStatement =
  | { readonly kind: 'header'; readonly start: number; readonly end: number; readonly path: readonly string[]; readonly array: boolean }
  | { readonly kind: 'key'; readonly start: number; readonly end: number; readonly path: readonly string[] }
  | { readonly kind: 'comment' | 'blank'; readonly start: number; readonly end: number };

/** The statements in order, or the offset where the text stops making sense to this reader. */
export function tomlStatements(text: string): TomlStatement[] | { failedAt: number } {
  const statements: TomlStatement[] = [];
  let at = 0;
  // Every pass consumes at least one character, so the text's length bounds the loop.
  while (at < text.length) {
    const start = at;
    at = skipSpaces(text, at);
    if (at >= text.length || text[at] === '\n' || text.startsWith('\r\n', at)) {
      at = lineEnd(text, at);
      statements.push({ kind: 'blank', start, end: at });
      continue;
    }
    if (text[at] === '#') {
      at = lineEnd(text, at);
      statements.push({ kind: 'comment', start, end: at });
      continue;
    }
    if (text[at] === '[') {
      const array = text[at + 1] === '[';
      const key = readKeyPath(text, at + (array ? 2 : 1));
      if (key === undefined) return { failedAt: at };
      let after = skipSpaces(text, key.end);
      if (!text.startsWith(array ? ']]' : ']', after)) return { failedAt: after };
      after = skipSpaces(text, after + (array ? 2 : 1));
      const end = endOfLine(text, after);
      if (end === undefined) return { failedAt: after };
      statements.push({ kind: 'header', start, end, path: key.path, array });
      at = end;
      continue;
    }
    const key = readKeyPath(text, at);
    if (key === undefined) return { failedAt: at };
    const equals = skipSpaces(text, key.end);
    if (text[equals] !== '=') return { failedAt: equals };
    const valueEnd = skipValue(text, equals + 1);
    if (valueEnd === undefined) return { failedAt: equals };
    const end = endOfLine(text, skipSpaces(text, valueEnd));
    if (end === undefined) return { failedAt: valueEnd };
    statements.push({ kind: 'key', start, end, path: key.path });
    at = end;
  }
  return statements;
}

function skipSpaces(text: string, offset: number): number {
  let at = offset;
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at;
}

/** Just after the line break of the line holding `offset` (or the text's end). */
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

/** After a statement: nothing, or a comment, then the line break. */
function endOfLine(text: string, offset: number): number | undefined {
  if (offset >= text.length || text[offset] === '\n' || text.startsWith('\r\n', offset) || text[offset] === '#') return lineEnd(text, offset);
  return undefined;
}

/** `a."b c".'d'` → ['a', 'b c', 'd'], and where it ends. */
function readKeyPath(text: string, offset: number): { path: string[]; end: number } | undefined {
  const path: string[] = [];
  let at = skipSpaces(text, offset);
  for (let guard = 0; guard <= text.length; guard++) {
    const part = readKey(text, at);
    if (part === undefined) return undefined;
    path.push(part.key);
    at = skipSpaces(text, part.end);
    if (text[at] !== '.') return { path, end: at };
    at = skipSpaces(text, at + 1);
  }
  return undefined;
}

function readKey(text: string, offset: number): { key: string; end: number } | undefined {
  const quote = text[offset];
  if (quote === '"' || quote === "'") {
    const end = stringEnd(text, offset);
    if (end === undefined) return undefined;
    const body = text.slice(offset + 1, end - 1);
    if (quote === "'") return { key: body, end };
    const key = unescapeBasic(body);
    return key === undefined ? undefined : { key, end };
  }
  const bare = /^[A-Za-z0-9_-]+/.exec(text.slice(offset, offset + 4096))?.[0];
  return bare === undefined ? undefined : { key: bare, end: offset + bare.length };
}

/** A basic string's body with TOML's escapes read (`\UXXXXXXXX` as well as JSON's), or undefined. */
function unescapeBasic(body: string): string | undefined {
  let out = '';
  for (let at = 0; at < body.length; at++) {
    const char = body[at] ?? '';
    if (char !== '\\') {
      out += char;
      continue;
    }
    const code = body[at + 1];
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\u001b', '"': '"', '\\': '\\' };
    if (code !== undefined && Object.hasOwn(simple, code)) {
      out += simple[code];
      at += 1;
      continue;
    }
    const width = code === 'u' ? 4 : code === 'U' ? 8 : code === 'x' ? 2 : 0;
    const hex = body.slice(at + 2, at + 2 + width);
    if (width === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== width) return undefined;
    const point = Number.parseInt(hex, 16);
    if (point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return undefined;
    out += String.fromCodePoint(point);
    at += 1 + width;
  }
  return out;
}

/** Just after the string opening at `offset` (basic, literal, or their multi-line forms), or undefined when it does not close. */
function stringEnd(text: string, offset: number): number | undefined {
  const quote = text[offset] ?? '';
  const triple = quote.repeat(3);
  if (text.startsWith(triple, offset)) {
    let at = offset + 3;
    for (;;) {
      const close = text.indexOf(triple, at);
      if (close === -1) return undefined;
      if (quote === '"' && escaped(text, close, offset + 3)) {
        at = close + 1;
        continue;
      }
      // Up to two quotes may sit right before the closing three (`""""x""""` style); take them in.
      let end = close + 3;
      while (text[end] === quote && end < close + 5) end += 1;
      return end;
    }
  }
  for (let at = offset + 1; at < text.length; at++) {
    const char = text[at];
    if (char === '\n') return undefined;
    if (quote === '"' && char === '\\') {
      at += 1;
      continue;
    }
    if (char === quote) return at + 1;
  }
  return undefined;
}

/** Whether the character at `offset` is escaped by an odd run of backslashes (not before `from`). */
function escaped(text: string, offset: number, from: number): boolean {
  let count = 0;
  for (let at = offset - 1; at >= from && text[at] === '\\'; at--) count += 1;
  return count % 2 === 1;
}

/**
 * Just after a value: a string, or an array / inline table with everything nested in it (they may
 * span lines, comments inside arrays included), or a bare run (number, date, boolean).
 */
function skipValue(text: string, offset: number): number | undefined {
  let at = skipSpaces(text, offset);
  let depth = 0;
  while (at < text.length) {
    const char = text[at] ?? '';
    if (char === '"' || char === "'") {
      const end = stringEnd(text, at);
      if (end === undefined) return undefined;
      at = end;
    } else if (char === '[' || char === '{') {
      depth += 1;
      at += 1;
    } else if (char === ']' || char === '}') {
      depth -= 1;
      at += 1;
      if (depth < 0) return undefined;
    } else if (char === '#') {
      if (depth === 0) return at;
      at = lineEnd(text, at);
    } else if (char === '\n' || (char === '\r' && text[at + 1] === '\n')) {
      if (depth === 0) return at;
      at += 1;
    } else {
      at += 1;
    }
    if (depth === 0 && (char === ']' || char === '}' || char === '"' || char === "'")) return at;
  }
  return depth === 0 ? at : undefined;
}
