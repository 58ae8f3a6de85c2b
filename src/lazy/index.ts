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
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: { readonly module: T } | undefined;
  return () => {
    loaded ??= { module: require(specifier) as T };
    return loaded.module;
  };
}
