// The import graph of a source file, read from the sources, not by running them: a module reached
// only on some path at run time is still found. The walk follows every import that loads a module
// at run time (static `import` and `export ... from`, `import x = require()`, `require()`,
// `import()` and `lazyRequire()` of a string literal), resolves relative, package (`exports` with
// Node's conditions) and `#imports` specifiers, walks into node_modules, and skips what TypeScript
// erases (`import type`, `export type`). Under `verbatimModuleSyntax`, `import { type A } from 'x'`
// still loads 'x', so it is followed. Loads that happen only when code runs are marked deferred,
// so a start-up walk can leave them out.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type EdgeKind = 'import' | 'require';

interface Edge {
  specifier: string;
  kind: EdgeKind;
  /**
   * Loaded only when code runs, not when the file is imported: `import()`, `lazyRequire('x')`
   * (src/lazy), and `require()` inside a function. A start-up walk skips these.
   */
  deferred: boolean;
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
  const add = (specifier: string | undefined, kind: EdgeKind, deferred: boolean): void => {
    if (specifier !== undefined) edges.push({ specifier, kind, deferred });
  };
  const visit = (node: ts.Node, inFunction: boolean): void => {
    if (ts.isImportDeclaration(node)) {
      if (node.importClause?.isTypeOnly !== true) add(stringLiteral(node.moduleSpecifier), 'import', false);
      return;
    }
    if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly) add(stringLiteral(node.moduleSpecifier), 'import', false);
      return;
    }
    if (ts.isImportEqualsDeclaration(node)) {
      if (!node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) add(stringLiteral(node.moduleReference.expression), 'require', inFunction);
      return;
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add(stringLiteral(node.arguments[0]), 'import', true);
      else if (ts.isIdentifier(callee) && callee.text === 'require') add(stringLiteral(node.arguments[0]), 'require', inFunction);
      else if (ts.isIdentifier(callee) && callee.text === 'lazyRequire') add(stringLiteral(node.arguments[0]), 'require', true);
    }
    const entersFunction = ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node);
    ts.forEachChild(node, (child) => visit(child, inFunction || entersFunction));
  };
  visit(source, false);
  edgeCache.set(file, edges);
  return edges;
}

// ---------------------------------------------------------------------------------------------
// Resolution

type Resolved = { builtin: string } | { file: string } | { unresolved: true };

export function isFile(path: string): boolean {
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

export function packageName(specifier: string): string {
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

export interface Reach {
  /** The forbidden module as written (`node:fs`, `better-sqlite3/lib`). */
  module: string;
  /** Files from the entry to the one that imports it, relative to the project, then the module. */
  chain: string[];
}

export interface Walk {
  forbidden: Reach[];
  unresolved: Reach[];
  /** Every file reached, relative to the project. */
  files: string[];
}

function display(file: string): string {
  return relative(ROOT, file) || file;
}

export interface WalkOptions {
  /** A module the walk must not reach: reported with its chain, not entered. */
  isForbidden: (module: { builtin?: string; packageName?: string; specifier: string }) => boolean;
  /** Follow loads that happen only when code runs (`import()`, `lazyRequire`); default true. */
  followDeferred?: boolean;
}

/** Breadth first, so each forbidden module is reported with a shortest chain that reaches it. */
export function walkImports(entry: string, options: WalkOptions): Walk {
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
      if (edge.deferred && options.followDeferred === false) continue;
      const bare = !edge.specifier.startsWith('.') && !edge.specifier.startsWith('/') && !edge.specifier.startsWith('#');
      const builtin = isBuiltin(edge.specifier) ? edge.specifier.replace(/^node:/, '') : undefined;
      const module = builtin !== undefined ? { builtin, specifier: edge.specifier } : bare ? { packageName: packageName(edge.specifier), specifier: edge.specifier } : { specifier: edge.specifier };
      if (options.isForbidden(module)) {
        if (!forbidden.some((reach) => reach.module === edge.specifier)) forbidden.push({ module: edge.specifier, chain: [...chainTo(file), edge.specifier] });
        continue;
      }
      const resolved = resolveSpecifier(edge.specifier, shownAs.get(file)!, edge.kind);
      // A JSON file is data and loads nothing; a relative one may be written by the build (dist/) and be absent from the sources.
      if ('unresolved' in resolved && edge.specifier.endsWith('.json')) continue;
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

export function chainText(reach: Reach): string {
  return `${reach.module} via ${reach.chain.join(' → ')}`;
}

/** `mcpctx/optimizer` → src/optimizer/index.ts, through package.json "exports" and tsconfig.build (src → dist). */
export function entrySource(entry: string): string {
  const manifest = readJson(join(ROOT, 'package.json'));
  const subpath = `.${entry.slice(String(manifest.name).length)}`;
  const exportsField = manifest.exports as Record<string, { default?: string }>;
  const built = exportsField[subpath]?.default;
  if (built === undefined || !built.startsWith('./dist/')) throw new Error(`package.json has no "exports" entry ${subpath} with a dist/ default`);
  return join(ROOT, 'src', built.slice('./dist/'.length).replace(/\.js$/, '.ts'));
}

