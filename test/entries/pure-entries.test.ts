// The public entries that claim to be pure (no processes, files, sockets, threads or native
// addons, and no package outside a short allowlist) are checked by reading their import graph (test/support/import-graph.ts), not by running
// them: a forbidden module reached only on some path at run time, or loaded lazily, is still found.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, chainText, entrySource, isFile, walkImports, type WalkOptions } from '../support/import-graph.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Public entries that promise no I/O. `mcpctx/optimizer/server` is the optimizer's impure half. */
const PURE_ENTRIES: readonly string[] = ['mcpctx/tokens', 'mcpctx/shape', 'mcpctx/optimizer', 'mcpctx/toolsearch'];

/** Folders that are no public entry but are imported by pure code, or meant to be: by their index file. */
const PURE_FOLDERS: readonly string[] = ['src/config/index.ts', 'src/gateway/trust/scan/index.ts', 'src/json/index.ts', 'src/text/index.ts'];

/** Built-ins (with or without `node:`) a pure entry must not reach. */
const FORBIDDEN_BUILTINS: ReadonlySet<string> = new Set(['child_process', 'fs', 'fs/promises', 'net', 'http', 'worker_threads']);

/**
 * The only packages pure code may reach, each pure JS with no I/O: the tokenizer, the TOON format,
 * BM25 search, and the config parsers. Anything else is forbidden, so a new package on a pure path
 * is a decision made here, not an accident.
 */
const ALLOWED_PACKAGES: ReadonlySet<string> = new Set(['gpt-tokenizer', '@toon-format/toon', 'minisearch', 'jsonc-parser', 'yaml']);

/** Named so the allowlist can be checked against them: the MCP SDK, model SDKs, framework SDKs, the native SQLite addon. */
const NEVER_PURE: readonly string[] = [
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/sdk',
  '@anthropic-ai/sdk',
  'openai',
  'ai',
  '@ai-sdk/mcp',
  '@langchain/core',
  '@langchain/mcp-adapters',
  '@openai/agents',
  '@anthropic-ai/claude-agent-sdk',
  'better-sqlite3',
];

function isForbidden({ builtin, packageName }: { builtin?: string; packageName?: string }): boolean {
  return (builtin !== undefined && FORBIDDEN_BUILTINS.has(builtin)) || (packageName !== undefined && !ALLOWED_PACKAGES.has(packageName));
}

const PURE: WalkOptions = { isForbidden };

describe('pure entries', () => {
  it.each(PURE_ENTRIES)('%s reaches no process, file, socket, thread or native addon module, and no package outside the allowlist', (entry) => {
    const source = entrySource(entry);
    expect(isFile(source), `${entry}: ${source}`).toBe(true);
    const walk = walkImports(source, PURE);
    expect(walk.forbidden.map(chainText), `${entry} reaches forbidden modules`).toEqual([]);
    expect(walk.unresolved.map(chainText), `${entry} has imports the walker cannot resolve`).toEqual([]);
  });

  it.each(PURE_FOLDERS)('%s reaches no process, file, socket, thread or native addon module, and no package outside the allowlist', (index) => {
    const walk = walkImports(join(ROOT, index), PURE);
    expect(walk.forbidden.map(chainText), `${index} reaches forbidden modules`).toEqual([]);
    expect(walk.unresolved.map(chainText), `${index} has imports the walker cannot resolve`).toEqual([]);
  });

  it('allows no SDK, model SDK, framework SDK or native addon, only the listed pure packages', () => {
    expect(NEVER_PURE.filter((name) => !isForbidden({ packageName: name }))).toEqual([]);
    expect(isForbidden({ packageName: 'gpt-tokenizer' })).toBe(false);
  });

  it('src/json and src/text are leaves, and the tool search loads no tokenizer (its JSON helpers come from src/json)', () => {
    for (const leaf of ['json', 'text']) {
      expect(walkImports(join(ROOT, `src/${leaf}/index.ts`), PURE).files.filter((file) => !file.startsWith(`src/${leaf}/`))).toEqual([]);
    }
    expect(walkImports(entrySource('mcpctx/toolsearch'), PURE).files.filter((file) => file.includes('gpt-tokenizer'))).toEqual([]);
  });

  it('walks into packages and lazy loads: mcpctx/tokens reaches the tokenizer and its rank tables', () => {
    const { files } = walkImports(entrySource('mcpctx/tokens'), PURE);
    expect(files).toContain('src/tokens/_count.ts');
    // `lazyRequire('gpt-tokenizer/...')` takes the "require" condition: the CommonJS build.
    expect(files).toContain('node_modules/gpt-tokenizer/cjs/GptEncoding.js');
    expect(files).toContain('node_modules/gpt-tokenizer/cjs/bpeRanks/o200k_base.js');
  });
});

describe('the import-graph walker', () => {
  it('finds forbidden modules deep in a graph and names the chain that reaches each', () => {
    const walk = walkImports(join(FIXTURES, 'deep/entry.ts'), PURE);
    const base = 'test/entries/fixtures/deep';
    expect(walk.forbidden.map(chainText).sort()).toEqual([
      `better-sqlite3 via ${base}/entry.ts → ${base}/middle.ts → ${base}/native.ts → better-sqlite3`,
      `node:fs via ${base}/entry.ts → ${base}/middle.ts → ${base}/leaf.ts → node:fs`,
    ]);
    expect(walk.unresolved).toEqual([]);
  });

  it('does not follow type-only imports and exports, which TypeScript erases', () => {
    const walk = walkImports(join(FIXTURES, 'clean/entry.ts'), PURE);
    expect(walk.forbidden).toEqual([]);
    expect(walk.files).toEqual(['test/entries/fixtures/clean/entry.ts', 'test/entries/fixtures/clean/pure.ts']);
  });
});
