// The public entries that claim to be pure (no processes, files, sockets, threads or native
// addons) are checked by reading their import graph, not by running them: a forbidden module
// reached only on some path at run time is still found. The walk starts at the entry's source
// file (package.json "exports" → dist/X.js → src/X.ts), follows every import that loads a module
// at run time (static `import` and `export ... from`, `import x = require()`, and `require()` or
// `import()` of a string literal, which is how a lazily loaded native addon is reached), resolves
// relative, package (`exports` with Node's conditions) and `#imports` specifiers, walks into
// node_modules, and skips what TypeScript erases (`import type`, `export type`). Under
// `verbatimModuleSyntax`, `import { type A } from 'x'` still loads 'x', so it is followed.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Public entries that promise no I/O. `mcpctx/optimizer/server` is the optimizer's impure half. */
const PURE_ENTRIES: readonly string[] = ['mcpctx/tokens', 'mcpctx/shape', 'mcpctx/optimizer', 'mcpctx/toolsearch'];

/** Folders that are no public entry but are imported by pure code, or meant to be: by their index file. */
const PURE_FOLDERS: readonly string[] = ['src/config/index.ts', 'src/gateway/trust/scan/index.ts'];

/** Built-ins (with or without `node:`) and packages a pure entry must not reach. */
const FORBIDDEN_BUILTINS: ReadonlySet<string> = new Set(['child_process', 'fs', 'fs/promises', 'net', 'http', 'worker_threads']);
const FORBIDDEN_PACKAGES: ReadonlySet<string> = new Set(['better-sqlite3']);

type EdgeKind = 'import' | 'require';

interface Edge {
  specifier: string;
  kind: EdgeKind;
}

/** Node's conditions for each kind of load (Node 20: no `module-sync`). */
const CONDITIONS: Record<EdgeKind, readonly string[]> = {
  import: ['node', 'import', 'default'],
  require: ['node', 'require', 'default'],
};

const PARSED = /\.(?:[cm]?[jt]s)$/;

// Parsing is the cost (the tokenizer's rank tables are 2.4 MB each): once per file per run.
const edgeCache = new Map<string, Edge[]>();

function stringLiteral(node: ts.Node | undefined): string | undefined {
  return node !== undefined && ts.isStringLiteralLike(node) ? node.text : undefined;
}

/** The modules a file loads at run time, in source order. */
function runtimeImports(file: string): Edge[] {
  const cached = edgeCache.get(file);
  if (cached !== undefined) return cached;
  const typescript = /\.[cm]?ts$/.test(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, typescript ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const edges: Edge[] = [];
  const add = (specifier: string | undefined, kind: EdgeKind): void => {
    if (specifier !== undefined) edges.push({ specifier, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      if (node.importClause?.isTypeOnly !== true) add(stringLiteral(node.moduleSpecifier), 'import');
      return;
    }
    if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly) add(stringLiteral(node.moduleSpecifier), 'import');
      return;
    }
    if (ts.isImportEqualsDeclaration(node)) {
      if (!node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) add(stringLiteral(node.moduleReference.expression), 'require');
      return;
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add(stringLiteral(node.arguments[0]), 'import');
      else if (ts.isIdentifier(callee) && callee.text === 'require') add(stringLiteral(node.arguments[0]), 'require');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  edgeCache.set(file, edges);
  return edges;
}

// ---------------------------------------------------------------------------------------------
// Resolution

type Resolved = { builtin: string } | { file: string } | { unresolved: true };

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** A relative path as Node (ESM or CJS) or TypeScript (`./a.js` meaning `./a.ts`) would find it. */
function probe(path: string, from: string): string | undefined {
  const candidates: string[] = [];
  if (/\.[cm]?ts$/.test(from)) candidates.push(path.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts').replace(/\.cjs$/, '.cts'));
  candidates.push(path, `${path}.js`, `${path}.json`, join(path, 'index.js'));
  return candidates.find(isFile);
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An `exports`/`imports` target under the first condition that applies (strings, arrays, condition objects). */
function conditionalTarget(target: unknown, star: string, conditions: readonly string[]): string | undefined {
  if (typeof target === 'string') return target.replaceAll('*', star);
  if (Array.isArray(target)) {
    for (const option of target) {
      const found = conditionalTarget(option, star, conditions);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(target)) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (!conditions.includes(condition)) continue;
    const found = conditionalTarget(value, star, conditions);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `key` in a subpath map: exact, else the `*` pattern with the longest prefix. */
function mappedTarget(map: Record<string, unknown>, key: string, conditions: readonly string[]): string | undefined {
  if (Object.hasOwn(map, key)) return conditionalTarget(map[key], '', conditions);
  let best: { pattern: string; star: string } | undefined;
  for (const pattern of Object.keys(map)) {
    const at = pattern.indexOf('*');
    if (at === -1) continue;
    const prefix = pattern.slice(0, at);
    const suffix = pattern.slice(at + 1);
    if (key.length < prefix.length + suffix.length || !key.startsWith(prefix) || !key.endsWith(suffix)) continue;
    if (best === undefined || prefix.length > best.pattern.indexOf('*')) best = { pattern, star: key.slice(prefix.length, key.length - suffix.length) };
  }
  return best === undefined ? undefined : conditionalTarget(map[best.pattern], best.star, conditions);
}

function exportsTarget(exportsField: unknown, subpath: string, conditions: readonly string[]): string | undefined {
  const isSubpathMap = isObject(exportsField) && Object.keys(exportsField).some((key) => key.startsWith('.'));
  const map = isSubpathMap ? exportsField : { '.': exportsField };
  return mappedTarget(map, subpath, conditions);
}

function packageRoot(name: string, from: string): string | undefined {
  let dir = dirname(from);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (isFile(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The folder of the package.json that scopes `from` (for `#imports`). */
function packageScope(from: string): string | undefined {
  let dir = dirname(from);
  for (;;) {
    if (isFile(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

function resolveSpecifier(specifier: string, from: string, kind: EdgeKind): Resolved {
  if (isBuiltin(specifier)) return { builtin: specifier.replace(/^node:/, '') };
  const conditions = CONDITIONS[kind];
  const fileOrUnresolved = (path: string | undefined): Resolved => (path === undefined ? { unresolved: true } : { file: path });
  if (specifier.startsWith('.') || specifier.startsWith('/')) return fileOrUnresolved(probe(resolve(dirname(from), specifier), from));
  if (specifier.startsWith('#')) {
    const scope = packageScope(from);
    const imports = scope === undefined ? undefined : readJson(join(scope, 'package.json')).imports;
    const target = scope === undefined || !isObject(imports) ? undefined : mappedTarget(imports, specifier, conditions);
    if (scope === undefined || target === undefined) return { unresolved: true };
    return target.startsWith('.') ? fileOrUnresolved(probe(join(scope, target), join(scope, 'package.json'))) : resolveSpecifier(target, join(scope, 'package.json'), kind);
  }
  const name = packageName(specifier);
  const root = packageRoot(name, from);
  if (root === undefined) return { unresolved: true };
  const manifest = readJson(join(root, 'package.json'));
  const subpath = specifier === name ? '.' : `.${specifier.slice(name.length)}`;
  if (manifest.exports !== undefined) {
    const target = exportsTarget(manifest.exports, subpath, conditions);
    return target === undefined ? { unresolved: true } : fileOrUnresolved(isFile(join(root, target)) ? join(root, target) : undefined);
  }
  const main = subpath === '.' ? (typeof manifest.main === 'string' ? manifest.main : 'index.js') : subpath;
  return fileOrUnresolved(probe(join(root, main), join(root, 'package.json')));
}

// ---------------------------------------------------------------------------------------------
// The walk

interface Reach {
  /** The forbidden module as written (`node:fs`, `better-sqlite3/lib`). */
  module: string;
  /** Files from the entry to the one that imports it, relative to the project, then the module. */
  chain: string[];
}

interface Walk {
  forbidden: Reach[];
  unresolved: Reach[];
  /** Every file reached, relative to the project. */
  files: string[];
}

function display(file: string): string {
  return relative(ROOT, file) || file;
}

/** Breadth first, so each forbidden module is reported with a shortest chain that reaches it. */
function walkImports(entry: string): Walk {
  // Files are told apart by their real path (node_modules may be a symlink) and shown by the path they were reached by.
  const shownAs = new Map<string, string>([[realpathSync(entry), entry]]);
  const cameFrom = new Map<string, string | undefined>([[realpathSync(entry), undefined]]);
  const queue = [realpathSync(entry)];
  const forbidden: Reach[] = [];
  const unresolved: Reach[] = [];
  const chainTo = (file: string): string[] => {
    const chain: string[] = [];
    for (let at: string | undefined = file; at !== undefined; at = cameFrom.get(at)) chain.unshift(display(shownAs.get(at)!));
    return chain;
  };
  for (let next = 0; next < queue.length; next++) {
    const file = queue[next]!;
    if (!PARSED.test(file)) continue;
    for (const edge of runtimeImports(file)) {
      const bare = !edge.specifier.startsWith('.') && !edge.specifier.startsWith('/') && !edge.specifier.startsWith('#');
      const builtin = isBuiltin(edge.specifier) ? edge.specifier.replace(/^node:/, '') : undefined;
      if ((builtin !== undefined && FORBIDDEN_BUILTINS.has(builtin)) || (builtin === undefined && bare && FORBIDDEN_PACKAGES.has(packageName(edge.specifier)))) {
        if (!forbidden.some((reach) => reach.module === edge.specifier)) forbidden.push({ module: edge.specifier, chain: [...chainTo(file), edge.specifier] });
        continue;
      }
      const resolved = resolveSpecifier(edge.specifier, shownAs.get(file)!, edge.kind);
      if ('unresolved' in resolved) {
        unresolved.push({ module: edge.specifier, chain: [...chainTo(file), edge.specifier] });
      } else if ('file' in resolved) {
        const target = realpathSync(resolved.file);
        if (!cameFrom.has(target)) {
          cameFrom.set(target, file);
          shownAs.set(target, resolved.file);
          queue.push(target);
        }
      }
    }
  }
  return { forbidden, unresolved, files: queue.map((file) => display(shownAs.get(file)!)) };
}

function chainText(reach: Reach): string {
  return `${reach.module} via ${reach.chain.join(' → ')}`;
}

/** `mcpctx/optimizer` → src/optimizer/index.ts, through package.json "exports" and tsconfig.build (src → dist). */
function entrySource(entry: string): string {
  const manifest = readJson(join(ROOT, 'package.json'));
  const subpath = `.${entry.slice(String(manifest.name).length)}`;
  const exportsField = manifest.exports as Record<string, { default?: string }>;
  const built = exportsField[subpath]?.default;
  if (built === undefined || !built.startsWith('./dist/')) throw new Error(`package.json has no "exports" entry ${subpath} with a dist/ default`);
  return join(ROOT, 'src', built.slice('./dist/'.length).replace(/\.js$/, '.ts'));
}

describe('pure entries', () => {
  it.each(PURE_ENTRIES)('%s reaches no process, file, socket, thread or native addon module', (entry) => {
    const source = entrySource(entry);
    expect(isFile(source), `${entry}: ${source}`).toBe(true);
    const walk = walkImports(source);
    expect(walk.forbidden.map(chainText), `${entry} reaches forbidden modules`).toEqual([]);
    expect(walk.unresolved.map(chainText), `${entry} has imports the walker cannot resolve`).toEqual([]);
  });

  it.each(PURE_FOLDERS)('%s reaches no process, file, socket, thread or native addon module', (index) => {
    const walk = walkImports(join(ROOT, index));
    expect(walk.forbidden.map(chainText), `${index} reaches forbidden modules`).toEqual([]);
    expect(walk.unresolved.map(chainText), `${index} has imports the walker cannot resolve`).toEqual([]);
  });

  it('walks into packages: mcpctx/tokens reaches the tokenizer and its rank tables, ESM and CJS', () => {
    const { files } = walkImports(entrySource('mcpctx/tokens'));
    expect(files).toContain('src/tokens/_count.ts');
    expect(files).toContain('node_modules/gpt-tokenizer/esm/encoding/o200k_base.js');
    expect(files).toContain('node_modules/gpt-tokenizer/esm/bpeRanks/o200k_base.js');
    // `require('gpt-tokenizer/bpeRanks/o200k_base')` through createRequire takes the "require" condition.
    expect(files).toContain('node_modules/gpt-tokenizer/cjs/bpeRanks/o200k_base.js');
  });
});

describe('the import-graph walker', () => {
  it('finds forbidden modules deep in a graph and names the chain that reaches each', () => {
    const walk = walkImports(join(FIXTURES, 'deep/entry.ts'));
    const base = 'test/entries/fixtures/deep';
    expect(walk.forbidden.map(chainText).sort()).toEqual([
      `better-sqlite3 via ${base}/entry.ts → ${base}/middle.ts → ${base}/native.ts → better-sqlite3`,
      `node:fs via ${base}/entry.ts → ${base}/middle.ts → ${base}/leaf.ts → node:fs`,
    ]);
    expect(walk.unresolved).toEqual([]);
  });

  it('does not follow type-only imports and exports, which TypeScript erases', () => {
    const walk = walkImports(join(FIXTURES, 'clean/entry.ts'));
    expect(walk.forbidden).toEqual([]);
    expect(walk.files).toEqual(['test/entries/fixtures/clean/entry.ts', 'test/entries/fixtures/clean/pure.ts']);
  });
});
