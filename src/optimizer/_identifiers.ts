import { basename } from './_extract.js';
import type { Extraction, NormalizedRecord, TaskTerms } from './_types.js';

export const IDENTIFIER_VALUE = { path: 1, symbol: 0.8, basename: 0.6 } as const;
/** Each hop away from the task (a failure's stack, then an import) keeps this share of the value. */
const HOP_DECAY = 0.75;
const MAX_HOPS = 4;

/** `TypeError`, `ValueError`, `IOException`: they name a kind of failure, not a place in the code. */
const GENERIC_ERROR_TYPE = /^[A-Z]?[A-Za-z]*(?:Error|Exception|Warning)$/;
/** Code that is not the project's: a hop into a dependency leads nowhere the task can change. */
const VENDORED = /(?:^|\/)(?:node_modules|site-packages|dist-packages|\.venv|vendor)\/|^node:|^internal\/|^\/usr\/lib\/|<anonymous>/;
// Indentation is `[^\S\n\r\u2028\u2029]*`, whitespace within the line: a `^\s*` would run over the
// following blank lines from every line start, hours on a file of 4 MiB of newlines. The module
// group is one class, not `\.*[\w.]*`, whose two ways to take each dot are quadratic in a run of dots.
const JS_IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^[^\S\n\r\u2028\u2029]*import\s+)['"](\.{1,2}\/[^'"\n]+)['"]/gm;
const PY_IMPORT = /^[^\S\n\r\u2028\u2029]*(?:from\s+([\w.]*)\s+import\b|import\s+([\w.]+))/gm;

function toPosix(path: string): string {
  return path.replace(/\\/g, '/');
}

/** `./src/money/convert.ts` → `src/money/convert`: the part of a path that names a module in any spelling. */
export function stemOf(path: string): string {
  const known = stems.get(path);
  if (known !== undefined) return known;
  const stem = readStem(path);
  if (path.length > MAX_REMEMBERED_PATH_CHARS) return stem;
  if (stems.size >= MAX_REMEMBERED_STEMS) stems.clear();
  stems.set(path, stem);
  return stem;
}

/**
 * Stems by path: every fragment of a record asks for the same few paths' stems again. Bounded in
 * entries and in length (a hostile session's 2,000-character "paths" are read, never kept), so the
 * process holds at most a few tens of MB for it.
 */
const stems = new Map<string, string>();
const MAX_REMEMBERED_STEMS = 65_536;
const MAX_REMEMBERED_PATH_CHARS = 256;

function readStem(path: string): string {
  let posix = toPosix(path).replace(/^[a-zA-Z]:/, '').replace(/^(?:\.{1,2}\/)+/, '').replace(/^\/+/, '');
  posix = posix.replace(/:\d+(?::\d+)?$/, '');
  const slash = posix.lastIndexOf('/');
  const dot = posix.lastIndexOf('.');
  if (dot > slash + 1 && posix.length - dot <= 6) posix = posix.slice(0, dot);
  return posix;
}

/** A test file stands for the module it tests: `src/a/total.test` → `src/a/total`, `tests/test_fields` → `tests/fields`. */
function testedStem(stem: string): string | undefined {
  const slash = stem.lastIndexOf('/');
  const dir = stem.slice(0, slash + 1).replace(/(?:^|\/)__tests__\/$/, '/');
  const name = stem.slice(slash + 1);
  const match = /^(.+)\.(?:test|spec)$/.exec(name) ?? /^test_(.+)$/.exec(name) ?? /^(.+)_test$/.exec(name);
  return match === null ? undefined : `${dir}${match[1] as string}`;
}

function lastSegment(stem: string): string {
  return stem.slice(stem.lastIndexOf('/') + 1);
}

function stemsMatch(a: string, b: string): boolean {
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

function dirname(path: string): string {
  const posix = toPosix(path);
  return posix.slice(0, posix.lastIndexOf('/') + 1);
}

function joinPath(dir: string, relative: string): string {
  const parts = `${dir}${relative}`.split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/** The project modules a file's text imports, as stems resolved against the file's own path. */
export function importedStems(filePath: string, text: string): string[] {
  const stems = new Set<string>();
  const dir = dirname(filePath);
  if (!/\.py[iw]?$/.test(filePath)) {
    for (const match of text.matchAll(JS_IMPORT)) stems.add(stemOf(joinPath(dir, match[1] as string)));
    return [...stems];
  }
  for (const match of text.matchAll(PY_IMPORT)) {
    const module = (match[1] ?? match[2] ?? '') as string;
    if (module === '' || /^\.+$/.test(module)) continue;
    const dots = /^\.*/.exec(module)?.[0].length ?? 0;
    const dotted = module.slice(dots).replace(/\./g, '/');
    // `from .fields import X` is relative to the package; `import os.path` is absolute.
    stems.add(dots === 0 ? dotted : joinPath(dir + '../'.repeat(dots - 1), dotted));
  }
  return [...stems].filter((stem) => stem !== '');
}

/** Stems indexed by their last segment, so a lookup costs the same however many there are. */
class StemIndex {
  private readonly byName = new Map<string, Array<{ stem: string; level: number }>>();
  #size = 0;

  add(stem: string, level: number): boolean {
    const name = lastSegment(stem);
    const list = this.byName.get(name) ?? [];
    const existing = list.find((entry) => entry.stem === stem);
    if (existing !== undefined && existing.level <= level) return false;
    if (existing !== undefined) existing.level = level;
    else {
      list.push({ stem, level });
      this.#size++;
    }
    this.byName.set(name, list);
    return true;
  }

  /** The lowest level of a stem matching `stem`, if any. */
  levelOf(stem: string): number | undefined {
    let best: number | undefined;
    for (const entry of this.byName.get(lastSegment(stem)) ?? []) {
      if (stemsMatch(stem, entry.stem) && (best === undefined || entry.level < best)) best = entry.level;
    }
    return best;
  }

  get size(): number {
    return this.#size;
  }

  entries(): Array<{ stem: string; level: number }> {
    return [...this.byName.values()].flat().sort((a, b) => a.level - b.level || (a.stem < b.stem ? -1 : a.stem > b.stem ? 1 : 0));
  }
}

function containsWord(text: string, word: string): boolean {
  let at = text.indexOf(word);
  while (at !== -1) {
    const before = at === 0 ? '' : (text[at - 1] as string);
    const after = text[at + word.length] ?? '';
    if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return true;
    at = text.indexOf(word, at + 1);
  }
  return false;
}

export interface IdentifierSubject {
  record: NormalizedRecord;
  text: string;
  facts: Extraction;
}

/** The paths a fragment names or is about (a file view's command names its file on every fragment). */
function pathsOf(subject: IdentifierSubject): string[] {
  return [...subject.facts.paths.filter((path) => !VENDORED.test(toPosix(path))), ...ownPaths(subject.record)];
}

/** The paths a record is about: a file's or diff's path, or the paths in a command (`cat src/a.ts`, `open fields.py`). */
function ownPaths(record: NormalizedRecord): readonly string[] {
  if (record.path !== undefined) return [record.path];
  if (record.command === undefined || record.kind !== 'toolOutput') return [];
  // Read once per record: scoring asks for each of its fragments, and for each task and decision.
  let paths = commandPaths.get(record);
  if (paths === undefined) {
    paths = pathsInCommand(record.command);
    commandPaths.set(record, paths);
  }
  return paths;
}

const commandPaths = new WeakMap<NormalizedRecord, readonly string[]>();
const NO_LINES: readonly number[] = Object.freeze([]);

function pathsInCommand(command: string): string[] {
  return command.split(/\s+/).map((word) => word.replace(/^["'`(]+|["'`),;:]+$/g, '')).filter((word) => /^[\w.@~-]*[\w@~-][\\/][^\s]*$|^[\w@~-][\w.@~-]*\.[a-z]{1,5}$/i.test(word) && !VENDORED.test(word));
}

/**
 * What the task names, in every spelling a session uses: full paths, module stems (a dotted
 * Python module is a path too), file names, symbols, and task words that are a file's name.
 */
export class TaskIdentifiers {
  private readonly paths: string[];
  private readonly stems = new StemIndex();
  private readonly basenames: Set<string>;
  private readonly symbols: string[];
  private readonly nameWords: Set<string>;
  private readonly references: readonly string[];

  constructor(task: TaskTerms) {
    this.references = task.references;
    this.paths = task.paths.map(toPosix);
    for (const path of task.paths) this.stems.add(stemOf(path), 0);
    // A plain lower-case word (`print`, `dict`) is a word, and lexical overlap already counts it.
    this.symbols = task.symbols.filter((symbol) => !GENERIC_ERROR_TYPE.test(symbol) && /[A-Z_.]/.test(symbol.slice(1)));
    for (const symbol of this.symbols) if (/^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+$/.test(symbol)) this.stems.add(symbol.replace(/\./g, '/'), 0);
    this.basenames = new Set(task.basenames);
    // However short: a task about `CI` is about `ci.yml`.
    this.nameWords = new Set(task.words);
  }

  /** Whether the task names any identifier at all (a path, file, symbol or change); "the build is broken" names none. */
  get namesAny(): boolean {
    return this.paths.length > 0 || this.basenames.size > 0 || this.symbols.length > 0 || this.references.length > 0;
  }

  /** Whether the fragment names a change the task names (`#512`, a commit): it shows what that change touched. */
  namesChange(subject: IdentifierSubject): boolean {
    return this.references.length > 0 && this.references.some((reference) => namesReference(subject.text, reference));
  }

  match(subject: IdentifierSubject): number {
    if (this.paths.length > 0) {
      const posixText = toPosix(subject.text);
      if (this.paths.some((path) => posixText.includes(path))) return IDENTIFIER_VALUE.path;
    }
    const paths = pathsOf(subject);
    if (this.stems.size > 0 && paths.some((path) => this.stems.levelOf(stemOf(path)) !== undefined)) return IDENTIFIER_VALUE.path;
    if (this.symbols.some((symbol) => containsWord(subject.text, symbol) || subject.facts.symbols.includes(symbol))) return IDENTIFIER_VALUE.symbol;
    if (this.namesChange(subject)) return IDENTIFIER_VALUE.symbol;
    if (this.basenames.size === 0 && this.nameWords.size === 0) return 0;
    const names = paths.map(basename);
    if (names.some((name) => this.basenames.has(name))) return IDENTIFIER_VALUE.basename;
    if ([...this.basenames].some((name) => containsWord(subject.text, name))) return IDENTIFIER_VALUE.basename;
    if (names.some((name) => this.nameWords.has(lastSegment(stemOf(name)).toLowerCase()))) return IDENTIFIER_VALUE.basename;
    return 0;
  }
}

/** Whether `text` names `reference`: `#512` exactly, or a commit hash in full or abbreviated. */
function namesReference(text: string, reference: string): boolean {
  if (reference.startsWith('#')) return containsWord(text, reference);
  let at = text.indexOf(reference);
  while (at !== -1) {
    if (!/[\w-]/.test(at === 0 ? '' : (text[at - 1] as string))) return true;
    at = text.indexOf(reference, at + 1);
  }
  return false;
}

/**
 * The paths a seed points at: its own, its stack frames, and those in its error and failing-test
 * lines. Not every path it prints: a test run lists every passing file too.
 */
function seedPaths(seed: IdentifierSubject): string[] {
  const { facts } = seed;
  const paths = [...ownPaths(seed.record), ...facts.frames.map((frame) => frame.file)];
  const failureLines = [...facts.errorSignatures, ...facts.testFailures];
  for (const path of facts.paths) if (failureLines.some((line) => line.includes(path))) paths.push(path);
  return paths.filter((path) => !VENDORED.test(toPosix(path)));
}

/** The paths a change the task names prints (a commit's diffstat, a pull request's files): all of them are suspects. */
function changedPaths(change: IdentifierSubject): string[] {
  return [...ownPaths(change.record), ...change.facts.paths].filter((path) => !VENDORED.test(toPosix(path)));
}

/**
 * The code the task reaches in a few hops: the project files named by the seeds (failures and
 * fragments that name the task's identifiers) and by the changes the task names, then the modules
 * those files import, and so on.
 */
export class RelatedModules {
  private readonly stems = new StemIndex();
  /** `value` by record: it reads only the record's own paths, and a record has many fragments. */
  private readonly valueByRecord = new Map<NormalizedRecord, number>();
  /** `namedLines` by record, asked once per fragment of it. */
  private readonly linesByRecord = new Map<NormalizedRecord, readonly number[]>();
  /** The lines the seeds' locations name, by the last segment of the file's stem. */
  private readonly named = new Map<string, Array<{ stem: string; line: number }>>();

  constructor(seeds: readonly IdentifierSubject[], files: readonly NormalizedRecord[], changes: readonly IdentifierSubject[]) {
    for (const seed of seeds) {
      for (const frame of seed.facts.frames) {
        if (frame.line === undefined || VENDORED.test(toPosix(frame.file))) continue;
        const stem = stemOf(frame.file);
        const list = this.named.get(lastSegment(stem)) ?? [];
        if (!list.some((entry) => entry.stem === stem && entry.line === frame.line)) list.push({ stem, line: frame.line });
        this.named.set(lastSegment(stem), list);
      }
    }
    const pointed = [...seeds.map(seedPaths), ...changes.map(changedPaths)];
    for (const paths of pointed) {
      for (const path of paths) {
        const stem = stemOf(path);
        this.stems.add(stem, 1);
        const tested = testedStem(stem);
        if (tested !== undefined) this.stems.add(tested, 1);
      }
    }
    const visited = new Set<string>();
    for (let hop = 1; hop < MAX_HOPS; hop++) {
      for (const file of files) {
        if (file.path === undefined || visited.has(file.id)) continue;
        if (this.stems.levelOf(stemOf(file.path)) !== hop) continue;
        visited.add(file.id);
        for (const stem of importedStems(file.path, file.text)) this.stems.add(stem, hop + 1);
      }
    }
  }

  /** The identifier value a subject earns by being one of the related modules. */
  value(subject: IdentifierSubject): number {
    if (this.stems.size === 0) return 0;
    const known = this.valueByRecord.get(subject.record);
    if (known !== undefined) return known;
    let best: number | undefined;
    for (const path of ownPaths(subject.record)) {
      const level = this.stems.levelOf(stemOf(path));
      if (level !== undefined && (best === undefined || level < best)) best = level;
    }
    const value = best === undefined ? 0 : IDENTIFIER_VALUE.path * HOP_DECAY ** best;
    this.valueByRecord.set(subject.record, value);
    return value;
  }

  /** The lines of a file record that a failure's location names (record lines, 1-based, ascending). */
  namedLines(record: NormalizedRecord): readonly number[] {
    if (record.kind !== 'file' || record.path === undefined || this.named.size === 0) return NO_LINES;
    const known = this.linesByRecord.get(record);
    if (known !== undefined) return known;
    const stem = stemOf(record.path);
    const lines = (this.named.get(lastSegment(stem)) ?? []).filter((entry) => stemsMatch(stem, entry.stem)).map((entry) => entry.line);
    const named = [...new Set(lines)].sort((a, b) => a - b);
    this.linesByRecord.set(record, named);
    return named;
  }

  /** For the report: each stem with its hop count. */
  list(): Array<{ stem: string; hops: number }> {
    return this.stems.entries().map(({ stem, level }) => ({ stem, hops: level }));
  }
}
