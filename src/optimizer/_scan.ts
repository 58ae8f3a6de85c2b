/**
 * A regex character class (one code unit: no `u`, `g` or `y` flag) as a lookup for index scans: ASCII answers
 * from a table built by running the class's own regex over the 128 ASCII characters, anything else
 * asks the regex. Same answers as the regex, without a regex call or a one-character string per
 * character of the text.
 */
export class CharClass {
  private readonly ascii = new Uint8Array(128);

  constructor(private readonly oneChar: RegExp) {
    for (let code = 0; code < 128; code += 1) this.ascii[code] = oneChar.test(String.fromCharCode(code)) ? 1 : 0;
  }

  /** Whether the code unit at `index` of `text` is in the class (false past the end). */
  at(text: string, index: number): boolean {
    const code = text.charCodeAt(index);
    if (code < 128) return this.ascii[code] === 1;
    return !Number.isNaN(code) && this.oneChar.test(text.charAt(index));
  }
}


