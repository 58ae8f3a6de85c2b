/**
 * 1-based line and column (in UTF-16 code units) of `offset` in `text`: how a parse error in a
 * file is named to a person. `\r\n`, `\n` and a lone `\r` each end a line.
 */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x0a || (char === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
