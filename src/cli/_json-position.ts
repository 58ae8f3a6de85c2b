/**
 * Where `text` stops being JSON: the offset of the first character that cannot continue it
 * (`text.length` when it ends too early), or undefined when it is valid. Node's JSON.parse names
 * a position for only some errors; this finds one for all, so a message can say line and column.
 */
export function jsonSyntaxErrorOffset(text: string): number | undefined {
  return new Scanner(text).firstError();
}

type Step = 'scalar' | 'open' | 'bad';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const ESCAPED = '"\\/bfnrt';

// Iterative, with an explicit stack of open containers: a file of a million '[' is fine.
class Scanner {
  private at = 0;
  private readonly open: ('[' | '{')[] = [];

  constructor(private readonly text: string) {}

  firstError(): number | undefined {
    const { text } = this;
    this.whitespace();
    let step = this.value();
    for (;;) {
      if (step === 'bad') return this.at;
      this.whitespace();
      const top = this.open.at(-1);
      if (top === undefined) return this.at < text.length ? this.at : undefined;
      const close = top === '[' ? ']' : '}';
      if (text[this.at] === close) {
        this.open.pop();
        this.at += 1;
        step = 'scalar';
        continue;
      }
      if (step === 'scalar') {
        if (text[this.at] !== ',') return this.at;
        this.at += 1;
        this.whitespace();
      }
      if (top === '{') {
        if (text[this.at] !== '"' || !this.string()) return this.at;
        this.whitespace();
        if (text[this.at] !== ':') return this.at;
        this.at += 1;
        this.whitespace();
      }
      step = this.value();
    }
  }

  private whitespace(): void {
    const { text } = this;
    while (this.at < text.length && ' \t\n\r'.includes(text[this.at] as string)) this.at += 1;
  }

  private value(): Step {
    const { text } = this;
    const char = text[this.at];
    if (char === '"') return this.string() ? 'scalar' : 'bad';
    if (char === '[' || char === '{') {
      this.open.push(char);
      this.at += 1;
      return 'open';
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, this.at)) {
        this.at += word.length;
        return 'scalar';
      }
    }
    NUMBER.lastIndex = this.at;
    if (char !== undefined && NUMBER.test(text)) {
      this.at = NUMBER.lastIndex;
      return 'scalar';
    }
    return 'bad';
  }

  /** At a quote: moves past the string, or stops at its first bad character and says false. */
  private string(): boolean {
    const { text } = this;
    this.at += 1;
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (code === 0x22) {
        this.at += 1;
        return true;
      }
      if (code < 0x20) return false;
      if (code === 0x5c) {
        const escape = text[this.at + 1];
        if (escape === 'u' && HEX4.test(text.slice(this.at + 2, this.at + 6))) this.at += 6;
        else if (escape !== undefined && escape !== 'u' && ESCAPED.includes(escape)) this.at += 2;
        else {
          this.at += 1;
          return false;
        }
      } else {
        this.at += 1;
      }
    }
    return false;
  }
}
