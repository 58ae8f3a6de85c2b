import type { StackFrame } from './_types.js';

// Where a failure points in the code, in the spellings compilers, runtimes, linters and test
// runners print: a file and a line (and a column when given). Node and Python stack frames are
// read by `frameInLine` in `_extract-code.ts`; these are the other formats. Each pattern is
// anchored on the format's own punctuation (`-->`, `:line N`, ` line N, in`, `: error`), so a
// `path:12` inside prose or a grep listing is not taken for a failure's location. Every regex is
// single-pass over one line the caller has capped.

/** A path: no spaces, quotes or parentheses; ends in `.ext` (or is a bare `Name.ext`). */
const PATH = String.raw`((?:[A-Za-z]:)?[^\s"'()<>|:]*[^\s"'()<>|:./]\.[A-Za-z][A-Za-z0-9]{0,7})`;

interface LocationRule {
  language: StackFrame['language'];
  pattern: RegExp;
  /** Builds the frame from the match; `undefined` rejects it. */
  frame: (match: RegExpExecArray) => StackFrame | undefined;
}

function frameOf(language: StackFrame['language'], file: string | undefined, line: string | undefined, column?: string, fn?: string): StackFrame | undefined {
  if (file === undefined || line === undefined) return undefined;
  const lineNumber = Number(line);
  if (!Number.isSafeInteger(lineNumber) || lineNumber < 1) return undefined;
  const frame: StackFrame = { language, file, line: lineNumber };
  if (column !== undefined) frame.column = Number(column);
  if (fn !== undefined) frame.fn = fn;
  return frame;
}

const RULES: readonly LocationRule[] = [
  // rustc, cargo: `  --> src/book.rs:41:9`
  { language: 'rust', pattern: new RegExp(String.raw`^\s*-->\s+${PATH}:(\d+):(\d+)`), frame: (m) => frameOf('rust', m[1], m[2], m[3]) },
  // Rust panics: `thread 'main' panicked at src/parser.rs:88:5:`
  { language: 'rust', pattern: new RegExp(String.raw`panicked at ${PATH}:(\d+):(\d+)`), frame: (m) => frameOf('rust', m[1], m[2], m[3]) },
  // .NET: `at Ns.Type.Method(Int32 sku) in /src/StockService.cs:line 58`
  { language: 'dotnet', pattern: new RegExp(String.raw`\bin ${PATH}:line (\d+)`), frame: (m) => frameOf('dotnet', m[1], m[2]) },
  // JVM: `at com.shop.OrderService.place(OrderService.java:42)`; the package names the folders.
  {
    language: 'jvm',
    pattern: /^\s*at\s+((?:[\w$]+\.)+)([\w$<>]+)\(([\w$-]+\.(?:java|kt|scala|groovy|clj)):(\d+)\)/,
    frame: (m) => {
      const qualified = (m[1] as string).slice(0, -1);
      const packagePath = qualified.includes('.') ? qualified.slice(0, qualified.lastIndexOf('.')).replace(/\./g, '/') : '';
      const file = packagePath === '' ? m[3] : `${packagePath}/${m[3] as string}`;
      return frameOf('jvm', file, m[4], undefined, `${qualified}.${m[2] as string}`);
    },
  },
  // tsc: `src/UserCard.tsx(14,5): error TS2322`
  { language: 'tsc', pattern: new RegExp(String.raw`^\s*${PATH}\((\d+),(\d+)\): (?:error|warning)`), frame: (m) => frameOf('tsc', m[1], m[2], m[3]) },
  // Terraform: `on ../../modules/network/main.tf line 42, in resource ...:` and `on main.tf line 7:`
  { language: 'terraform', pattern: new RegExp(String.raw`^\s*(?:on|with [^,]+,\s+on) ${PATH} line (\d+)(?:,|:|$)`), frame: (m) => frameOf('terraform', m[1], m[2]) },
  // PHP: `in /var/www/app/Jobs/SendInvoice.php:236` and `in /app/x.php on line 12`
  { language: 'php', pattern: new RegExp(String.raw`\bin ${PATH}(?::(\d+)| on line (\d+))`), frame: (m) => (m[1]?.endsWith('.php') ? frameOf('php', m[1], m[2] ?? m[3]) : undefined) },
  // PHP stack: `#0 /var/www/app/Jobs/SendInvoice.php(236): ...`
  { language: 'php', pattern: new RegExp(String.raw`^#\d+ ${PATH}\((\d+)\):`), frame: (m) => frameOf('php', m[1], m[2]) },
  // Ruby: `./app/models/invoice.rb:223:in 'due_amount'` (with or without a leading `#` or `from`)
  { language: 'ruby', pattern: new RegExp(String.raw`^\s*(?:#\s*|from\s+)?${PATH}:(\d+):in [\`'"]([^\`'"]*)`), frame: (m) => frameOf('ruby', m[1], m[2], undefined, m[3]) },
  // Elixir: `(shop 0.1.0) lib/shop/cart.ex:42: Shop.Cart.add/2`, `lib/x.ex:12: (module)`
  { language: 'elixir', pattern: new RegExp(String.raw`^\s*(?:\([\w.-]+ [\w.-]+\) )?${PATH}:(\d+): (\S+)`), frame: (m) => (/\.exs?$/.test(m[1] ?? '') ? frameOf('elixir', m[1], m[2], undefined, m[3]) : undefined) },
  // pytest: `tests/test_rates.py:231: AssertionError`
  { language: 'python', pattern: new RegExp(String.raw`^${PATH}:(\d+): [A-Z]\w*(?:Error|Exception|Failure|Warning)?\b`), frame: (m) => (/\.py$/.test(m[1] ?? '') ? frameOf('python', m[1], m[2]) : undefined) },
  // vitest, jest code frames: ` ❯ src/cart/total.test.ts:44:23`
  { language: 'node', pattern: new RegExp(String.raw`^\s*[❯›>]\s+${PATH}:(\d+):(\d+)`), frame: (m) => frameOf('node', m[1], m[2], m[3]) },
  // gcc, clang, swiftc, go, tsc --pretty, and most compilers: `path:12:5: error: ...`, `path:12:5 - error TS...`
  {
    language: 'compiler',
    pattern: new RegExp(String.raw`^\s*${PATH}:(\d+):(\d+)(?::|\s+-)\s*(?:(?:fatal )?error|warning|note)?`),
    frame: (m) => frameOf('compiler', m[1], m[2], m[3]),
  },
];

/**
 * What every rule needs: a `.` (each names a file with an extension) and a line number after `:`,
 * `(` or `line `. Most lines have no such number, and skip the rules' thirteen searches.
 */
const LINE_NUMBER_MARK = /[:(]\d|line \d/;

/** eslint's stylish format: the file on a line of its own, then `  14:5  error  message  rule`. */
const ESLINT_FILE = new RegExp(String.raw`^${PATH}$`);
const ESLINT_MESSAGE = /^\s+(\d+):(\d+)\s+(?:error|warning)\s/;

/**
 * Reads the locations of a text line by line. Stateful only for eslint's format, whose messages
 * name their file on an earlier line.
 */
export class LocationReader {
  private eslintFile: string | undefined;

  /** `trimmed` is `line` without its outer whitespace. */
  read(line: string, trimmed: string): StackFrame | undefined {
    // A path has a `.` (see `PATH`).
    const hasDot = line.includes('.');
    const file = hasDot ? ESLINT_FILE.exec(trimmed)?.[1] : undefined;
    if (file !== undefined && !line.startsWith(' ')) {
      this.eslintFile = file;
      return undefined;
    }
    if (this.eslintFile !== undefined) {
      const message = ESLINT_MESSAGE.exec(line);
      if (message !== null) return frameOf('eslint', this.eslintFile, message[1], message[2]);
      if (trimmed === '' || line.startsWith('✖')) this.eslintFile = undefined;
    }
    if (!hasDot || !LINE_NUMBER_MARK.test(line)) return undefined;
    for (const rule of RULES) {
      const match = rule.pattern.exec(line);
      if (match === null) continue;
      const frame = rule.frame(match);
      if (frame !== undefined) return frame;
    }
    return undefined;
  }
}
