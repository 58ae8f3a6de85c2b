// Heavy dependencies (the tokenizer's rank tables, ajv, better-sqlite3, yaml, the MCP and model
// SDKs) are loaded where they are first needed, not when a module that may need them is imported:
// `mcpctx --version` must not build a tokenizer, and `mcpctx measure` must not open SQLite.
import { createRequire } from 'node:module';

// Package names resolve the same from every file of this package (one node_modules up the tree).
const require = createRequire(import.meta.url);

/**
 * A getter that loads the package `specifier` (a bare name, resolved from this package) with
 * `require` at its first call and returns the same module after. Synchronous, so a synchronous API
 * (counting tokens, parsing YAML) stays synchronous; the package's CommonJS build is the one
 * loaded, so a package must be loaded this way everywhere in mcpctx, never also by `import`.
 * The import-graph tests read `lazyRequire('name')` as a load of `name`.
 */
export function lazyRequire<T>(specifier: string, remedy?: string): () => T {
  let loaded: { readonly module: T } | undefined;
  return () => {
    try {
      loaded ??= { module: require(specifier) as T };
    } catch (error) {
      if (remedy === undefined) throw error;
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

/** `lazyImport(() => import('openai'))`: the literal `import()` stays with the caller, so bundlers and the import-graph tests see it. */
export function lazyImport<T>(importModule: () => Promise<T>): LazyImport<T> {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    load: () => {
      loading ??= importModule().then((module) => (loaded = module));
      return loading;
    },
    loaded: () => loaded,
  };
}

/**
 * What to do when an optional dependency with a native module (better-sqlite3, for the SQLite
 * stores) cannot load: its install script downloads or compiles the module, which can fail where
 * mcpctx is installed, and nothing else needs it. For `lazyRequire`'s remedy.
 */
export function nativeModuleRemedy(name: string, neededFor: string): string {
  return `${name}, an optional dependency that only ${neededFor} needs, is not installed or its native module is not built: run npm rebuild ${name} where mcpctx is installed (it downloads the module, or compiles it with python3, make and a C++ compiler)`;
}
