// Heavy dependencies (the tokenizer's rank tables, ajv, better-sqlite3, yaml, the MCP and model
// SDKs) are loaded where they are first needed, not when a module that may need them is imported:
// `mcpctx --version` must not build a tokenizer, and `mcpctx measure` must not open SQLite.
import { createRequire } from 'node:module';
import { McpctxError } from '../errors/index.js';

// Package names resolve the same from every file of this package (one node_modules up the tree).
const require = createRequire(import.meta.url);

/** What an optional package is for (`neededFor` names the feature); `native` when it builds a native module at install. */
export interface OptionalUse {
  readonly neededFor: string;
  readonly native?: boolean;
}

/** `lodash/fp` → lodash, `@scope/name/sub` → @scope/name. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0] ?? '';
}

/**
 * The typed error for an optional package that did not load: MISSING_DEPENDENCY, naming the
 * package and the command that fixes it. Not found means not installed (an optional dependency a
 * default install may leave out, or an optional peer the app did not add): `npm install name`.
 * Found and failing means its native module is not built: `npm rebuild name`.
 */
export function missingDependency(name: string, use: OptionalUse, error: unknown): McpctxError {
  const code = (error as { code?: unknown } | null)?.code;
  const notFound = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
  const install = `${notFound ? 'npm install' : 'npm rebuild'} ${name}`;
  const message = notFound
    ? `${name} is not installed, and ${use.neededFor} needs it: run ${install} where mcpctx is installed (it is optional, so a default install may leave it out)`
    : `${name} is installed but did not load (${firstLine(error)}), and ${use.neededFor} needs it: run ${install} where mcpctx is installed${use.native === true ? ' (it downloads its native module, or compiles it with python3, make and a C++ compiler)' : ''}`;
  return new McpctxError('MISSING_DEPENDENCY', message, { package: name, install, neededFor: use.neededFor }, { cause: error });
}

/**
 * A getter that loads the package `specifier` (a bare name, resolved from this package) with
 * `require` at its first call and returns the same module after. Synchronous, so a synchronous API
 * (counting tokens, parsing YAML) stays synchronous; the package's CommonJS build is the one
 * loaded, so a package must be loaded this way everywhere in mcpctx, never also by `import`.
 * The import-graph tests read `lazyRequire('name')` as a load of `name`. With an `OptionalUse`, a
 * package that does not load throws MISSING_DEPENDENCY (`missingDependency`); with a string, its
 * first line with that remedy.
 */
export function lazyRequire<T>(specifier: string, remedy?: string | OptionalUse): () => T {
  let loaded: { readonly module: T } | undefined;
  return () => {
    try {
      loaded ??= { module: require(specifier) as T };
    } catch (error) {
      if (remedy === undefined) throw error;
      if (typeof remedy !== 'string') throw missingDependency(packageOf(specifier), remedy, error);
      // Node's message goes on with the require stack; its first line says what failed.
      throw new Error(`${String((error as Error).message).split('\n')[0]} (${remedy})`, { cause: error });
    }
    return loaded.module;
  };
}

/** A module loaded by `import()` at its first use (an ESM package, in an async path), and the module once it is. */
export interface LazyImport<T> {
  /** Loads the module at the first call; the same module after. */
  load(): Promise<T>;
  /** The module if a `load` has finished, else undefined: what a synchronous check (`instanceof` its error class) can use. */
  loaded(): T | undefined;
}

/**
 * `lazyImport(() => import('openai'))`: the literal `import()` stays with the caller, so bundlers
 * and the import-graph tests see it. With `optional` (the package's name and use), a failed
 * import rejects with MISSING_DEPENDENCY (`missingDependency`), and the next load tries again.
 */
export function lazyImport<T>(importModule: () => Promise<T>, optional?: { name: string } & OptionalUse): LazyImport<T> {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    load: () => {
      loading ??= importModule().then(
        (module) => (loaded = module),
        (error: unknown) => {
          loading = undefined;
          throw optional === undefined ? error : missingDependency(optional.name, optional, error);
        },
      );
      return loading;
    },
    loaded: () => loaded,
  };
}

/**
 * Imports an optional peer a whole entry is built on (a framework SDK for mcpctx/host/<framework>),
 * for a top-level `await` in that entry: the entry keeps the application's own ESM instance of
 * the package (no second copy through `require`), and a missing peer fails the entry's import
 * with MISSING_DEPENDENCY naming the package and `npm install name`, not Node's bare
 * ERR_MODULE_NOT_FOUND.
 */
export async function importPeer<T>(name: string, neededFor: string, importModule: () => Promise<T>): Promise<T> {
  try {
    return await importModule();
  } catch (error) {
    throw missingDependency(name, { neededFor }, error);
  }
}
