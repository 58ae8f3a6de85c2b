/**
 * JSON with comments (as VS Code and other clients write `mcp.json`) made plain JSON: `//` and
 * `/* *\/` comments become spaces and a comma before `}` or `]` is dropped, outside strings only.
 * Newlines are kept, so a parser's line and column still point into the file as written.
 */
export function stripJsonComments(text: string): string {
  const out: string[] = [];
  let index = 0;
  // Which chunk of `out` is the last comma outside a string, until something else follows it.
  let pendingComma = -1;
  while (index < text.length) {
    const char = text[index] as string;
    const next = text[index + 1];
    if (char === '"') {
      const end = stringEnd(text, index);
      out.push(text.slice(index, end));
      index = end;
      pendingComma = -1;
    } else if (char === '/' && next === '/') {
      const end = text.indexOf('\n', index);
      const stop = end === -1 ? text.length : end;
      out.push(' '.repeat(stop - index));
      index = stop;
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', index + 2);
      const stop = end === -1 ? text.length : end + 2;
      out.push(text.slice(index, stop).replace(/[^\n]/g, ' '));
      index = stop;
    } else if ((char === '}' || char === ']') && pendingComma !== -1) {
      out[pendingComma] = ' ';
      out.push(char);
      pendingComma = -1;
      index += 1;
    } else {
      if (char === ',') pendingComma = out.length;
      else if (!/\s/.test(char)) pendingComma = -1;
      out.push(char);
      index += 1;
    }
  }
  return out.join('');
}

/** Index just past the string that opens at `start` (or the text's end when it never closes). */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const char = text[index];
    if (char === '\\') index += 2;
    else if (char === '"') return index + 1;
    else index += 1;
  }
  return text.length;
}
