import { CharClass } from './_scan.js';
import type { StackFrame } from './_types.js';

// Code facts found in one line of text: file paths, identifiers and stack frames. Every function
// here reads one line the caller has already capped in length, and walks it with single-pass
// regexes or index scans (no nested quantifiers), so the cost stays linear in the line. The scans
// that run on every token of every line (paths, identifiers) cut a substring only for a token
// that can still be a fact, since most of a log's tokens are plain words.

/** Extensions that make a name without a separator (`parser.ts`, `README.md`) a file. Lower case. */
const FILE_EXTENSIONS = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'json', 'jsonc', 'json5', 'py', 'pyi', 'ipynb', 'rb', 'go',
  'rs', 'java', 'kt', 'kts', 'scala', 'groovy', 'gradle', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs', 'csproj',
  'sln', 'swift', 'php', 'pl', 'pm', 'lua', 'dart', 'ex', 'exs', 'erl', 'hs', 'ml', 'mli', 'clj', 'cljs', 'elm',
  'zig', 'nim', 'sol', 'sh', 'bash', 'zsh', 'fish', 'ps1', 'bat', 'cmd', 'sql', 'graphql', 'gql', 'proto', 'yaml',
  'yml', 'toml', 'ini', 'cfg', 'conf', 'env', 'xml', 'html', 'htm', 'css', 'scss', 'sass', 'less', 'vue', 'svelte',
  'astro', 'md', 'mdx', 'rst', 'txt', 'csv', 'tsv', 'lock', 'log', 'tf', 'hcl', 'cmake', 'mk', 'snap', 'patch', 'diff',
]);
/** Files whose name has no extension but that every engineer recognises. All end in `file` (`PATH_MARK` counts on it). */
const EXTENSIONLESS_FILES = new Set(['Dockerfile', 'Makefile', 'Jenkinsfile', 'Gemfile', 'Rakefile', 'Procfile', 'Vagrantfile']);
const DOTFILES = new Set([
  '.env', '.gitignore', '.gitattributes', '.npmrc', '.nvmrc', '.editorconfig', '.prettierrc', '.eslintrc', '.babelrc',
  '.dockerignore', '.npmignore',
]);
/** Product and site names that read like file names in prose. */
const NOT_FILES = new Set([
  'node.js', 'vue.js', 'next.js', 'nuxt.js', 'react.js', 'express.js', 'three.js', 'd3.js', 'chart.js', 'ember.js',
  'angular.js', 'backbone.js', 'nest.js', 'alpine.js', 'docs.rs',
]);
/** Top-level folders that make a one-separator path without an extension (`src/optimizer`) believable. */
const ROOT_FOLDERS = new Set([
  'src', 'lib', 'test', 'tests', 'spec', 'app', 'apps', 'packages', 'docs', 'bin', 'scripts', 'dist', 'build', 'cmd',
  'pkg', 'internal', 'examples', 'config', 'public', 'assets', 'tools', 'bench', 'fixtures', 'components', 'pages',
  'utils', 'node_modules', 'vendor', 'crates',
]);
/** Top-level domains: a dotted name ending in one is a host, not a member access. */
const DOMAIN_SUFFIXES = new Set(['com', 'org', 'net', 'io', 'dev', 'ai', 'co', 'gov', 'edu', 'app', 'uk', 'de']);

/** A small English stop-word list, shared by the word splitter and the symbol filter. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'am', 'an', 'and', 'any', 'are', 'as', 'at', 'be',
  'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does',
  'doing', 'down', 'during', 'each', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having', 'he', 'her',
  'here', 'hers', 'him', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'me', 'more',
  'most', 'my', 'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our', 'ours', 'out',
  'over', 'own', 'same', 'she', 'should', 'so', 'some', 'such', 'than', 'that', 'the', 'their', 'theirs', 'them',
  'then', 'there', 'these', 'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up', 'very', 'was',
  'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will', 'with', 'would', 'you',
  'your', 'yours', 'also', 'may', 'might', 'must', 'shall', 'us', 'let', 'via', 'yes',
]);
/** Keywords and literals of the common languages, and prose words often written before a parenthesis. */
const NOT_SYMBOLS = new Set([
  'abstract', 'any', 'assert', 'async', 'await', 'boolean', 'break', 'case', 'catch', 'class', 'const', 'continue',
  'def', 'default', 'del', 'delete', 'elif', 'else', 'enum', 'except', 'export', 'extends', 'false', 'final',
  'finally', 'fn', 'func', 'function', 'global', 'impl', 'implements', 'import', 'instanceof', 'interface', 'lambda',
  'match', 'mod', 'module', 'mut', 'new', 'nil', 'none', 'nonlocal', 'null', 'number', 'object', 'package', 'pass',
  'private', 'protected', 'pub', 'public', 'raise', 'readonly', 'require', 'return', 'self', 'static', 'string',
  'struct', 'super', 'switch', 'throw', 'throws', 'trait', 'true', 'try', 'type', 'typeof', 'undefined', 'unknown',
  'use', 'var', 'void', 'yield', 'never', 'always', 'see', 'note', 'optional', 'example', 'etc', 'todo', 'fixme',
  'maybe', 'javascript', 'typescript', 'github', 'gitlab', 'postgresql', 'mysql', 'mongodb', 'youtube', 'linkedin',
  'powershell', 'macos', 'ios', 'nodejs', 'openai', 'chatgpt',
]);

/** Tokens longer than this are not paths or identifiers (blobs, minified code). */
const MAX_CANDIDATE_CHARS = 400;
const MAX_SYMBOL_CHARS = 100;

/** The last segment of a POSIX or Windows path, ignoring trailing separators. */
export function basename(path: string): string {
  let end = path.length;
  while (end > 0 && isSeparator(path[end - 1])) end -= 1;
  let start = end;
  while (start > 0 && !isSeparator(path[start - 1])) start -= 1;
  return path.slice(start, end);
}

function isSeparator(char: string | undefined): boolean {
  return char === '/' || char === '\\';
}

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

export interface PathScan {
  paths: string[];
  /** The line with every path and URL blanked out, for the symbol scan (so `loader.ts` is no symbol). */
  masked: string;
}

// Path tokens end at whitespace and at characters that never sit inside a path we want.
const PATH_TOKEN_BREAK = new CharClass(/[\s()"'`,;<>{}|=]/);
/**
 * What a token needs for `classifyToken` to take it for a URL or a path: a `.`, `/`, `\` or `:`
 * (a scheme, a separator, an extension, a dotfile), or else `file`, which ends every name in
 * `EXTENSIONLESS_FILES`. Only tokens holding one are looked at; the rest of the line is skipped.
 */
const PATH_MARK = /[./\\:]|file/g;
const DIFF_HEADER = /^(?:--- |\+\+\+ |diff --git )/;
const SEGMENT = /^[\p{L}\p{N}_.@$~+#%-]+$/u;
const HAS_LETTER = /\p{L}/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;
const SCP_REMOTE = /^[\w.+-]+@[\w.-]+:/;
const WINDOWS_DRIVE = /^[A-Za-z]:[\\/]/;
const TRAILING_PUNCTUATION = '.,;:!?)]}\'"`>';
const LEADING_PUNCTUATION = '([{<\'"`';

/** Finds file paths in one line; `a/` and `b/` prefixes are dropped on diff header lines. */
export function scanPaths(line: string): PathScan {
  const paths: string[] = [];
  const diffHeader = DIFF_HEADER.test(line);
  let masked = '';
  let copiedUpTo = 0;
  PATH_MARK.lastIndex = 0;
  while (PATH_MARK.test(line)) {
    // The token around the mark: a mark's characters are never breaks, and the search resumes
    // after each token, so tokens come in order and each once, and the token's first mark ends at `mark`.
    const mark = PATH_MARK.lastIndex - 1;
    let start = mark;
    while (start > 0 && !PATH_TOKEN_BREAK.at(line, start - 1)) start -= 1;
    let end = mark + 1;
    while (end < line.length && !PATH_TOKEN_BREAK.at(line, end)) end += 1;
    PATH_MARK.lastIndex = end;
    // Its only mark a closing `.` or `:` (`retry.`, `Expected:`), which `stripTrailing` drops: a plain word.
    if (end === mark + 1 && (line[mark] === '.' || line[mark] === ':')) continue;
    const verdict = classifyToken(line.slice(start, end), line[end] === '(', diffHeader);
    if (verdict.path !== undefined) paths.push(verdict.path);
    if (verdict.mask) {
      masked += line.slice(copiedUpTo, start) + ' '.repeat(end - start);
      copiedUpTo = end;
    }
  }
  masked += line.slice(copiedUpTo);
  return { paths, masked };
}

interface TokenVerdict {
  readonly path?: string;
  /** True for paths and for URLs: neither may yield symbols. */
  readonly mask: boolean;
}

const NOT_A_PATH: TokenVerdict = { mask: false };
const NOT_A_PATH_MASKED: TokenVerdict = { mask: true };

function classifyToken(token: string, followedByParen: boolean, diffHeader: boolean): TokenVerdict {
  if (token.length > MAX_CANDIDATE_CHARS) return NOT_A_PATH;
  let candidate = stripTrailing(stripLeading(token));
  if (candidate.startsWith('file://')) {
    candidate = candidate.slice('file://'.length);
    if (/^\/[A-Za-z]:\//.test(candidate)) candidate = candidate.slice(1);
  } else if (candidate.includes('://') || URL_SCHEME.test(candidate) || SCP_REMOTE.test(candidate) || candidate.startsWith('www.')) {
    return NOT_A_PATH_MASKED;
  }
  // A pytest node id (`tests/test_x.py::test_name`) names its file before the `::`.
  const nodeIdAt = candidate.indexOf('::');
  if (nodeIdAt >= 0) candidate = candidate.slice(0, nodeIdAt);
  const colon = candidate.indexOf(':');
  if (colon >= 0 && !(colon === 1 && WINDOWS_DRIVE.test(candidate))) return NOT_A_PATH;
  if (candidate.includes('*') || candidate.includes('?')) return NOT_A_PATH;
  if (diffHeader) {
    if (candidate === '/dev/null') return NOT_A_PATH_MASKED;
    if (candidate.startsWith('a/') || candidate.startsWith('b/')) candidate = candidate.slice(2);
  }
  const isPath =
    candidate.includes('/') || candidate.includes('\\')
      ? isSeparatedPath(candidate)
      : !followedByParen && isBareFileName(candidate);
  return isPath ? { path: candidate, mask: true } : NOT_A_PATH;
}

function stripLeading(token: string): string {
  let start = 0;
  while (start < token.length && LEADING_PUNCTUATION.includes(token[start] ?? '')) start += 1;
  return token.slice(start);
}

/** Drops trailing punctuation and `:line`, `:line:col` suffixes, in any interleaving. */
function stripTrailing(token: string): string {
  let end = token.length;
  for (;;) {
    const before = end;
    while (end > 0 && TRAILING_PUNCTUATION.includes(token[end - 1] ?? '')) end -= 1;
    let digits = end;
    while (digits > 0 && isDigit(token[digits - 1])) digits -= 1;
    if (digits < end && digits > 0 && token[digits - 1] === ':') end = digits - 1;
    if (end === before) return token.slice(0, end);
  }
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function isBareFileName(name: string): boolean {
  if (EXTENSIONLESS_FILES.has(name) || DOTFILES.has(name)) return true;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return false;
  const extension = name.slice(dot + 1).toLowerCase();
  return (
    FILE_EXTENSIONS.has(extension) &&
    !NOT_FILES.has(name.toLowerCase()) &&
    SEGMENT.test(name) &&
    LETTER_OR_DIGIT.test(name.slice(0, dot))
  );
}

function hasFileExtension(segment: string): boolean {
  const dot = segment.lastIndexOf('.');
  return dot > 0 && FILE_EXTENSIONS.has(segment.slice(dot + 1).toLowerCase());
}

/**
 * A token with separators is a path when its segments are plain names and its shape is one
 * people write for files: rooted (`/`, `C:\`, `./`, `../`, `~/`), two or more separators, a
 * file extension at the end, or a familiar top-level folder. That keeps out `and/or`, `km/h`,
 * `1/2`, dates and bare slash commands.
 */
function isSeparatedPath(path: string): boolean {
  const drive = WINDOWS_DRIVE.test(path);
  const bodyStart = drive ? 3 : 0;
  let first = '';
  let last = '';
  let named = 0;
  let lettered = false;
  let segmentStart = bodyStart;
  for (let index = bodyStart; index <= path.length; index += 1) {
    if (index < path.length && !isSeparator(path[index])) continue;
    const segment = path.slice(segmentStart, index);
    const isFirst = segmentStart === bodyStart;
    // Empty segments only at the start (root) or the end (a folder's trailing separator).
    if (segment === '' && !isFirst && index < path.length) return false;
    if (segment !== '' && segment !== '.' && segment !== '..' && segment !== '~') {
      if (!SEGMENT.test(segment)) return false;
      named += 1;
      lettered ||= HAS_LETTER.test(segment);
    }
    if (isFirst) first = segment;
    last = segment;
    segmentStart = index + 1;
  }
  if (named === 0 || !lettered) return false;
  if (drive) return true;
  if (!path.includes('/')) {
    // Backslashes alone: only relative Windows paths that end in a file, to keep out escapes like `\n`.
    return first !== '' && hasFileExtension(last);
  }
  if (first === '.' || first === '..' || first === '~') return true;
  if (first === '') return named >= 2 || hasFileExtension(last);
  if (named >= 3) return true;
  if (hasFileExtension(last)) return true;
  return ROOT_FOLDERS.has(first);
}

// ---------------------------------------------------------------------------------------------
// Symbols
// ---------------------------------------------------------------------------------------------

// Identifiers are read from runs of identifier characters and dots: the regex `[A-Za-z_$][\w$.]*`,
// scanning left to right. A run reaches the end of its stretch of `[\w$.]` characters, so a stretch
// holds at most one run, starting at its first `[A-Za-z_$]`. The dotted access a run starts with is
// cut out afterwards, which keeps the scan free of nested repetition.
const IDENTIFIER_START = new CharClass(/[A-Za-z_$]/);
const IDENTIFIER_RUN_CHAR = new CharClass(/[\w$.]/);
const WORD_CHAR = new CharClass(/[\w$]/);
/**
 * What a run needs to yield a symbol (`isSymbol`): a `.`, `_` or capital in it (member access,
 * snake_case, camelCase), a `(` right after it (a call) or a backquote right before it (a quote).
 * Only the stretches these marks touch are read; a line of plain words is skipped by one search.
 */
const SYMBOL_MARK = /[._A-Z(`]/g;

/** Identifiers in one line; `masked` comes from `scanPaths`, so paths and URLs yield none. */
export function scanSymbols(masked: string): string[] {
  const symbols: string[] = [];
  let readUpTo = 0;
  SYMBOL_MARK.lastIndex = 0;
  while (SYMBOL_MARK.test(masked)) {
    const mark = SYMBOL_MARK.lastIndex - 1;
    // The stretch the mark touches: `(` follows one, a backquote precedes one, the others are in one.
    const char = masked[mark];
    let start = char === '(' ? mark - 1 : char === '`' ? mark + 1 : mark;
    if (start < readUpTo || !IDENTIFIER_RUN_CHAR.at(masked, start)) continue;
    while (start > 0 && IDENTIFIER_RUN_CHAR.at(masked, start - 1)) start -= 1;
    let end = start + 1;
    while (IDENTIFIER_RUN_CHAR.at(masked, end)) end += 1;
    readUpTo = end;
    SYMBOL_MARK.lastIndex = Math.max(SYMBOL_MARK.lastIndex, end);
    while (start < end && !IDENTIFIER_START.at(masked, start)) start += 1;
    if (start === end) continue;
    const symbol = symbolOfRun(masked, start, end);
    if (symbol !== undefined) symbols.push(symbol);
  }
  return symbols;
}

/** The symbol the run `masked[start, runEnd)` names, if it names one. */
function symbolOfRun(masked: string, start: number, runEnd: number): string | undefined {
  if (start > 0 && WORD_CHAR.at(masked, start - 1)) return undefined;
  const end = leadingMemberAccessEnd(masked, start, runEnd);
  if (end - start > MAX_SYMBOL_CHARS) return undefined;
  const next = masked[end];
  const called = next === '(' && !masked.startsWith('(s)', end) && !masked.startsWith('(es)', end);
  const quoted =
    masked[start - 1] === '`' && (next === '`' || (masked.startsWith('()', end) && masked[end + 2] === '`'));
  // Only a call or a quote can make a symbol of a name that is neither dotted, camelCase nor snake_case.
  if (!called && !quoted && !hasSymbolShape(masked, start, end)) return undefined;
  const name = masked.slice(start, end);
  return isSymbol(name, called, quoted) ? name : undefined;
}

/**
 * Where the member access at the start of the run `text[start, runEnd)` ends: `a.b.c.` → `a.b.c`,
 * `v1..x` → `v1`; it stops before a `.` not followed by an identifier.
 */
function leadingMemberAccessEnd(text: string, start: number, runEnd: number): number {
  for (let index = start + 1; index < runEnd; index += 1) {
    if (text[index] === '.' && !(index + 1 < runEnd && IDENTIFIER_START.at(text, index + 1))) return index;
  }
  return runEnd;
}

/** Whether `text[start, end)` has a `.`, a `_` or an ASCII capital after its first character (what `isMemberAccess`, `isSnakeCase` and `isCamelCase` need). */
function hasSymbolShape(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const char = text[index];
    if (char === '.' || char === '_' || (index > start && isUpper(char))) return true;
  }
  return false;
}

function isSymbol(name: string, called: boolean, quoted: boolean): boolean {
  const lower = name.toLowerCase();
  if (name.includes('.')) return isMemberAccess(name, called);
  if (NOT_SYMBOLS.has(lower)) return false;
  if (isCamelCase(name) || isSnakeCase(name)) return !STOP_WORDS.has(lower);
  if (called) return name.length >= 3 && !STOP_WORDS.has(lower);
  if (quoted) return name.length >= 2 && !STOP_WORDS.has(lower);
  return false;
}

function isMemberAccess(name: string, called: boolean): boolean {
  const first = name.slice(0, name.indexOf('.'));
  const last = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  // `e.g`, `i.e` and other one-letter abbreviations.
  if (first.length < 2) return false;
  if (DOMAIN_SUFFIXES.has(last) || NOT_FILES.has(name.toLowerCase())) return false;
  // `loader.ts` is a file name, unless it is being called (`response.json()`).
  return called || !FILE_EXTENSIONS.has(last);
}

/**
 * An inner capital that starts a word: after a lower-case letter or digit (`parseConfig`,
 * `ContextOptimizer`), or ending an acronym before a lower-case word (`IOError`, `HTTPServer`),
 * which keeps out plurals of acronyms (`URLs`, `APIs`) and all-caps words.
 */
function isCamelCase(name: string): boolean {
  return name.length >= 3 && hasWordStartingCapital(name) && !looksRandom(name);
}

function hasWordStartingCapital(name: string): boolean {
  for (let index = 1; index < name.length; index += 1) {
    if (!isUpper(name[index])) continue;
    const previous = name[index - 1];
    if (isLower(previous) || isDigit(previous)) return true;
    if (isUpper(previous) && isLower(name[index + 1]) && isLower(name[index + 2])) return true;
  }
  return false;
}

/**
 * Base64 and hashes split into many one-letter humps and letter-digit-letter runs:
 * `dGVzdEhhc2hWYWx1ZQ` → d, G, Vzd, Ehhc2h, WY, Wx1, ZQ; real names rarely have three.
 */
function looksRandom(name: string): boolean {
  const odd = identifierParts(name).filter((part) => part.length === 1 || /[A-Za-z]\d+[A-Za-z]/.test(part));
  return odd.length >= 3;
}

/** `parseConfigFile` → parse, Config, File; `HTTPServer` → HTTP, Server; `read_file` → read, file. */
export function identifierParts(run: string): string[] {
  const bounds: number[] = [];
  identifierPartBounds(run, 0, run.length, bounds);
  const parts: string[] = [];
  for (let index = 0; index < bounds.length; index += 2) parts.push(run.slice(bounds[index], bounds[index + 1]));
  return parts;
}

/**
 * The parts `identifierParts` gives for `text[start, end)`, as positions in `text`: pushes each
 * part's start and end onto `bounds`. The word splitter reads them without cutting the run out.
 */
export function identifierPartBounds(text: string, start: number, end: number, bounds: number[]): void {
  let partStart = start;
  let pieceStart = start;
  for (let index = start; index < end; index += 1) {
    if (text[index] === '_') {
      if (index > partStart) bounds.push(partStart, index);
      partStart = index + 1;
      pieceStart = index + 1;
      continue;
    }
    if (index === pieceStart || !isUpperCaseAt(text, index)) continue;
    const nextIsLower = index + 1 < end && isLowerCaseAt(text, index + 1);
    const startsWord = isUpperCaseAt(text, index - 1) ? nextIsLower : isLowerCaseAt(text, index - 1) || isDigit(text[index - 1]);
    if (startsWord) {
      bounds.push(partStart, index);
      partStart = index;
    }
  }
  if (end > partStart) bounds.push(partStart, end);
}

// Unicode-aware case tests, for words in any script; ASCII is answered without a case mapping.
function isUpperCaseAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 128) return code >= 65 && code <= 90;
  const char = text.charAt(index);
  return char !== char.toLowerCase();
}
function isLowerCaseAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 128) return code >= 97 && code <= 122;
  const char = text.charAt(index);
  return char !== char.toUpperCase();
}

function isSnakeCase(name: string): boolean {
  if (!name.includes('_')) return false;
  const core = name.replace(/^_+|_+$/g, '');
  if (core.length < 2 || !/[A-Za-z]/.test(core)) return false;
  // `_word_` is Markdown emphasis, not an identifier.
  return !(name.startsWith('_') && !name.startsWith('__') && name.endsWith('_') && !core.includes('_'));
}

function isUpper(char: string | undefined): boolean {
  return char !== undefined && char >= 'A' && char <= 'Z';
}
function isLower(char: string | undefined): boolean {
  return char !== undefined && char >= 'a' && char <= 'z';
}

// ---------------------------------------------------------------------------------------------
// Stack frames
// ---------------------------------------------------------------------------------------------

const PYTHON_FRAME = /^File "([^"]+)", line (\d+)(?:, in (\S+))?/;
const NODE_ALIAS = / \[as [^\]]*\]$/;

/** A Node (`at fn (file:1:2)`) or Python (`File "x.py", line 3, in fn`) frame, if the line (trimmed) is one. */
export function frameInLine(trimmed: string): StackFrame | undefined {
  if (trimmed.startsWith('at ')) return nodeFrame(trimmed.slice(3).trim());
  if (trimmed.startsWith('File "')) {
    const match = PYTHON_FRAME.exec(trimmed);
    if (!match?.[1] || !match[2]) return undefined;
    const frame: StackFrame = { language: 'python', file: match[1], line: Number(match[2]) };
    if (match[3]) frame.fn = match[3];
    return frame;
  }
  return undefined;
}

function nodeFrame(text: string): StackFrame | undefined {
  const rest = text.replace(/^async /, '');
  let location = rest;
  let fn: string | undefined;
  if (rest.endsWith(')')) {
    const open = rest.lastIndexOf(' (');
    if (open > 0) {
      fn = rest.slice(0, open).replace(NODE_ALIAS, '');
      location = rest.slice(open + 2, -1);
    } else if (rest.startsWith('(')) {
      location = rest.slice(1, -1);
    }
  }
  if (fn !== undefined) {
    fn = fn.replace(/^new /, '');
    // Prose that happens to start with "at" has spaces in what would be the function name.
    if (fn === '' || /\s/.test(fn)) return undefined;
  }
  if (location.startsWith('file://')) location = location.slice('file://'.length).replace(/^\/(?=[A-Za-z]:)/, '');
  const { file, line, column } = splitLineColumn(location);
  if (file === '' || /\s/.test(file)) return undefined;
  // Without a line number only Node's own modules are frames (`node:internal/...`); `<anonymous>` is not a file.
  if (line === undefined && !file.startsWith('node:')) return undefined;
  const frame: StackFrame = { language: 'node', file };
  if (line !== undefined) frame.line = line;
  if (column !== undefined) frame.column = column;
  if (fn !== undefined) frame.fn = fn;
  return frame;
}

function splitLineColumn(location: string): { file: string; line?: number; column?: number } {
  const last = trailingNumber(location);
  if (!last) return { file: location };
  const previous = trailingNumber(last.rest);
  if (!previous) return { file: last.rest, line: last.value };
  return { file: previous.rest, line: previous.value, column: last.value };
}

function trailingNumber(text: string): { rest: string; value: number } | undefined {
  let start = text.length;
  while (start > 0 && isDigit(text[start - 1])) start -= 1;
  if (start === text.length || start === 0 || text[start - 1] !== ':' || text.length - start > 9) return undefined;
  return { rest: text.slice(0, start - 1), value: Number(text.slice(start)) };
}
